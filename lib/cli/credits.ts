// `gateway credits ...`: inspect balances and usage, add credits. Output is JSON lines (amounts in USD
// as numbers, and the exact integer units beside them). Opens the configured store, seeds it from
// the config (as a start would) and never releases reservations: a running gateway may own them.
//
//   credits show  [--org ORG]
//   credits usage [--org ORG] [--key KEYID] [--limit N]
//   credits add   --org ORG --usd AMOUNT [--reason TEXT]
import type { Config } from '../config.js';
import { parseUsd, unitsToUsd } from '../pricing.js';
import type { StoredUsage } from '../store/ledger.js';
import { Store } from '../store/store.js';

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

function run(store: Store, command: string, flags: Map<string, string>, print: (value: unknown) => void): number {
  const ledger = store.ledger;
  const org = flags.get('org');
  if (org !== undefined && ledger.balanceOf(org) === null) throw new UsageError(`unknown organization "${org}"`);
  switch (command) {
    case 'show':
      for (const id of org === undefined ? ledger.orgIds() : [org]) {
        const b = ledger.balanceOf(id)!;
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
      for (const r of ledger.usageFor({ org: org ?? null, keyId: flags.get('key') ?? null, limit })) print(usageLine(r));
      return 0;
    }
    case 'add': {
      if (org === undefined) throw new UsageError('credits add needs --org');
      const usd = flags.get('usd');
      if (usd === undefined) throw new UsageError('credits add needs --usd');
      const units = parseUsd(usd);
      if (units === null || units === 0) throw new UsageError(`--usd must be a non-zero decimal amount with at most 9 decimals, got "${usd}"`);
      const reason = flags.get('reason') ?? 'added from the command line';
      const balance = ledger.addCredits(org, units, reason);
      print({ org, ...money('added', units), ...money('balance', balance), reason });
      return 0;
    }
    default:
      throw new UsageError(`unknown command "${command}"`);
  }
}

/**
 * Run `credits <command> [flags]` (argv starts after `credits`). Returns the exit code: 0 done,
 * 2 bad usage. Lines go to `out` (stdout by default), problems to `err` (stderr).
 */
export async function runCreditsCommand(
  argv: string[],
  config: Config,
  out: (line: string) => void = (line) => process.stdout.write(`${line}\n`),
  err: (line: string) => void = (line) => process.stderr.write(`${line}\n`),
): Promise<number> {
  const [command, ...rest] = argv;
  if (command === undefined || command === '--help' || command === 'help' || FLAGS[command] === undefined) {
    if (command !== undefined && command !== '--help' && command !== 'help') err(`unknown command "${command}"`);
    err(CREDITS_USAGE);
    return command === '--help' || command === 'help' ? 0 : 2;
  }
  let flags: Map<string, string>;
  try {
    flags = parseFlags(rest, FLAGS[command]!);
  } catch (e) {
    err(`${(e as Error).message}\n${CREDITS_USAGE}`);
    return 2;
  }
  const store = new Store(config.store);
  try {
    store.seed(config);
    return run(store, command, flags, (value) => out(JSON.stringify(value)));
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    err(e.message);
    return 2;
  } finally {
    store.close();
  }
}
