// `gateway credits ...`: inspect balances and usage, add credits. Output is JSON lines (amounts in USD
// as numbers, and the exact integer units beside them). Opens the configured store (from the command
// line, an existing one only), adds the config's organizations (not its keys) and never releases
// reservations: a running gateway may own them.
//
//   credits show  [--org ORG]
//   credits usage [--org ORG] [--key KEYID] [--limit N]
//   credits add   --org ORG --usd AMOUNT [--reason TEXT]
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Config } from '../config.js';
import { parseUsd, unitsToUsd } from '../pricing.js';
import type { StoredUsage } from '../store/ledger.js';
import { openStore } from '../store/open-store.js';
import type { GatewayStore } from '../store/store-api.js';
import { isPostgresUrl, redactStoreUrl, storeFile } from '../store/store-url.js';

export const CREDITS_USAGE = `usage:
  gateway credits show  [--org ORG]
  gateway credits usage [--org ORG] [--key KEYID] [--limit N]   (default limit 20)
  gateway credits add   --org ORG --usd AMOUNT [--reason TEXT]`;

const FLAGS: Record<string, readonly string[]> = {
  show: ['org'],
  usage: ['org', 'key', 'limit'],
  add: ['org', 'usd', 'reason'],
};

class UsageError extends Error {}

function parseFlags(args: readonly string[], allowed: readonly string[]): Map<string, string> {
  const out = new Map<string, string>();
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (!arg.startsWith('--')) throw new UsageError(`unexpected argument "${arg}"`);
    const eq = arg.indexOf('=');
    const name = eq >= 0 ? arg.slice(2, eq) : arg.slice(2);
    const value = eq >= 0 ? arg.slice(eq + 1) : args[++i];
    if (!allowed.includes(name)) throw new UsageError(`unknown option --${name}`);
    if (value === undefined || value === '') throw new UsageError(`--${name} needs a value`);
    if (out.has(name)) throw new UsageError(`--${name} given twice`);
    out.set(name, value);
  }
  return out;
}

function money(name: string, units: number): Record<string, number> {
  return { [`${name}Usd`]: unitsToUsd(units), [`${name}Units`]: units };
}

function usageLine(r: StoredUsage): Record<string, unknown> {
  return {
    createdAt: new Date(r.createdAt).toISOString(),
    requestId: r.requestId,
    keyId: r.keyId,
    org: r.org,
    project: r.project,
    environment: r.environment,
    endpoint: r.endpoint,
    modelRequested: r.modelRequested,
    modelServed: r.modelServed,
    provider: r.provider,
    status: r.status,
    errorCode: r.errorCode,
    inputTokens: r.inputTokens,
    outputTokens: r.outputTokens,
    cacheReadTokens: r.cacheReadTokens,
    cacheWriteTokens: r.cacheWriteTokens,
    reasoningTokens: r.reasoningTokens,
    webSearches: r.webSearches,
    audioSeconds: r.audioSeconds,
    ...money('cost', r.cost),
    callName: r.callName,
    endUserId: r.endUserId,
    latencyMs: r.latencyMs,
  };
}

async function run(store: GatewayStore, command: string, flags: Map<string, string>, print: (value: unknown) => void): Promise<number> {
  const ledger = store.ledger;
  const org = flags.get('org');
  if (org !== undefined && (await ledger.balanceOf(org)) === null) throw new UsageError(`unknown organization "${org}"`);
  switch (command) {
    case 'show':
      for (const id of org === undefined ? await ledger.orgIds() : [org]) {
        const b = (await ledger.balanceOf(id))!;
        print({
          org: id,
          ...money('balance', b.balance),
          ...money('reserved', b.reserved),
          ...money('available', b.balance - b.reserved),
          ...money('spent', b.spent),
          spendCapUsd: b.spendCap === null ? null : unitsToUsd(b.spendCap),
          spendCapUnits: b.spendCap,
        });
      }
      return 0;
    case 'usage': {
      const limitText = flags.get('limit') ?? '20';
      const limit = Number(limitText);
      if (!/^\d+$/.test(limitText) || limit < 1 || limit > 100_000) throw new UsageError('--limit must be an integer from 1 to 100000');
      for (const r of await ledger.usageFor({ org: org ?? null, keyId: flags.get('key') ?? null, limit })) print(usageLine(r));
      return 0;
    }
    case 'add': {
      if (org === undefined) throw new UsageError('credits add needs --org');
      const usd = flags.get('usd');
      if (usd === undefined) throw new UsageError('credits add needs --usd');
      const units = parseUsd(usd);
      if (units === null || units === 0) throw new UsageError(`--usd must be a non-zero decimal amount with at most 9 decimals, got "${usd}"`);
      const reason = flags.get('reason') ?? 'added from the command line';
      const balance = await ledger.addCredits(org, units, reason);
      print({ org, ...money('added', units), ...money('balance', balance), reason });
      return 0;
    }
    default:
      throw new UsageError(`unknown command "${command}"`);
  }
}

type Parsed = { command: string; flags: Map<string, string> } | { exit: number };

/** The command and its flags, or the exit code once help or a usage problem has been printed. */
function parseCommand(argv: readonly string[], err: (line: string) => void): Parsed {
  const [command, ...rest] = argv;
  if (command === '--help' || command === '-h' || command === 'help') {
    err(CREDITS_USAGE);
    return { exit: 0 };
  }
  if (command === undefined || FLAGS[command] === undefined) {
    if (command !== undefined) err(`unknown command "${command}"`);
    err(CREDITS_USAGE);
    return { exit: 2 };
  }
  try {
    return { command, flags: parseFlags(rest, FLAGS[command]!) };
  } catch (e) {
    err(`${(e as Error).message}\n${CREDITS_USAGE}`);
    return { exit: 2 };
  }
}

async function runOn(open: Promise<GatewayStore>, config: Config, command: string, flags: Map<string, string>, out: (line: string) => void, err: (line: string) => void): Promise<number> {
  const store = await open;
  try {
    // organizations the config added since the gateway last started; keys stay the gateway's business
    await store.seedOrgs(config);
    return await run(store, command, flags, (value) => out(JSON.stringify(value)));
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    err(e.message);
    return 2;
  } finally {
    await store.close();
  }
}

const stdout = (line: string): void => void process.stdout.write(`${line}\n`);
const stderr = (line: string): void => void process.stderr.write(`${line}\n`);

/**
 * Run `credits <command> [flags]` (argv starts after `credits`) on the config's store, creating it
 * if needed (library use and tests; the command line goes through runCreditsCli). Returns the exit
 * code: 0 done, 2 bad usage. Lines go to `out` (stdout by default), problems to `err` (stderr).
 */
export async function runCreditsCommand(argv: string[], config: Config, out = stdout, err = stderr): Promise<number> {
  const parsed = parseCommand(argv, err);
  if ('exit' in parsed) return parsed.exit;
  return runOn(openStore(config), config, parsed.command, parsed.flags, out, err);
}

/**
 * `gateway credits ...` from the command line. `load` resolves the configuration (only once the
 * arguments are known to be good) and says where it came from. One line on stderr names the config
 * and the store opened; a store that does not exist is refused (exit 2) and nothing is created: run
 * from the wrong directory, the CLI would otherwise show an empty ledger instead of the gateway's.
 */
export async function runCreditsCli(argv: string[], load: () => { config: Config; source: string }, out = stdout, err = stderr): Promise<number> {
  const parsed = parseCommand(argv, err);
  if ('exit' in parsed) return parsed.exit;
  const { config, source } = load();
  if (isPostgresUrl(config.store)) {
    err(`gateway credits: config ${source}, store ${redactStoreUrl(config.store)}`);
    return runOn(openStore(config), config, parsed.command, parsed.flags, out, err);
  }
  const file = storeFile(config.store);
  if (file === null) {
    err(`gateway credits: config ${source} keeps its store in memory (${config.store}): there is no ledger to open`);
    return 2;
  }
  const path = resolve(file);
  if (!existsSync(path)) {
    err(`gateway credits: config ${source} names store ${path}, which does not exist; the CLI never creates one. Pass --config FILE with your gateway's config, or start the gateway first.`);
    return 2;
  }
  err(`gateway credits: config ${source}, store ${path}`);
  return runOn(openStore(config, { mustExist: true }), config, parsed.command, parsed.flags, out, err);
}
