#!/usr/bin/env node
// sim-provider [--host H] [--port N]: runs the simulated upstream provider on its own.
// Prints one JSON line {"msg":"listening","url":"http://127.0.0.1:PORT"} once it accepts requests.
import { startSimProvider } from '../lib/sim/server.js';

function usage(code: number): never {
  process.stderr.write('usage: sim-provider [--host 127.0.0.1] [--port 0]\n');
  process.exit(code);
}

function parseArgs(argv: string[]): { host: string; port: number } {
  let host = '127.0.0.1';
  let port = 0;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] ?? '';
    const [flag, inline] = a.includes('=') ? [a.slice(0, a.indexOf('=')), a.slice(a.indexOf('=') + 1)] : [a, undefined];
    const value = (): string => {
      const v = inline ?? argv[++i];
      if (v === undefined) usage(2);
      return v;
    };
    if (flag === '--host') host = value();
    else if (flag === '--port') {
      const v = value();
      port = Number(v);
      if (!Number.isInteger(port) || port < 0 || port > 65535) {
        process.stderr.write(`sim-provider: invalid --port ${v}\n`);
        process.exit(2);
      }
    } else if (flag === '--help' || flag === '-h') usage(0);
    else {
      process.stderr.write(`sim-provider: unknown argument ${a}\n`);
      usage(2);
    }
  }
  return { host, port };
}

async function main(): Promise<void> {
  const sim = await startSimProvider(parseArgs(process.argv.slice(2)));
  process.stdout.write(`${JSON.stringify({ msg: 'listening', url: sim.url })}\n`);
  const stop = (): void => {
    sim.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

main().catch((err: unknown) => {
  process.stderr.write(`sim-provider: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
