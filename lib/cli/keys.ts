// `gateway keys ...`: list, create and revoke API keys on the configured store, with the admin API's
// operations (lib/admin/keys.ts: the same checks, the same audit rows). Output is JSON lines; a
// created key's secret is printed this once (`key`), as POST /admin/v1/keys answers it. A running
// gateway on the same store serves a new key, or refuses a revoked one, within a second.
//
//   keys list   [--org ORG] [--project PROJECT]
//   keys create --org ORG [--project P] [--environment E] [--name NAME] [--scopes a,b] [--models m,n]
//               [--spend-cap USD] [--rpm N] [--tpm N]
//   keys revoke --id KEYID
import { createKey, listKeys, revokeKey } from '../admin/keys.js';
import type { Config } from '../config.js';
import { adminContext, parseFlags, runOnConfigStore, stderr, stdout, UsageError, type Print } from './cli-store.js';
import type { GatewayStore } from '../store/store-api.js';

export const KEYS_USAGE = `usage:
  gateway keys list   [--org ORG] [--project PROJECT]
  gateway keys create --org ORG [--project P] [--environment E] [--name NAME] [--scopes messages,responses]
                      [--models anthropic/*,openai/gpt-5] [--spend-cap USD] [--rpm N] [--tpm N]
  gateway keys revoke --id KEYID`;

const FLAGS: Record<string, readonly string[]> = {
  list: ['org', 'project'],
  create: ['org', 'project', 'environment', 'name', 'scopes', 'models', 'spend-cap', 'rpm', 'tpm'],
  revoke: ['id'],
};

function numberFlag(flags: Map<string, string>, name: string): number | undefined {
  const text = flags.get(name);
  if (text === undefined) return undefined;
  const n = Number(text);
  if (!Number.isFinite(n)) throw new UsageError(`--${name} must be a number, got "${text}"`);
  return n;
}

const listFlag = (text: string | undefined): string[] | undefined => text?.split(',').map((s) => s.trim()).filter((s) => s !== '');

/** The flags of `keys create` as the admin API's body (checked there, field by field). */
function createBody(flags: Map<string, string>): Record<string, unknown> {
  const rpm = numberFlag(flags, 'rpm');
  const tpm = numberFlag(flags, 'tpm');
  const body: Record<string, unknown> = {
    org: flags.get('org'),
    project: flags.get('project'),
    environment: flags.get('environment'),
    name: flags.get('name'),
    scopes: listFlag(flags.get('scopes')),
    models: listFlag(flags.get('models')),
    spendCap: numberFlag(flags, 'spend-cap'),
    rateLimit: rpm === undefined && tpm === undefined ? undefined : { rpm, tpm },
  };
  return Object.fromEntries(Object.entries(body).filter(([, v]) => v !== undefined));
}

async function run(store: GatewayStore, config: Config, command: string, flags: Map<string, string>, print: (value: unknown) => void): Promise<number> {
  const ctx = adminContext(store, config);
  switch (command) {
    case 'list': {
      const found = (await listKeys(ctx, { org: flags.get('org'), project: flags.get('project') })) as { data: unknown[] };
      for (const k of found.data) print(k);
      return 0;
    }
    case 'create':
      if (!flags.has('org')) throw new UsageError('keys create needs --org');
      print(await createKey(ctx, createBody(flags)));
      return 0;
    case 'revoke':
      if (!flags.has('id')) throw new UsageError('keys revoke needs --id');
      print(await revokeKey(ctx, flags.get('id')!));
      return 0;
    default:
      throw new UsageError(`unknown command "${command}"`);
  }
}

/** `gateway keys ...` from the command line (argv starts after `keys`); `load` resolves the config. */
export async function runKeysCli(argv: string[], load: () => { config: Config; source: string }, out: Print = stdout, err: Print = stderr): Promise<number> {
  const [command, ...rest] = argv;
  if (command === '--help' || command === '-h' || command === 'help') {
    err(KEYS_USAGE);
    return 0;
  }
  if (command === undefined || FLAGS[command] === undefined) {
    if (command !== undefined) err(`unknown command "${command}"`);
    err(KEYS_USAGE);
    return 2;
  }
  let flags: Map<string, string>;
  try {
    flags = parseFlags(rest, FLAGS[command]!);
  } catch (e) {
    err(`${(e as Error).message}\n${KEYS_USAGE}`);
    return 2;
  }
  return runOnConfigStore('keys', load, (store, config, print) => run(store, config, command, flags, print), out, err);
}
