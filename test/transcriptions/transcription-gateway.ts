// The real bin/gateway for the transcription tests: the simulated providers plus an unreachable one,
// transcription models with token and per-minute prices and failing deployments, keys with scopes
// and allowlists, and a SQLite file store read back through `bin/gateway credits usage`.
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { baseConfig, startGateway, TEST_KEY, withModels, type RunningGateway } from '../helpers/gateway.js';
import { ROOT } from '../helpers/paths.js';
import type { Balance, StoredUsage } from '../../lib/store/ledger.js';
import { Store } from '../../lib/store/store.js';

/** Transcription models used by the tests, on the simulated OpenAI provider. */
export const TEST_MODELS: Record<string, unknown>[] = [
  { id: 'openai/whisper-minute', deployments: [{ provider: 'sim-openai', model: 'whisper-1', api: 'transcriptions' }], pricing: { perMinute: 0.006 }, input: ['audio'] },
  {
    id: 'openai/flaky-transcribe',
    deployments: [
      { provider: 'sim-openai', model: 'fault:503', api: 'transcriptions' },
      { provider: 'sim-openai', model: 'fault:429;retry-after=0', api: 'transcriptions' },
      { provider: 'sim-openai', model: 'gpt-4o-transcribe', api: 'transcriptions' },
    ],
    pricing: { input: 2.5, output: 10 },
    input: ['audio'],
  },
  {
    id: 'openai/down-transcribe',
    deployments: [
      { provider: 'sim-openai', model: 'fault:500', api: 'transcriptions' },
      { provider: 'sim-openai', model: 'fault:503', api: 'transcriptions' },
    ],
    pricing: { input: 2.5, output: 10 },
    input: ['audio'],
  },
  {
    id: 'openai/slow-transcribe',
    deployments: [{ provider: 'sim-openai', model: 'fault:slow;ms=1500', api: 'transcriptions' }],
    pricing: { input: 2.5, output: 10 },
    input: ['audio'],
  },
  {
    id: 'openai/slow-minute',
    deployments: [{ provider: 'sim-openai', model: 'fault:slow;ms=1500', api: 'transcriptions' }],
    pricing: { perMinute: 0.006 },
    input: ['audio'],
  },
  {
    id: 'openai/failover-transcribe',
    deployments: [
      { provider: 'unreachable', model: 'gpt-4o-transcribe', api: 'transcriptions' },
      { provider: 'sim-openai-impatient', model: 'fault:slow;ms=2000', api: 'transcriptions' },
      { provider: 'sim-openai', model: 'gpt-4o-transcribe', api: 'transcriptions' },
    ],
    pricing: { input: 2.5, output: 10 },
    input: ['audio'],
  },
  { id: 'openai/refusing-transcribe', deployments: [{ provider: 'sim-openai', model: 'fault:400', api: 'transcriptions' }], pricing: { input: 2.5, output: 10 }, input: ['audio'] },
  { id: 'openai/audio-chat', deployments: [{ provider: 'sim-openai', model: 'gpt-audio', api: 'chat' }], pricing: { input: 2.5, output: 10 }, input: ['text', 'audio'] },
];

export const TEST_PROVIDERS: Record<string, unknown>[] = [
  { id: 'sim-anthropic', protocol: 'anthropic', simulated: true, timeoutMs: 3000, idleTimeoutMs: 3000 },
  { id: 'sim-openai', protocol: 'openai', simulated: true, timeoutMs: 3000, idleTimeoutMs: 3000 },
  /** gives up waiting for the answer's headers after 300 ms */
  { id: 'sim-openai-impatient', protocol: 'openai', simulated: true, timeoutMs: 300, idleTimeoutMs: 300 },
  /** nothing listens there: every call fails to connect */
  { id: 'unreachable', protocol: 'openai', baseUrl: 'http://127.0.0.1:9/v1', apiKey: 'sk-unused' },
];

export const TEST_KEYS: Record<string, unknown>[] = [
  { id: 'full', key: TEST_KEY, org: 'acme', project: 'web', environment: 'production' },
  { id: 'chat-only', key: 'sk-test-chat-only', org: 'acme', scopes: ['chat.completions'] },
  { id: 'audio-only', key: 'sk-test-audio-only', org: 'acme', scopes: ['audio.transcriptions'] },
  { id: 'anthropic-only', key: 'sk-test-anthropic-only', org: 'acme', models: ['anthropic/*'] },
  { id: 'poor', key: 'sk-test-poor', org: 'poor' },
];

export interface TranscriptionGateway extends RunningGateway {
  /**
   * `bin/gateway credits usage` against the gateway's store, by request id, once the given requests
   * are settled (settle runs as the request ends, just after the answer went out)
   */
  usage(settledIds?: Iterable<string>): Promise<Map<string, Record<string, unknown>>>;
  /** waits until the request's usage record is written (its reservation settled or released) */
  settled(requestId: string): Promise<StoredUsage>;
  /** an organization's balance, read from the gateway's store file (in units) */
  balance(org: string): Balance;
}

const run = promisify(execFile);

/** The real bin/gateway with a SQLite file store (so `gateway credits` can read what it recorded). */
export async function startTranscriptionGateway(extra: Record<string, unknown> = {}, opts: { env?: NodeJS.ProcessEnv } = {}): Promise<TranscriptionGateway> {
  const dir = mkdtempSync(join(tmpdir(), 'gw-tx-'));
  const config = withModels(
    baseConfig({
      store: `sqlite:${join(dir, 'gateway.db')}`,
      orgs: [
        { id: 'acme', credits: 100, projects: [{ id: 'web', environments: [{ id: 'production' }] }] },
        { id: 'poor', credits: 0.000001 },
      ],
      keys: TEST_KEYS,
      providers: TEST_PROVIDERS,
      ...extra,
    }),
    TEST_MODELS,
  );
  const file = join(dir, 'config.json');
  writeFileSync(file, JSON.stringify(config));
  const gw = await startGateway(config, opts);
  let store: Store | null = null;
  const cli = async (...args: string[]): Promise<Record<string, unknown>[]> => {
    const { stdout } = await run(process.execPath, [join(ROOT, 'dist/bin/gateway.js'), 'credits', ...args, '--config', file], { cwd: dir });
    return stdout
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
  };
  const open = (): Store => (store ??= new Store(config.store as string));
  const settled = async (requestId: string): Promise<StoredUsage> => {
    for (let i = 0; ; i++) {
      const found = open().ledger.usageFor({ org: null, keyId: null, limit: 100 }).find((r) => r.requestId === requestId);
      if (found) return found;
      if (i === 200) throw new Error(`request ${requestId} was never settled`);
      await new Promise((r) => setTimeout(r, 10));
    }
  };
  return {
    ...gw,
    async usage(settledIds: Iterable<string> = []) {
      for (const id of settledIds) await settled(id);
      const rows = await cli('usage', '--limit', '100000');
      return new Map(rows.map((r) => [r.requestId as string, r]));
    },
    balance(org: string) {
      return open().ledger.balanceOf(org)!;
    },
    settled,
    async stop(signal?: NodeJS.Signals) {
      store?.close();
      store = null;
      return gw.stop(signal);
    },
  };
}
