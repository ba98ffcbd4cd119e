// `gateway usage [...]`: the usage sums of GET /admin/v1/usage (lib/admin/usage.ts) on the configured
// store, as JSON lines: one per group, then `{"total": {...}}`. The flags are the API's query
// parameters (`--group-by` for group_by), checked the same way.
//
//   usage [--from DATE] [--to DATE] [--org ORG] [--project P] [--key KEYID] [--model MODEL]
//         [--group-by day|model|key|project|end_user]
import { getUsage } from '../admin/usage.js';
import type { Config } from '../config.js';
import { adminContext, parseFlags, runOnConfigStore, stderr, stdout, type Print } from './cli-store.js';

export const USAGE_USAGE = `usage:
  gateway usage [--from DATE] [--to DATE] [--org ORG] [--project P] [--key KEYID] [--model MODEL]
                [--group-by day|model|key|project|end_user]   (default day; DATE: 2026-11-26 or an ISO date-time; --to exclusive)`;

const FLAGS = ['from', 'to', 'org', 'project', 'key', 'model', 'group-by'] as const;

export async function runUsageCli(argv: string[], load: () => { config: Config; source: string }, out: Print = stdout, err: Print = stderr): Promise<number> {
  if (argv[0] === '--help' || argv[0] === '-h' || argv[0] === 'help') {
    err(USAGE_USAGE);
    return 0;
  }
  let query: URLSearchParams;
  try {
    query = new URLSearchParams([...parseFlags(argv, FLAGS)].map(([k, v]): [string, string] => [k === 'group-by' ? 'group_by' : k, v]));
  } catch (e) {
    err(`${(e as Error).message}\n${USAGE_USAGE}`);
    return 2;
  }
  return runOnConfigStore(
    'usage',
    load,
    async (store, config, print) => {
      const report = (await getUsage(adminContext(store, config), query)) as { group_by: string; data: Record<string, unknown>[]; total: Record<string, unknown> };
      for (const row of report.data) print({ group_by: report.group_by, ...row });
      print({ total: report.total });
      return 0;
    },
    out,
    err,
  );
}
