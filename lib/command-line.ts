// The command line of bin/gateway and the configuration it asks for: what every command needs (the
// CLIs read the configuration too), apart from serving (main.ts), so that `gateway --help` and the
// CLIs do not load the server, its services and the HTTP client they never use.
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { finalizeConfig, loadConfigFile, type Config } from './config.js';
import { defaultConfig } from './default-config.js';
import { errors } from './errors/index.js';

export interface StartOptions {
  config?: string;
  host?: string;
  port?: string;
  /** folder for recordings of upstream responses (config `recordDir`) */
  record?: string;
  /** `N` or `auto`: serve from N processes sharing the listener and the store (lib/cluster/) */
  workers?: string;
}

/** `gateway [--config F] [--host H] [--port N] [--record DIR] [--workers N|auto]`, or `gateway <command> ...` (its own arguments follow). */
export function parseCommandLine(argv: string[]): { command: string | null; options: StartOptions } {
  const command = argv[0] && !argv[0].startsWith('-') ? argv[0] : null;
  const { values } = parseArgs({
    args: command ? argv.slice(1) : argv,
    options: { config: { type: 'string' }, host: { type: 'string' }, port: { type: 'string' }, record: { type: 'string' }, workers: { type: 'string' } },
    strict: command === null,
    allowPositionals: command !== null,
  });
  return { command, options: values as StartOptions };
}

/** The configuration the command line asks for, with --host/--port/--record applied before validation. */
export function resolveConfig(opts: StartOptions, env: NodeJS.ProcessEnv = process.env): { config: Config; demoKey: string | null; source: string } {
  let config: Config;
  let demoKey: string | null = null;
  let source: string;
  const file = opts.config ?? (existsSync('gateway.config.json') ? 'gateway.config.json' : null);
  if (file) {
    const loaded = loadConfigFile(file, env);
    config = structuredClone(loaded);
    source = resolve(file);
  } else {
    const built = defaultConfig(env);
    config = structuredClone(finalizeConfig(built.config, env));
    demoKey = built.demoKey;
    source = built.simulatedOnly ? 'built-in default (simulated provider)' : 'built-in default (real providers from the environment)';
  }
  if (opts.host !== undefined) config.listen.host = opts.host;
  if (opts.port !== undefined) {
    if (!/^\d+$/.test(opts.port) || Number(opts.port) > 65535) throw errors.portInvalid(opts.port);
    config.listen.port = Number(opts.port);
  }
  if (opts.record !== undefined) config.recordDir = opts.record;
  return { config: finalizeConfig(config, {}), demoKey, source };
}
