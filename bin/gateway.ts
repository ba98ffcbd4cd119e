#!/usr/bin/env node
// bin/gateway [--config FILE] [--host H] [--port N] [--record DIR]
// bin/gateway credits show|usage|add ...   (inspect and add credits)
import { GatewayError } from '../lib/errors.js';
import { parseCommandLine, resolveConfig, startGateway } from '../lib/main.js';

async function main(): Promise<number | null> {
  const { command, options } = parseCommandLine(process.argv.slice(2));
  if (command === null) {
    await startGateway(options);
    return null;
  }
  if (command === 'credits') {
    const { runCreditsCommand } = await import('../lib/cli/credits.js');
    const { config } = resolveConfig(options);
    const args = process.argv.slice(3).filter((a, i, all) => !(a === '--config' || all[i - 1] === '--config' || a.startsWith('--config=')));
    return runCreditsCommand(args, config);
  }
  process.stderr.write(`unknown command "${command}". Usage: gateway [--config FILE] [--host H] [--port N] [--record DIR] | gateway credits show|usage|add\n`);
  return 2;
}

main().then(
  (code) => {
    if (code !== null) process.exitCode = code;
  },
  (err: unknown) => {
    const message = GatewayError.is(err) ? err.message : err instanceof Error ? (err.stack ?? err.message) : String(err);
    process.stderr.write(`gateway: ${message}\n`);
    process.exit(1);
  },
);
