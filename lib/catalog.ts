// The model catalog: every configured model with its deployments, and the rules that turn what a
// client wrote (catalog id, alias, vendor name, undated version, snapshot) into a catalog model.
import type { Config, ModelConfig, Modality, Pricing } from './config.js';
import type { Deployment } from './chunks.js';
import { qualityProfileOf } from './router/catalog-quality.js';
import type { QualityProfile } from './router/router-api.js';

export interface CatalogModel {
  id: string;
  /** the name after `<provider>/` (`claude-opus-5` for `anthropic/claude-opus-5`) */
  vendorName: string;
  family: string;
  displayName: string;
  created: Date;
  aliases: readonly string[];
  input: ReadonlySet<Modality>;
  contextWindow: number;
  maxOutputTokens: number;
  reasoning: boolean;
  /** may be named by a Messages advisor tool */
  advisor: boolean;
  tools: boolean;
  speeds: ReadonlySet<string>;
  /** answers search-only requests (`models[].webSearch`) */
  webSearch: boolean;
  /** gateway-auto's quality profile: the configured one, else the built-in default, else neutral */
  quality: QualityProfile;
  pricing: Pricing;
  deployments: readonly Deployment[];
  /** serves at least one text API (messages, chat, responses) */
  text: boolean;
  config: ModelConfig;
}

export type ResolvedVia = 'id' | 'alias' | 'snapshot' | 'vendor-name' | 'undated';

const DEFAULT_CREATED = new Date('2026-01-01T00:00:00Z');

function defaultApi(protocol: 'anthropic' | 'openai'): Deployment['api'] {
  return protocol === 'anthropic' ? 'messages' : 'chat';
}

export class Catalog {
  private readonly byId = new Map<string, CatalogModel>();
  private readonly byName = new Map<string, { model: CatalogModel; via: ResolvedVia }>();
  readonly models: readonly CatalogModel[];
  readonly routerPool: readonly CatalogModel[];

  constructor(config: Config) {
    const protocols = new Map(config.providers.map((p) => [p.id, p.protocol]));
    const models: CatalogModel[] = [];
    for (const m of config.models) {
      const slash = m.id.indexOf('/');
      const vendorName = slash >= 0 ? m.id.slice(slash + 1) : m.id;
      const deployments: Deployment[] = m.deployments.map((d) => {
        const protocol = protocols.get(d.provider)!;
        return { providerId: d.provider, protocol, api: d.api ?? defaultApi(protocol), upstreamModel: d.model };
      });
      const model: CatalogModel = {
        id: m.id,
        vendorName,
        family: m.family ?? (slash >= 0 ? m.id.slice(0, slash) : 'other'),
        displayName: m.displayName ?? vendorName,
        created: m.created ? new Date(m.created) : DEFAULT_CREATED,
        aliases: m.aliases ?? [],
        input: new Set(m.input ?? ['text']),
        contextWindow: m.contextWindow ?? 200_000,
        maxOutputTokens: m.maxOutputTokens ?? 8192,
        reasoning: m.reasoning ?? false,
        advisor: m.advisor ?? false,
        tools: m.tools ?? true,
        speeds: new Set(m.speeds ?? ['standard']),
        webSearch: m.webSearch ?? false,
        quality: qualityProfileOf(m.id, m.quality),
        pricing: m.pricing ?? {},
        deployments,
        text: deployments.some((d) => d.api !== 'transcriptions'),
        config: m,
      };
      models.push(model);
      this.byId.set(m.id, model);
    }
    this.models = models;
    // names in order of precedence: ids, aliases, vendor names (first model wins), snapshots
    for (const m of models) this.byName.set(m.id, { model: m, via: 'id' });
    for (const m of models) for (const a of m.aliases) if (!this.byName.has(a)) this.byName.set(a, { model: m, via: 'alias' });
    for (const m of models) if (!this.byName.has(m.vendorName)) this.byName.set(m.vendorName, { model: m, via: 'vendor-name' });
    for (const m of config.models) {
      for (const [snapshot, target] of Object.entries(m.snapshots ?? {})) {
        const model = this.byId.get(target);
        if (model && !this.byName.has(snapshot)) this.byName.set(snapshot, { model, via: 'snapshot' });
      }
    }
    const candidates = config.router?.candidates;
    this.routerPool = candidates ? candidates.map((id) => this.byId.get(id)!) : models.filter((m) => m.text);
  }

  get(id: string): CatalogModel | undefined {
    return this.byId.get(id);
  }

  /**
   * What a client's model value names: a catalog id, an alias (`opus`), a vendor name
   * (`claude-opus-5`), an explicitly bound snapshot, or an undated version (`claude-opus-4-8` →
   * `claude-opus-4.8`). Dates are never stripped: an unbound snapshot id resolves to nothing.
   */
  resolve(value: string): { model: CatalogModel; via: ResolvedVia } | null {
    const direct = this.byName.get(value);
    if (direct) return direct;
    const undated = /^(.*-\d{1,2})-(\d{1,2})$/.exec(value);
    if (undated) {
      const hit = this.byName.get(`${undated[1]}.${undated[2]}`);
      if (hit) return { model: hit.model, via: 'undated' };
    }
    // Claude Code's context-window suffix (`claude-opus-4-8[1m]`, sent by its warm-up and some
    // follow-up calls, FAILURE-MODES F67) names the same model
    const suffixed = /^(.+)\[[0-9a-z]+\]$/i.exec(value);
    if (suffixed) return this.resolve(suffixed[1]!);
    return null;
  }

  /**
   * Up to `max` ids or aliases close to `value`, for guided errors. Only names of models the key's
   * allowlist `allow` admits (empty = every model): a hint must not advertise models the caller
   * cannot use (issue #18).
   */
  suggestions(value: string, allow: readonly string[] = [], max = 5): string[] {
    const target = value.toLowerCase();
    const scored: { name: string; score: number }[] = [];
    for (const [name, { model }] of this.byName) {
      if (!modelAllowed(allow, model.id)) continue;
      const n = name.toLowerCase();
      let score = distance(target, n);
      if (n.includes(target) || target.includes(n)) score -= 3;
      scored.push({ name, score });
    }
    scored.sort((a, b) => a.score - b.score || a.name.localeCompare(b.name));
    return scored.slice(0, max).map((s) => s.name);
  }
}

/** Levenshtein distance, bounded work for short model ids. */
export function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const tmp = row[j]!;
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = tmp;
    }
  }
  return row[b.length]!;
}

/** `*` globs of a key's model allowlist (`anthropic/*`). Empty list = every model. */
export function modelAllowed(patterns: readonly string[], modelId: string): boolean {
  if (patterns.length === 0) return true;
  for (const p of patterns) {
    if (p === modelId || p === '*') return true;
    if (p.includes('*')) {
      const re = new RegExp(`^${p.split('*').map((s) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`);
      if (re.test(modelId)) return true;
    }
  }
  return false;
}
