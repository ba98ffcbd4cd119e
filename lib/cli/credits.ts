// `gateway credits ...`: inspect balances and usage, add credits. Output is JSON lines (amounts in USD
// as numbers, and the exact integer units beside them). Opens the configured store (from the command
// line, an existing one only), adds the config's organizations (not its keys) and never releases
// reservations: a running gateway may own them. The operations are the admin API's (lib/admin/):
// `add` is POST /admin/v1/orgs/{id}/credits (a negative amount may not go below zero, audited),
// `usage` reads the recent requests as GET /admin/v1/requests does (newest first; forward from a
// cursor with --after, or following new rows with --follow: requests-follow.ts).
//
//   credits show  [--org ORG]
//   credits usage [--org ORG] [--key KEYID] [--limit N] [--after CURSOR] [--follow [--interval SECONDS]]
//   credits add   --org ORG --usd AMOUNT [--reason TEXT]
import { creditOrg } from '../admin/credits.js';
import { parsedRouting, recentRequests } from '../admin/requests.js';
import type { Config } from '../config.js';
import { parseUsd, unitsToUsd } from '../pricing.js';
import type { StoredUsage } from '../store/ledger.js';
import { openStore } from '../store/open-store.js';
import type { GatewayStore } from '../store/store-api.js';
import { follow, printAfter } from './requests-follow.js';
import { adminContext, parseFlags, runOn, runOnConfigStore, stderr, stdout, UsageError, type Print } from './cli-store.js';

export const CREDITS_USAGE = `usage:
  gateway credits show  [--org ORG]
  gateway credits usage [--org ORG] [--key KEYID] [--limit N]   (default limit 20; newest first)
                        [--after CURSOR]   (oldest first after CURSOR: 0, a request id or the nextAfter printed last)
                        [--follow [--interval SECONDS]]   (the newest rows, then each new one as written; Ctrl-C ends)
  gateway credits add   --org ORG --usd AMOUNT [--reason TEXT]`;

const FLAGS: Record<string, readonly string[]> = {
  show: ['org'],
  usage: ['org', 'key', 'limit', 'after', 'follow', 'interval'],
  add: ['org', 'usd', 'reason'],
};

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
    ...(r.routing ? { routing: parsedRouting(r.routing) } : {}),
  };
}

/** flags that take no value */
const SWITCHES = ['follow'];

async function run(store: GatewayStore, config: Config, command: string, flags: Map<string, string>, print: (value: unknown) => void, signal?: AbortSignal): Promise<number> {
  const ctx = adminContext(store, config);
  const org = flags.get('org');
  if (org !== undefined && (await store.admin.getOrg(org)) === null) throw new UsageError(`unknown organization "${org}"`);
  switch (command) {
    case 'show':
      for (const b of org === undefined ? await store.admin.listOrgs() : [(await store.admin.getOrg(org))!]) {
        print({
          org: b.id,
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
      const filter = { ...(org !== undefined ? { org } : {}), ...(flags.has('key') ? { key: flags.get('key')! } : {}) };
      const printRow = (r: StoredUsage): void => print(usageLine(r));
      const after = flags.get('after');
      if (flags.has('follow')) {
        const seconds = Number(flags.get('interval') ?? '1');
        if (!(seconds >= 0.05 && seconds <= 3600)) throw new UsageError('--interval must be a number of seconds from 0.05 to 3600');
        await follow(ctx, filter, limit, after, seconds * 1000, printRow, signal ?? new AbortController().signal);
      } else if (flags.has('interval')) throw new UsageError('--interval goes with --follow');
      else if (after !== undefined) await printAfter(ctx, filter, limit, after, printRow, print);
      else for (const r of (await recentRequests(ctx, filter, limit, null)).rows) printRow(r);
      return 0;
    }
    case 'add': {
      if (org === undefined) throw new UsageError('credits add needs --org');
      const usd = flags.get('usd');
      if (usd === undefined) throw new UsageError('credits add needs --usd');
      const units = parseUsd(usd);
      if (units === null || units === 0) throw new UsageError(`--usd must be a non-zero decimal amount with at most 9 decimals, got "${usd}"`);
      const reason = flags.get('reason') ?? 'added from the command line';
      const balance = await creditOrg(ctx, org, units, reason);
      print({ org, ...money('added', units), ...money('balance', balance), reason });
      return 0;
    }
    default:
      throw new UsageError(`unknown command "${command}"`);
  }
}

type Parsed = { command: string; flags: Map<string, string> } | { exit: number };

/** The command and its flags, or the exit code once help or a usage problem has been printed. */
function parseCommand(argv: readonly string[], err: Print): Parsed {
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
    return { command, flags: parseFlags(rest, FLAGS[command]!, SWITCHES) };
  } catch (e) {
    err(`${(e as Error).message}\n${CREDITS_USAGE}`);
    return { exit: 2 };
  }
}

/**
 * Run `credits <command> [flags]` (argv starts after `credits`) on the config's store, creating it
 * if needed (library use and tests; the command line goes through runCreditsCli). Returns the exit
 * code: 0 done, 2 bad usage. Lines go to `out` (stdout by default), problems to `err` (stderr).
 */
export async function runCreditsCommand(argv: string[], config: Config, out = stdout, err = stderr): Promise<number> {
  const parsed = parseCommand(argv, err);
  if ('exit' in parsed) return parsed.exit;
  return runOn(openStore(config), config, (store, cfg, print) => run(store, cfg, parsed.command, parsed.flags, print), out, err);
}

/**
 * `gateway credits ...` from the command line. `load` resolves the configuration (only once the
 * arguments are known to be good) and says where it came from (cli-store.ts opens its store).
 */
export async function runCreditsCli(argv: string[], load: () => { config: Config; source: string }, out = stdout, err = stderr): Promise<number> {
  const parsed = parseCommand(argv, err);
  if ('exit' in parsed) return parsed.exit;
  // --follow runs until Ctrl-C or SIGTERM, then closes the store and exits 0
  const stop = new AbortController();
  const end = (): void => stop.abort();
  process.once('SIGINT', end).once('SIGTERM', end);
  try {
    return await runOnConfigStore('credits', load, (store, config, print) => run(store, config, parsed.command, parsed.flags, print, stop.signal), out, err);
  } finally {
    process.off('SIGINT', end).off('SIGTERM', end);
  }
}
