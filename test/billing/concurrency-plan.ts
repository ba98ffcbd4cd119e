// The 300-request mix of the concurrency test (concurrency.long.test.ts): the catalog it runs on, what each
// kind of request may end as, the plan of who sends what, and `fire`, which sends one request as a
// real client would and records what that client saw (status, usage, cost, or the disconnect).
import { parseSse } from '../helpers/messages.js';
import { billModel, chatHeaders, headersFor, localRequestId, TEST_KEY } from '../helpers/billing.js';

const chatModel = (id: string, upstream: string): Record<string, unknown> => ({
  ...billModel(id, upstream),
  family: 'openai',
  deployments: [{ provider: 'sim-openai', model: upstream, api: 'chat' }],
});

export const MODELS = [
  billModel('bill/demo', 'claude-bill'),
  billModel('bill/slow', 'claude-bill;delay=20;deltas=20'),
  billModel('bill/fail500', 'fault:500'),
  billModel('bill/fail529', 'fault:529'),
  billModel('bill/non-finite', 'fault:non-finite'),
  billModel('bill/bad-index', 'fault:bad-index'),
  billModel('bill/wrong-model', 'fault:wrong-model'),
  billModel('bill/malformed', 'fault:malformed-sse'),
  billModel('bill/no-stop', 'fault:no-stop'),
  billModel('bill/reset-mid', 'fault:reset-mid'),
  chatModel('billchat/demo', 'gpt-bill'),
  chatModel('billchat/slow', 'gpt-bill;delay=20;deltas=20'),
  chatModel('billchat/fail500', 'fault:500'),
  chatModel('billchat/fail429', 'fault:429'),
  chatModel('billchat/wrong-model', 'fault:wrong-model'),
  chatModel('billchat/malformed', 'fault:malformed-sse'),
];

/** 30 words, under the demo's 200-character echo: the answer has 35 output tokens, below max_tokens. */
const TEXT = Array.from({ length: 30 }, (_, i) => `w${i}`).join(' ');
const MAX_TOKENS = 64;
/** far above the balance on its own: always refused */
const BIG_MAX_TOKENS = 16000;
/** $0.10: about 130 standard reservations ($0.00075 each) for 280 affordable requests; a success costs about half of one */
export const CREDITS_USD = 0.1;
export const CREDITS_UNITS = 100_000_000;

export type Endpoint = 'messages' | 'chat';
export type Kind =
  | 'ok'
  | 'ok-stream'
  | 'slow-stream'
  | 'fail500'
  | 'fail529'
  | 'fail429'
  | 'wrong-model'
  | 'malformed'
  | 'no-stop'
  | 'non-finite'
  | 'bad-index'
  | 'reset-mid'
  | 'disconnect'
  | 'too-big';
export type Outcome = 'success' | '402' | 'error-json' | 'error-in-stream' | 'aborted';

export interface Plan {
  endpoint: Endpoint;
  kind: Kind;
  model: string;
  stream: boolean;
  maxTokens: number;
  abort: boolean;
}

interface Seen {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  /** Chat Completions: usage.cost in USD */
  costUsd?: number;
}

export interface Result {
  plan: Plan;
  status: number;
  outcome: Outcome;
  reqId: string | null;
  /** the usage the client was told (successes) */
  usage?: Seen;
  /** error.type (Messages) or error.code (Chat) */
  error?: string;
  text: string;
  ms: number;
}

export const ALLOWED: Record<Kind, Outcome[]> = {
  ok: ['success', '402'],
  'ok-stream': ['success', '402'],
  'slow-stream': ['success', '402'],
  fail500: ['error-json', '402'],
  fail529: ['error-json', '402'],
  fail429: ['error-json', '402'],
  'wrong-model': ['error-json', 'error-in-stream', '402'],
  malformed: ['error-json', 'error-in-stream', '402'],
  'no-stop': ['error-json', 'error-in-stream', '402'],
  'non-finite': ['error-json', 'error-in-stream', '402'],
  'bad-index': ['error-json', 'error-in-stream', '402'],
  'reset-mid': ['error-in-stream', '402'],
  disconnect: ['aborted', '402'],
  'too-big': ['402'],
};

/** [endpoint, kind, how many, model, stream (mixed: every other one), abort after the first bytes, max_tokens] */
export const MIX: [Endpoint, Kind, number, string, boolean | 'mixed', boolean, number?][] = [
  ['messages', 'ok', 36, 'bill/demo', false, false],
  ['messages', 'ok-stream', 36, 'bill/demo', true, false],
  ['messages', 'slow-stream', 18, 'bill/slow', true, false],
  ['messages', 'fail500', 8, 'bill/fail500', 'mixed', false],
  ['messages', 'fail529', 6, 'bill/fail529', 'mixed', false],
  ['messages', 'wrong-model', 8, 'bill/wrong-model', 'mixed', false],
  ['messages', 'malformed', 8, 'bill/malformed', 'mixed', false],
  ['messages', 'no-stop', 8, 'bill/no-stop', 'mixed', false],
  ['messages', 'non-finite', 6, 'bill/non-finite', 'mixed', false],
  ['messages', 'bad-index', 6, 'bill/bad-index', true, false],
  ['messages', 'reset-mid', 8, 'bill/reset-mid', true, false],
  ['messages', 'disconnect', 18, 'bill/slow', true, true],
  ['messages', 'too-big', 12, 'bill/demo', 'mixed', false, BIG_MAX_TOKENS],
  ['chat', 'ok', 30, 'billchat/demo', false, false],
  ['chat', 'ok-stream', 30, 'billchat/demo', true, false],
  ['chat', 'slow-stream', 10, 'billchat/slow', true, false],
  ['chat', 'fail500', 8, 'billchat/fail500', 'mixed', false],
  ['chat', 'fail429', 6, 'billchat/fail429', 'mixed', false],
  ['chat', 'wrong-model', 8, 'billchat/wrong-model', 'mixed', false],
  ['chat', 'malformed', 10, 'billchat/malformed', 'mixed', false],
  ['chat', 'disconnect', 12, 'billchat/slow', true, true],
  ['chat', 'too-big', 8, 'billchat/demo', 'mixed', false, BIG_MAX_TOKENS],
];

export function plans(): Plan[] {
  const out: { plan: Plan; at: number }[] = [];
  for (const [endpoint, kind, n, model, stream, abort, maxTokens] of MIX) {
    for (let i = 0; i < n; i++) {
      const plan = { endpoint, kind, model, stream: stream === 'mixed' ? i % 2 === 0 : stream, maxTokens: maxTokens ?? MAX_TOKENS, abort };
      // spread every kind evenly over the burst, so each kind gets its share of what the balance covers
      out.push({ plan, at: (i + 0.5) / n });
    }
  }
  return out.sort((a, b) => a.at - b.at).map((p) => p.plan);
}

interface AnthropicUsage {
  input_tokens?: number;
  output_tokens?: number;
  cache_read_input_tokens?: number;
  cache_creation_input_tokens?: number;
}

interface ChatUsage {
  prompt_tokens: number;
  completion_tokens: number;
  prompt_tokens_details?: { cached_tokens?: number };
  cost: number;
}

function fromAnthropic(u: AnthropicUsage): Seen {
  return { input: u.input_tokens ?? 0, output: u.output_tokens ?? 0, cacheRead: u.cache_read_input_tokens ?? 0, cacheWrite: u.cache_creation_input_tokens ?? 0 };
}

/** the demo model writes no cache on Chat: prompt tokens = input + cache reads */
function fromChat(u: ChatUsage): Seen {
  const cached = u.prompt_tokens_details?.cached_tokens ?? 0;
  return { input: u.prompt_tokens - cached, output: u.completion_tokens, cacheRead: cached, cacheWrite: 0, costUsd: u.cost };
}

export async function fire(url: string, plan: Plan): Promise<Result> {
  const started = Date.now();
  const ac = new AbortController();
  const body = { model: plan.model, max_tokens: plan.maxTokens, stream: plan.stream, messages: [{ role: 'user', content: TEXT }] };
  const path = plan.endpoint === 'messages' ? '/v1/messages' : '/v1/chat/completions';
  const headers = plan.endpoint === 'messages' ? headersFor(TEST_KEY) : chatHeaders(TEST_KEY);
  const res = await fetch(`${url}${path}`, { method: 'POST', headers, body: JSON.stringify(body), signal: ac.signal });
  const result: Result = { plan, status: res.status, outcome: 'error-json', reqId: localRequestId(res.headers), text: '', ms: 0 };
  if (plan.abort && res.status === 200) {
    // the client goes away after the first bytes of the stream
    const reader = res.body!.getReader();
    const first = await reader.read();
    ac.abort();
    await reader.read().catch(() => undefined);
    return { ...result, outcome: 'aborted', text: Buffer.from(first.value ?? []).toString('utf8'), ms: Date.now() - started };
  }
  result.text = await res.text();
  result.ms = Date.now() - started;
  if (res.status !== 200) {
    if (res.status === 402) result.outcome = '402';
    try {
      const e = (JSON.parse(result.text) as { error: { type?: string; code?: string } }).error;
      result.error = e.type ?? e.code;
    } catch {
      result.error = 'unparsable';
    }
    return result;
  }
  if (!plan.stream) {
    const json = JSON.parse(result.text) as { usage: AnthropicUsage & ChatUsage };
    result.outcome = 'success';
    result.usage = plan.endpoint === 'messages' ? fromAnthropic(json.usage) : fromChat(json.usage);
    return result;
  }
  const frames = parseSse(result.text);
  if (plan.endpoint === 'messages') {
    const last = frames.at(-1);
    if (last?.event !== 'message_stop') {
      result.outcome = 'error-in-stream';
      if (last?.event === 'error') result.error = (JSON.parse(last.data) as { error: { type: string } }).error.type;
      return result;
    }
    let usage: AnthropicUsage = {};
    for (const f of frames) {
      const d = JSON.parse(f.data) as { type: string; message?: { usage: AnthropicUsage }; usage?: AnthropicUsage };
      if (d.type === 'message_start') usage = { ...d.message!.usage };
      if (d.type === 'message_delta') usage = { ...usage, ...d.usage };
    }
    result.outcome = 'success';
    result.usage = fromAnthropic(usage);
    return result;
  }
  // Chat: chunks, the usage chunk (no choices), then [DONE]; a failure is a chunk with `error`
  const chunks = frames.filter((f) => f.data !== '[DONE]').map((f) => JSON.parse(f.data) as { choices: unknown[]; usage?: ChatUsage; error?: { code: string } });
  const failed = chunks.find((c) => c.error !== undefined);
  const final = chunks.at(-1);
  if (failed || frames.at(-1)?.data !== '[DONE]' || !final?.usage || final.choices.length !== 0) {
    result.outcome = 'error-in-stream';
    result.error = failed?.error?.code;
    return result;
  }
  result.outcome = 'success';
  result.usage = fromChat(final.usage);
  return result;
}

