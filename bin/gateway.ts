#!/usr/bin/env node
// bin/gateway [--config FILE] [--host H] [--port N] [--record DIR] [--workers N|auto]
// bin/gateway credits show|usage|add ...   (inspect and add credits)
// bin/gateway router choose --models F ...  (the learned router's choices, offline)
// bin/gateway keys list|create|revoke ...    (API keys, as the admin API makes them)
// bin/gateway usage [--group-by ...]          (usage sums, as GET /admin/v1/usage)
import { GatewayError } from '../lib/errors.js';
// the server (lib/main.js) is loaded only to serve: --help and the CLIs never load it
import { parseCommandLine, resolveConfig } from '../lib/command-line.js';
import { holdReloads } from '../lib/held-reloads.js';

const USAGE = `usage:
  gateway [--config FILE] [--host HOST] [--port N] [--record DIR] [--workers N|auto]
                                                     serve (default config: ./gateway.config.json if present, else
                                                     the built-in demo); --record writes upstream bytes to DIR;
                                                     --workers serves from N processes (auto: one per core)
  gateway credits show|usage|add ... [--config FILE] inspect and add credits (gateway credits --help)
  gateway keys list|create|revoke ... [--config FILE] API keys (gateway keys --help)
  gateway usage [--group-by day|model|key|project|end_user] [--from D] [--to D] ... [--config FILE]
                                                     usage sums (gateway usage --help)
  gateway router choose --models MODELS.json [--target Q]
                                                     gateway-auto's choice per prompt (JSON lines on stdin), offline
  gateway --help                                     this text`;

async function main(argv: string[]): Promise<number | null> {
  if (argv[0] === 'help' || ((argv[0] === undefined || argv[0].startsWith('-')) && argv.some((a) => a === '--help' || a === '-h'))) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  let parsed: ReturnType<typeof parseCommandLine>;
  try {
    parsed = parseCommandLine(argv);
  } catch (err) {
    // node:util parseArgs: an unknown option or a missing value
    process.stderr.write(`gateway: ${(err as Error).message}\n${USAGE}\n`);
    return 2;
  }
  const { command, options } = parsed;
  if (command === null) {
    // SIGHUP is held from here on, not only once the server is up (held-reloads.ts)
    const held = holdReloads();
    const { startGateway } = await import('../lib/main.js');
    await startGateway(options, held);
    return null;
  }
  if (command === 'router') {
    // parsed by its own code: no config, no store, no provider
    const { runRouterCli } = await import('../lib/cli/router.js');
    return runRouterCli(argv.slice(1));
  }
  if (command === 'credits') {
    const { runCreditsCli } = await import('../lib/cli/credits.js');
    const args = argv.slice(1).filter((a, i, all) => !(a === '--config' || all[i - 1] === '--config' || a.startsWith('--config=')));
    return runCreditsCli(args, () => resolveConfig(options));
  }
  if (command === 'keys' || command === 'usage') {
    const args = argv.slice(1).filter((a, i, all) => !(a === '--config' || all[i - 1] === '--config' || a.startsWith('--config=')));
    if (command === 'keys') return (await import('../lib/cli/keys.js')).runKeysCli(args, () => resolveConfig(options));
    return (await import('../lib/cli/usage.js')).runUsageCli(args, () => resolveConfig(options));
  }
  process.stderr.write(`gateway: unknown command "${command}"\n${USAGE}\n`);
  return 2;
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code !== null) process.exitCode = code;
  },
  (err: unknown) => {
    const message = GatewayError.is(err) ? err.message : err instanceof Error ? (err.stack ?? err.message) : String(err);
    process.stderr.write(`gateway: ${message}\n`);
    process.exit(1);
  },
);
