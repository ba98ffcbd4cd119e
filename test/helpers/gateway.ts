// Starts the real bin/gateway as a child process on a free loopback port, as a user would, and
// gives tests its URL, the in-process simulated provider's URL, and its log lines.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { ROOT } from './paths.js';

export interface RunningGateway {
  url: string;
  /** base URL of the simulated provider the gateway started */
  simUrl: string;
  proc: ChildProcess;
  /** the config file the gateway was started with (a test may rewrite it and send SIGHUP) */
  configFile: string;
  logs: Record<string, unknown>[];
  stderr: string[];
  /** send a signal and wait for exit; resolves with the exit code */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
  /** requests the simulated provider received */
  simRequests(): Promise<SimRequestLog[]>;
  clearSim(): Promise<void>;
}

export interface SimRequestLog {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: Record<string, unknown>;
  query?: string;
  /** the connection closed before the sim finished answering */
  aborted?: boolean;
}

export const TEST_KEY = 'sk-test-full-0000';

/** A config using the simulated provider: tests add models, keys and orgs as they need. */
export function baseConfig(extra: Record<string, unknown> = {}): Record<string, unknown> {
  const models = [
    {
      id: 'anthropic/claude-opus-5',
      family: 'anthropic',
      aliases: ['opus', 'claude-opus-5'],
      snapshots: { 'claude-opus-5-20261015': 'anthropic/claude-opus-5' },
      deployments: [{ provider: 'sim-anthropic', model: 'claude-opus-5' }],
      pricing: { input: 5, output: 25, cacheRead: 0.5, cacheWrite: 6.25 },
      input: ['text', 'image'],
      contextWindow: 200000,
      maxOutputTokens: 64000,
      reasoning: true,
      speeds: ['standard', 'fast'],
    },
    {
      id: 'anthropic/claude-sonnet-5',
      family: 'anthropic',
      aliases: ['sonnet'],
      deployments: [{ provider: 'sim-anthropic', model: 'claude-sonnet-5' }],
      pricing: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
      input: ['text', 'image'],
      maxOutputTokens: 32000,
      reasoning: true,
    },
    {
      id: 'anthropic/claude-opus-4.8',
      family: 'anthropic',
      deployments: [{ provider: 'sim-anthropic', model: 'claude-opus-4-8' }],
      pricing: { input: 5, output: 25 },
      input: ['text'],
      maxOutputTokens: 32000,
      reasoning: true,
    },
    {
      id: 'openai/gpt-5',
      family: 'openai',
      aliases: ['gpt-5'],
      deployments: [{ provider: 'sim-openai', model: 'gpt-5', api: 'chat' }],
      pricing: { input: 1.25, output: 10, cacheRead: 0.125 },
      input: ['text', 'image'],
      maxOutputTokens: 128000,
      reasoning: true,
    },
    {
      id: 'openai/gpt-4o-transcribe',
      deployments: [{ provider: 'sim-openai', model: 'gpt-4o-transcribe', api: 'transcriptions' }],
      pricing: { input: 2.5, output: 10 },
      input: ['audio'],
    },
  ];
  return {
    store: 'sqlite::memory:',
    logLevel: 'info',
    providers: [
      { id: 'sim-anthropic', protocol: 'anthropic', simulated: true, timeoutMs: 3000, idleTimeoutMs: 3000 },
      { id: 'sim-openai', protocol: 'openai', simulated: true, timeoutMs: 3000, idleTimeoutMs: 3000 },
    ],
    models,
    transcription: { defaultModel: 'openai/gpt-4o-transcribe' },
    router: { candidates: ['anthropic/claude-sonnet-5', 'anthropic/claude-opus-5'] },
    anthropicVersions: ['2026-10-21'],
    orgs: [{ id: 'acme', credits: 100, projects: [{ id: 'web', environments: [{ id: 'production' }] }] }],
    keys: [{ id: 'full', key: TEST_KEY, org: 'acme', project: 'web', environment: 'production' }],
    ...extra,
  };
}

/** Adds models to a base config (keeps the base ones). */
export function withModels(config: Record<string, unknown>, models: Record<string, unknown>[]): Record<string, unknown> {
  return { ...config, models: [...(config.models as Record<string, unknown>[]), ...models] };
}

/** A bin/gateway just spawned: its process and log lines so far, and its `listening` line to come. */
export interface LaunchedGateway {
  proc: ChildProcess;
  configFile: string;
  logs: Record<string, unknown>[];
  stderr: string[];
  /** the `listening` log line; rejects when the process exits before it */
  listening: Promise<Record<string, unknown>>;
}

/** Spawns bin/gateway with `config` on a free port, without waiting for it (startGateway waits). */
export function launchGateway(config: Record<string, unknown> = baseConfig(), opts: { env?: NodeJS.ProcessEnv; args?: string[] } = {}): LaunchedGateway {
  const dir = mkdtempSync(join(tmpdir(), 'gw-test-'));
  const file = join(dir, 'config.json');
  writeFileSync(file, JSON.stringify(config));
  const proc = spawn(process.execPath, [join(ROOT, 'dist/bin/gateway.js'), '--config', file, '--port', '0', ...(opts.args ?? [])], {
    cwd: dir,
    env: { ...process.env, ...opts.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const logs: Record<string, unknown>[] = [];
  const stderr: string[] = [];
  createInterface({ input: proc.stderr! }).on('line', (l) => stderr.push(l));
  const listening = new Promise<Record<string, unknown>>((resolve, reject) => {
    createInterface({ input: proc.stdout! }).on('line', (line) => {
      let rec: Record<string, unknown>;
      try {
        rec = JSON.parse(line) as Record<string, unknown>;
      } catch {
        return;
      }
      logs.push(rec);
      if (rec.msg === 'listening') resolve(rec);
    });
    proc.once('exit', (code) => reject(new Error(`gateway exited with ${code} before listening: ${stderr.join('\n')}`)));
  });
  return { proc, configFile: file, logs, stderr, listening };
}

export async function startGateway(config: Record<string, unknown> = baseConfig(), opts: { env?: NodeJS.ProcessEnv; args?: string[] } = {}): Promise<RunningGateway> {
  const { proc, configFile: file, logs, stderr, listening } = launchGateway(config, opts);
  const rec = await listening;
  const url = rec.url as string;
  const simUrl = (rec.sim as string | undefined) ?? '';
  const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
  return {
    url,
    simUrl,
    proc,
    configFile: file,
    logs,
    stderr,
    async stop(signal: NodeJS.Signals = 'SIGTERM') {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill(signal);
      return exited;
    },
    async simRequests() {
      const res = await fetch(`${simUrl}/_sim/requests`);
      return (await res.json()) as SimRequestLog[];
    },
    async clearSim() {
      await fetch(`${simUrl}/_sim/requests`, { method: 'DELETE' });
    },
  };
}

/** Headers of a well-formed Messages request. */
export function messagesHeaders(extra: Record<string, string> = {}): Record<string, string> {
  return { 'content-type': 'application/json', 'anthropic-version': '2023-06-01', 'x-api-key': TEST_KEY, ...extra };
}
