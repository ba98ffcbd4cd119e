// Cross-references of a configuration that passed the schema: every name that points at a catalog
// model (key allowlists, router candidates, the default transcription model, snapshot targets) must
// match one, or the gateway would start and then refuse or silently skip it on every request; a
// model's quality profile names only skills the shipped router knows (else it weighs nothing). Runs
// after the provider and model checks of config.ts, so a Catalog can be built from the config. One
// cross-field check besides: a lease's expiry must outlast several renewals.
import { Catalog, distance, modelAllowed } from './catalog.js';
import type { Config } from './config.js';
import { loadRouter } from './router/index.js';

type ConfigError = (message: string) => Error;

/** APIs each provider protocol can carry (lib/providers/transport.ts: Anthropic hosts have one path). */
const PROTOCOL_APIS = { anthropic: ['messages'], openai: ['chat', 'responses', 'transcriptions'] } as const;

/** The catalog id a typo most likely meant: close in edit distance, and clearly closer than the rest. */
function closestId(value: string, ids: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestScore = Infinity;
  for (const id of ids) {
    const d = distance(value.toLowerCase(), id.toLowerCase());
    if (d < bestScore) [best, bestScore] = [id, d];
  }
  return best !== undefined && bestScore <= Math.max(2, Math.floor(value.length / 5)) ? best : undefined;
}

/**
 * Why `value` names no catalog model, as a sentence ending the error: an alias or vendor name is
 * pointed to its id (references here match ids only), a typo to the closest id.
 */
function noModel(value: string, catalog: Catalog): string {
  const hit = catalog.resolve(value);
  if (hit) return `"${value}" is not a model id: it is ${hit.via === 'alias' ? 'an alias' : 'another name'} of "${hit.model.id}", and this field takes catalog ids; write "${hit.model.id}"`;
  const close = closestId(value, catalog.models.map((m) => m.id));
  return `"${value}" matches no model in models[]${close ? `; did you mean "${close}"?` : ''}`;
}

/** Why a key's model allowlist entry matches no catalog model, or null when it does (the config and the admin API ask). */
export function keyModelProblem(entry: string, catalog: Catalog): string | null {
  if (entry.includes('*')) return catalog.models.some((m) => modelAllowed([entry], m.id)) ? null : `pattern "${entry}" matches no model in models[]`;
  return catalog.get(entry) ? null : noModel(entry, catalog);
}

function checkKeyModels(config: Config, catalog: Catalog, fail: ConfigError): void {
  (config.keys ?? []).forEach((k, i) => {
    k.models?.forEach((entry, j) => {
      const problem = keyModelProblem(entry, catalog);
      if (problem !== null) throw fail(`keys[${i}].models[${j}]: ${problem}`);
    });
  });
}

function checkModelRefs(config: Config, catalog: Catalog, fail: ConfigError): void {
  const protocols = new Map(config.providers.map((p) => [p.id, p.protocol]));
  config.models.forEach((m, i) => {
    m.deployments.forEach((d, j) => {
      const protocol = protocols.get(d.provider)!;
      const allowed: readonly string[] = PROTOCOL_APIS[protocol];
      if (d.api !== undefined && !allowed.includes(d.api)) {
        throw fail(`models[${i}].deployments[${j}].api: "${d.api}" cannot be served by provider "${d.provider}" (protocol ${protocol} carries ${allowed.map((a) => `"${a}"`).join(', ')})`);
      }
    });
    for (const [snap, target] of Object.entries(m.snapshots ?? {})) {
      if (!catalog.get(target)) throw fail(`models[${i}].snapshots.${snap}: ${noModel(target, catalog)}`);
    }
  });
  config.router?.candidates?.forEach((c, i) => {
    const model = catalog.get(c);
    if (!model) throw fail(`router.candidates[${i}]: ${noModel(c, catalog)}`);
    if (!model.text) throw fail(`router.candidates[${i}]: "${c}" serves transcriptions only, so "gateway-auto" could never pick it for a text request`);
  });
  // the router's weights are read only when a model names a skill (see services.ts: read lazily)
  const named = config.models.some((m) => Object.keys(m.quality?.skills ?? {}).length > 0);
  const skills = new Set(named ? loadRouter().skills : []);
  config.models.forEach((m, i) => {
    for (const skill of Object.keys(m.quality?.skills ?? {})) {
      if (!skills.has(skill)) throw fail(`models[${i}].quality.skills.${skill}: unknown skill; the router weighs ${[...skills].map((s) => `"${s}"`).join(', ')}`);
    }
  });
  const dm = config.transcription?.defaultModel;
  if (dm !== undefined) {
    const model = catalog.get(dm);
    if (!model) throw fail(`transcription.defaultModel: ${noModel(dm, catalog)}`);
    const transcribes = model.input.has('audio') && model.deployments.some((d) => d.api === 'transcriptions' && d.protocol === 'openai');
    if (!transcribes) throw fail(`transcription.defaultModel: "${dm}" cannot transcribe (it needs "audio" in models[].input and a deployment with "api": "transcriptions" on an openai provider)`);
  }
}

/** Ids that must be unique where they are listed: another entry with the same id would be unreachable. */
function checkDuplicateIds(config: Config, fail: ConfigError): void {
  const unique = (ids: (string | undefined)[], path: (i: number) => string, what: string): void => {
    const seen = new Set<string>();
    ids.forEach((id, i) => {
      if (id === undefined) return;
      if (seen.has(id)) throw fail(`${path(i)}: duplicate ${what} "${id}"`);
      seen.add(id);
    });
  };
  unique((config.keys ?? []).map((k) => k.id), (i) => `keys[${i}].id`, 'key id');
  const orgs = config.orgs ?? [];
  unique(orgs.map((o) => o.id), (i) => `orgs[${i}].id`, 'organization id');
  orgs.forEach((o, i) => {
    const projects = o.projects ?? [];
    unique(projects.map((p) => p.id), (j) => `orgs[${i}].projects[${j}].id`, 'project id');
    projects.forEach((p, j) => unique((p.environments ?? []).map((e) => e.id), (k) => `orgs[${i}].projects[${j}].environments[${k}].id`, 'environment id'));
  });
  const admins: [string, string][] = (config.admin?.keys ?? []).map((k, i) => [k, `admin.keys[${i}]`]);
  if (config.admin?.key !== undefined) admins.unshift([config.admin.key, 'admin.key']);
  const seenAdmin = new Set<string>();
  for (const [admin, path] of admins) {
    if (seenAdmin.has(admin)) throw fail(`${path}: the same admin key is listed twice`);
    seenAdmin.add(admin);
    const clash = (config.keys ?? []).findIndex((k) => k.key === admin);
    if (clash >= 0) throw fail(`${path}: is also keys[${clash}].key; the admin key must be a secret of its own`);
  }
}

/** How many renewals a lease outlives: a live process may miss this many minus one (a stalled event loop, a slow store). */
export const LEASE_RENEWALS_PER_EXPIRY = 3;

/**
 * A lease that expires before its owner's next renewals could land would let another process's
 * sweep release the holds of a live one (lib/store/lease.ts): its answers would then go uncharged.
 */
function checkLease(config: Config, fail: ConfigError): void {
  const { renewMs, expireMs } = config.lease;
  const least = LEASE_RENEWALS_PER_EXPIRY * renewMs;
  if (expireMs < least) {
    throw fail(`lease.expireMs: ${expireMs} is less than ${LEASE_RENEWALS_PER_EXPIRY} × lease.renewMs (${renewMs}): a live process that misses a renewal would have its holds released by another process's sweep; set lease.expireMs to at least ${least} or lower lease.renewMs`);
  }
}

/** Throws `fail(message)` at the first reference that matches nothing; messages start with the config path. */
export function checkReferences(config: Config, fail: ConfigError): void {
  const catalog = new Catalog(config);
  checkModelRefs(config, catalog, fail);
  checkKeyModels(config, catalog, fail);
  checkDuplicateIds(config, fail);
  checkLease(config, fail);
}
