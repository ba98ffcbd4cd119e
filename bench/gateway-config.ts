// The gateway configuration of a benchmark run: both providers point at the bench upstream, one
// key of an organisation with plenty of credits, a file-backed SQLite store, full validation.
import { CLAUDE, GPT, GPT_RESPONSES, BENCH_KEY, slowClaude } from './bodies.js';

/** the slow-stream models the memory scenario may use (full and quick) */
/** the transcription model (OpenAI transcriptions API on the bench upstream) */
export const TRANSCRIBE = 'gpt-bench-transcribe';

export const SLOW_MODELS = [slowClaude(20, 250), slowClaude(10, 100)];

/** `metrics: false` turns the Prometheus series off (`--metrics off`), to see what they cost per request. */
export function benchConfig(o: { upstreamUrl: string; storeFile: string; logLevel: string; store?: string; metrics?: boolean }): Record<string, unknown> {
  const pricing = { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 };
  const model = (id: string, provider: string, api: 'messages' | 'chat' | 'responses'): Record<string, unknown> => ({
    id,
    deployments: [{ provider, model: id, api }],
    pricing,
    input: ['text', 'image'],
    contextWindow: 200_000,
    maxOutputTokens: 8192,
  });
  return {
    // a PostgreSQL URL when given (bench/replica-store.ts), else the file-backed SQLite store
    store: o.store ?? `sqlite:${o.storeFile}`,
    logLevel: o.logLevel,
    metrics: { enabled: o.metrics ?? true },
    providers: [
      { id: 'bench-anthropic', protocol: 'anthropic', baseUrl: o.upstreamUrl, apiKey: 'bench-upstream-key', timeoutMs: 60_000, idleTimeoutMs: 60_000 },
      { id: 'bench-openai', protocol: 'openai', baseUrl: `${o.upstreamUrl}/v1`, apiKey: 'bench-upstream-key', timeoutMs: 60_000, idleTimeoutMs: 60_000 },
    ],
    models: [
      model(CLAUDE, 'bench-anthropic', 'messages'),
      model(GPT, 'bench-openai', 'chat'),
      model(GPT_RESPONSES, 'bench-openai', 'responses'),
      ...SLOW_MODELS.map((m) => model(m, 'bench-anthropic', 'messages')),
      // for upload scenarios: the bench upstream streams the upload away and answers a short text
      { id: TRANSCRIBE, deployments: [{ provider: 'bench-openai', model: TRANSCRIBE, api: 'transcriptions' }], pricing: { input: 2.5, output: 10 }, input: ['audio'] },
    ],
    transcription: { defaultModel: TRANSCRIBE },
    orgs: [{ id: 'bench', credits: 10_000_000 }],
    keys: [{ id: 'bench', key: BENCH_KEY, org: 'bench' }],
  };
}
