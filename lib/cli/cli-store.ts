// What the store commands (`gateway credits`, `gateway keys`, `gateway usage`) share: flag parsing
// (`--name value` or `--name=value`, each once; a switch alone), opening the configured store as the CLI must (an
// existing SQLite file only, never created; PostgreSQL as configured), the config's organizations
// added first, and the admin context their operations run with (lib/admin/).
import { existsSync } from 'node:fs';
import { userInfo } from 'node:os';
import { resolve } from 'node:path';
import type { AdminContext } from '../admin/context.js';
import { Catalog } from '../catalog.js';
import type { Config } from '../config.js';
import { GatewayError } from '../errors.js';
import { openStore } from '../store/open-store.js';
import type { GatewayStore } from '../store/store-api.js';
import { isPostgresUrl, redactStoreUrl, storeFile } from '../store/store-url.js';

export class UsageError extends Error {}

export type Print = (line: string) => void;

export const stdout: Print = (line) => void process.stdout.write(`${line}\n`);
export const stderr: Print = (line) => void process.stderr.write(`${line}\n`);

/** `switches`: allowed flags that take no value (set to "true"). */
export function parseFlags(args: readonly string[], allowed: readonly string[], switches: readonly string[] = []): Map<string, string> {
  const out = new Map<string, string>();
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (!arg.startsWith('--')) throw new UsageError(`unexpected argument "${arg}"`);
    const eq = arg.indexOf('=');
    const name = eq >= 0 ? arg.slice(2, eq) : arg.slice(2);
    if (!allowed.includes(name)) throw new UsageError(`unknown option --${name}`);
    if (switches.includes(name)) {
      if (eq >= 0) throw new UsageError(`--${name} takes no value`);
      if (out.has(name)) throw new UsageError(`--${name} given twice`);
      out.set(name, 'true');
      continue;
    }
    const value = eq >= 0 ? arg.slice(eq + 1) : args[++i];
    if (value === undefined || value === '') throw new UsageError(`--${name} needs a value`);
    if (out.has(name)) throw new UsageError(`--${name} given twice`);
    out.set(name, value);
  }
  return out;
}

/** The audit log's actor for the command line: the local user (there is no admin key to fingerprint). */
function cliActor(): string {
  try {
    return `cli:${userInfo().username}`;
  } catch {
    return 'cli';
  }
}

export function adminContext(store: GatewayStore, config: Config): AdminContext {
  return { store, catalog: new Catalog(config), actor: cliActor() };
}

export type StoreWork = (store: GatewayStore, config: Config, print: (value: unknown) => void) => Promise<number>;

/**
 * Runs `work` on an opened store with the config's organizations added: a usage problem or a refused
 * operation (a GatewayError: unknown organization, a field out of range) prints its message, exit 2.
 */
export async function runOn(open: Promise<GatewayStore>, config: Config, work: StoreWork, out: Print, err: Print): Promise<number> {
  const store = await open;
  try {
    // organizations the config added since the gateway last started; keys stay the gateway's business
    await store.seedOrgs(config);
    return await work(store, config, (value) => out(JSON.stringify(value)));
  } catch (e) {
    if (!(e instanceof UsageError) && !GatewayError.is(e)) throw e;
    err(e.message);
    return 2;
  } finally {
    await store.close();
  }
}

/**
 * Opens the store of the config `load` resolves, as the command line must: one line on stderr names
 * the config and the store; a SQLite file that does not exist is refused (exit 2) and nothing is
 * created (run from the wrong directory, the CLI would otherwise show an empty ledger).
 */
export async function runOnConfigStore(command: string, load: () => { config: Config; source: string }, work: StoreWork, out: Print, err: Print): Promise<number> {
  const { config, source } = load();
  if (isPostgresUrl(config.store)) {
    err(`gateway ${command}: config ${source}, store ${redactStoreUrl(config.store)}`);
    return runOn(openStore(config), config, work, out, err);
  }
  const file = storeFile(config.store);
  if (file === null) {
    err(`gateway ${command}: config ${source} keeps its store in memory (${config.store}): there is no ledger to open`);
    return 2;
  }
  const path = resolve(file);
  if (!existsSync(path)) {
    err(`gateway ${command}: config ${source} names store ${path}, which does not exist; the CLI never creates one. Pass --config FILE with your gateway's config, or start the gateway first.`);
    return 2;
  }
  err(`gateway ${command}: config ${source}, store ${path}`);
  return runOn(openStore(config, { mustExist: true }), config, work, out, err);
}
