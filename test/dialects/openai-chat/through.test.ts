// Which Chat frames go through to a Chat client as they came, and how they mix with re-encoded ones
// (lib/dialects/openai-chat/through.ts, encode-through.ts), replayed through the production stages:
// whatever goes through, the client reads one role, the text, exactly one finish_reason and exactly
// one usage chunk with the gateway's figures, and never an upstream member named `gateway`.
import t, { type Test } from 'tap';
import { replay } from '../../../lib/replay/index.js';

type Obj = Record<string, any>;
const chunk = (o: Obj): string => `data: ${JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: 'up-model', ...o })}\n\n`;
const choice = (delta: Obj, finish: string | null = null): Obj => ({ choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] });
const USAGE = { prompt_tokens: 3, completion_tokens: 2 };
const served = { modelId: 'x/served', pricing: { input: 1, output: 2 } };

function client(sse: string): { chunks: Obj[]; text: string } {
  const text = replay(Buffer.from(sse), { from: 'openai-chat', served }).text;
  const chunks = text.split('\n\n').filter((f) => f.startsWith('data: {')).map((f) => JSON.parse(f.slice(6)) as Obj);
  return { chunks, text };
}

function reads(t: Test, chunks: Obj[], content: string): void {
  t.equal(chunks.filter((c) => c.choices[0]?.delta?.role === 'assistant').length, 1, 'one role');
  t.equal(chunks.map((c) => c.choices[0]?.delta?.content ?? '').join(''), content, 'the text');
  t.same(chunks.map((c) => c.choices[0]?.finish_reason).filter((f) => f != null), ['stop'], 'one finish_reason');
  const usage = chunks.filter((c) => c.usage != null);
  t.equal(usage.length, 1, 'one usage chunk');
  t.match(usage[0]?.usage, { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5, cost: Number });
  t.ok(chunks.every((c) => c.model === 'x/served'), 'the served model everywhere');
  t.ok(chunks.every((c) => c.gateway === undefined || c.gateway.routed === false), 'only the gateway\'s own gateway object');
}

t.test('the common stream goes through whole', async (t) => {
  const { chunks, text } = client(chunk(choice({ role: 'assistant', content: '' })) + chunk(choice({ content: 'hi' })) + chunk(choice({}, 'stop')) + chunk({ choices: [], usage: USAGE }) + 'data: [DONE]\n\n');
  reads(t, chunks, 'hi');
  t.ok(chunks.every((c) => c.created === 1 && 'logprobs' in (c.choices[0] ?? { logprobs: null })), 'the upstream\'s frames');
  t.match(text, /\n\ndata: \[DONE\]\n\n$/);
});

t.test('an upstream `gateway` member on the usage chunk: that chunk is re-encoded, the finish_reason not repeated', async (t) => {
  const { chunks } = client(chunk(choice({ role: 'assistant', content: '' })) + chunk(choice({ content: 'hi' })) + chunk(choice({}, 'stop')) + chunk({ choices: [], usage: USAGE, gateway: { routed: true, spoofed: 1 } }) + 'data: [DONE]\n\n');
  reads(t, chunks, 'hi');
  t.notOk(chunks.some((c) => c.gateway?.spoofed), 'the upstream\'s gateway member is not shown');
});

t.test('text on the first chunk goes through; finish and usage in one chunk are re-encoded as two (the usage chunk has empty choices)', async (t) => {
  const { chunks } = client(chunk(choice({ role: 'assistant', content: 'Hello' })) + chunk({ ...choice({}, 'stop'), usage: USAGE }) + 'data: [DONE]\n\n');
  reads(t, chunks, 'Hello');
  t.equal(chunks.length, 3);
  t.equal(chunks[0]!.created, 1, 'the first frame is the upstream\'s');
  t.same(chunks[2]!.choices, [], 'the usage chunk');
});

t.test('a first chunk without a role, a refusal, a function_call finish: re-encoded where they differ', async (t) => {
  reads(t, client(chunk(choice({ content: 'a' })) + chunk(choice({ content: 'b' })) + chunk(choice({}, 'stop')) + chunk({ choices: [], usage: USAGE }) + 'data: [DONE]\n\n').chunks, 'ab');
  const refusal = client(chunk(choice({ role: 'assistant', content: null, refusal: '' })) + chunk(choice({ refusal: 'No.' })) + chunk(choice({}, 'stop')) + chunk({ choices: [], usage: USAGE }) + 'data: [DONE]\n\n').chunks;
  reads(t, refusal, 'No.');
  const odd = client(chunk(choice({ role: 'assistant', content: '' })) + chunk(choice({ content: 'x' })) + chunk(choice({}, 'function_call')) + chunk({ choices: [], usage: USAGE }) + 'data: [DONE]\n\n').chunks;
  t.same(odd.map((c) => c.choices[0]?.finish_reason).filter((f) => f != null), ['tool_calls'], 'the finish_reason as the re-encoder writes it, once');
});
