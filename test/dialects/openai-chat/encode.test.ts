// The Chat Completions client encoders. (a) every recorded chat fixture decoded and re-encoded as a
// client stream and as one JSON body, read back by an independent accumulator: the fixture's text,
// tool calls, finish_reason and usage. (b) every recorded Anthropic fixture encoded for a chat
// client: text and tool calls equal the Anthropic ones, thinking arrives as reasoning_details with
// the exact signature, prompt_tokens counts cache reads and writes. Then the envelope, the
// routing object, `reasoning.exclude`, errors and the keep-alive frame.
import { readFileSync, readdirSync } from 'node:fs';
import t, { type Test } from 'tap';
import type { CanonicalEvent, JsonObject } from '../../../lib/chunks.js';
import type { JsonEncoderFactory, SseEncoder } from '../../../lib/dialects/index.js';
import { chatJsonEncode } from '../../../lib/dialects/openai-chat/encode-json.js';
import { ChatSseEncoder, CHAT_KEEPALIVE } from '../../../lib/dialects/openai-chat/encode-sse.js';
import { createError } from '../../../lib/errors.js';
import { unitsToUsd } from '../../../lib/pricing.js';
import { fixture } from '../../helpers/paths.js';
import { accumulate, frames } from '../../helpers/replay.js';
import { accumulateChat, CHAT_MODEL, chatContext, dataFrames, decodeWith, encodeChatJson, encodeChatSse, type Accumulated } from './harness.js';

type Obj = Record<string, unknown>;
const CHAT_DIR = fixture('upstream', 'openai-chat');
const ANTHROPIC_DIR = fixture('upstream', 'anthropic');
const list = (dir: string): string[] => readdirSync(dir).filter((f) => /\.(sse|json)$/.test(f)).sort();

/** The JSON body's message seen as an accumulated stream, to compare both encoders. */
function fromJson(body: JsonObject): Pick<Accumulated, 'content' | 'reasoning' | 'reasoningDetails' | 'toolCalls' | 'finishReason' | 'usage'> {
  const choice = (body.choices as Obj[])[0]!;
  const message = choice.message as Obj;
  const calls = (message.tool_calls as Obj[] | null) ?? [];
  return {
    content: (message.content as string | null) ?? '',
    reasoning: (message.reasoning as string | null) ?? '',
    reasoningDetails: (message.reasoning_details as JsonObject[] | null) ?? [],
    toolCalls: calls.map((c) => ({ id: c.id as string, name: (c.function as Obj).name as string, arguments: (c.function as Obj).arguments as string })),
    finishReason: choice.finish_reason as string,
    usage: body.usage as JsonObject,
  };
}

function checkUsage(t: Test, usage: JsonObject | null, want: { prompt: number; completion: number; cached: number; reasoning: number }, cost: number): void {
  t.same(usage, {
    prompt_tokens: want.prompt,
    completion_tokens: want.completion,
    total_tokens: want.prompt + want.completion,
    prompt_tokens_details: { cached_tokens: want.cached },
    completion_tokens_details: { reasoning_tokens: want.reasoning },
    cost,
  }, 'usage');
}

for (const name of list(CHAT_DIR)) {
  t.test(`chat fixture re-encoded: ${name}`, async (t) => {
    const raw = readFileSync(`${CHAT_DIR}/${name}`);
    const ctx = chatContext();
    const events = decodeWith([raw], 'openai-chat', ctx);
    let want: { text: string; tools: { id: string; name: string; arguments: string }[]; finish: string; usage: Obj };
    if (name.endsWith('.sse')) {
      const acc = accumulateChat(raw.toString('utf8'));
      want = { text: acc.content + acc.refusal, tools: acc.toolCalls, finish: acc.finishReason!, usage: acc.usage as Obj };
    } else {
      const body = JSON.parse(raw.toString('utf8')) as JsonObject;
      const m = fromJson(body);
      const message = (body.choices as Obj[])[0]!.message as Obj;
      want = { text: m.content + String(message.refusal ?? ''), tools: m.toolCalls, finish: m.finishReason!, usage: body.usage as Obj };
    }
    const cost = unitsToUsd(ctx.input.cost());
    t.ok(cost > 0, `a cost is reported: ${cost}`);
    const usage = {
      prompt: want.usage.prompt_tokens as number,
      completion: want.usage.completion_tokens as number,
      cached: ((want.usage.prompt_tokens_details as Obj).cached_tokens as number) ?? 0,
      reasoning: ((want.usage.completion_tokens_details as Obj).reasoning_tokens as number) ?? 0,
    };

    const sse = encodeChatSse(events, ctx);
    const got = accumulateChat(sse);
    t.equal(got.content, want.text, 'text (a refusal arrives as content)');
    t.same(got.toolCalls, want.tools, 'tool calls: ids, names, arguments');
    for (const call of got.toolCalls) t.same(JSON.parse(call.arguments), JSON.parse(want.tools.find((w) => w.id === call.id)!.arguments), 'arguments are JSON');
    t.equal(got.finishReason, want.finish, 'finish_reason');
    checkUsage(t, got.usage, usage, cost);
    t.equal(got.model, CHAT_MODEL, 'model is the catalog id that served');
    t.ok(got.done, 'ends with [DONE]');
    const last = dataFrames(sse).length - 2;
    t.same(got.gatewayAt, [0, last], 'gateway on the first and the final usage chunk only');
    t.same(got.gateway[0], { routed: false, routed_model: null, routing_latency_ms: null });
    t.equal(got.reasoning, '');

    const json = encodeChatJson(events, ctx);
    t.equal(json.object, 'chat.completion');
    t.equal(json.model, CHAT_MODEL);
    t.same(json.gateway, { routed: false, routed_model: null, routing_latency_ms: null });
    const m = fromJson(json);
    t.equal(m.content, want.text, 'JSON: content');
    const message = (json.choices as Obj[])[0]!.message as Obj;
    t.equal(message.content, want.text === '' && want.tools.length > 0 ? null : want.text, 'JSON: content is null only beside tool calls');
    t.same(m.toolCalls, want.tools, 'JSON: tool calls');
    t.equal(message.tool_calls, want.tools.length > 0 ? message.tool_calls : null);
    t.equal(m.finishReason, want.finish, 'JSON: finish_reason');
    checkUsage(t, m.usage, usage, cost);
  });
}

const ANTHROPIC_FINISH: Record<string, string> = { end_turn: 'stop', max_tokens: 'length', tool_use: 'tool_calls', stop_sequence: 'stop', pause_turn: 'stop', refusal: 'content_filter' };

for (const name of list(ANTHROPIC_DIR)) {
  t.test(`Anthropic fixture for a chat client: ${name}`, async (t) => {
    const raw = readFileSync(`${ANTHROPIC_DIR}/${name}`, 'utf8');
    const message = (name.endsWith('.sse') ? accumulate(frames(raw)) : JSON.parse(raw)) as Obj;
    const blocks = message.content as Obj[];
    const text = blocks.filter((b) => b.type === 'text').map((b) => b.text as string).join('');
    const tools = blocks.filter((b) => b.type === 'tool_use');
    const details = blocks
      .filter((b) => b.type === 'thinking' || b.type === 'redacted_thinking')
      .map((b, index) => (b.type === 'thinking'
        ? { type: 'reasoning.text', text: b.thinking, signature: b.signature, format: 'anthropic-claude-v1', index }
        : { type: 'reasoning.encrypted', data: b.data, format: 'anthropic-claude-v1', index }));
    const thinking = blocks.filter((b) => b.type === 'thinking').map((b) => b.thinking as string).join('');
    const u = message.usage as Obj;
    const cacheRead = (u.cache_read_input_tokens as number | undefined) ?? 0;
    const cacheWrite = (u.cache_creation_input_tokens as number | undefined) ?? 0;

    const ctx = chatContext({ modelId: 'anthropic/claude-opus-5' });
    const events = decodeWith([Buffer.from(raw)], 'anthropic', ctx);
    const cost = unitsToUsd(ctx.input.cost());
    const usage = { prompt: (u.input_tokens as number) + cacheRead + cacheWrite, completion: u.output_tokens as number, cached: cacheRead, reasoning: 0 };

    const got = accumulateChat(encodeChatSse(events, ctx));
    t.equal(got.content, text, 'text of every text block');
    t.same(got.toolCalls.map((c) => ({ id: c.id, name: c.name, input: JSON.parse(c.arguments) as unknown })), tools.map((b) => ({ id: b.id, name: b.name, input: b.input })), 'tool calls, arguments = the input');
    t.same(got.reasoningDetails, details, 'thinking → reasoning_details, signatures byte for byte');
    t.equal(got.reasoning, thinking, 'thinking text → delta.reasoning');
    t.equal(got.finishReason, ANTHROPIC_FINISH[message.stop_reason as string], `finish_reason for ${String(message.stop_reason)}`);
    checkUsage(t, got.usage, usage, cost);
    t.equal(got.model, 'anthropic/claude-opus-5');

    const json = fromJson(encodeChatJson(events, ctx));
    t.equal(json.content, text, 'JSON: text');
    t.same(json.toolCalls, got.toolCalls, 'JSON: tool calls as streamed');
    t.same(json.reasoningDetails, details, 'JSON: reasoning_details');
    t.equal(json.reasoning, thinking, 'JSON: reasoning');
    t.equal(json.finishReason, got.finishReason);
    checkUsage(t, json.usage, usage, cost);
  });
}

// ---- envelope, routing object, exclude, errors ----

function events(): CanonicalEvent[] {
  return [
    { type: 'message-start', id: 'msg_1', model: 'up-model', usage: { input: 3, output: 1, cacheRead: 2, cacheWrite: 1, reasoning: 0, webSearches: 0 } },
    { type: 'block-start', index: 0, block: { kind: 'thinking', thinking: '', signature: '' } },
    { type: 'thinking-delta', index: 0, text: 'let me think' },
    { type: 'signature-delta', index: 0, signature: 'SIG==' },
    { type: 'block-stop', index: 0 },
    { type: 'block-start', index: 1, block: { kind: 'opaque', value: { type: 'server_tool_use', id: 'srv_1' } } },
    { type: 'tool-input-delta', index: 1, json: '{"q":1}' },
    { type: 'block-stop', index: 1 },
    { type: 'block-start', index: 2, block: { kind: 'text', text: 'Hello' } },
    { type: 'citation-delta', index: 2, citation: { type: 'x' } },
    { type: 'text-delta', index: 2, text: ' "world"' },
    { type: 'block-stop', index: 2 },
    { type: 'block-start', index: 3, block: { kind: 'tool-call', id: 'call_a', name: 'f', input: { x: [1, 'y'] } } },
    { type: 'block-stop', index: 3 },
    { type: 'block-start', index: 4, block: { kind: 'redacted-thinking', data: 'ENC' } },
    { type: 'block-stop', index: 4 },
    { type: 'message-delta', stop: { kind: 'tool-calls' }, usage: { output: 9 } },
    { type: 'message-stop' },
  ];
}

t.test('the chunks, exactly', async (t) => {
  const ctx = chatContext({ routed: true });
  ctx.input.usage = { input: 3, output: 9, cacheRead: 2, cacheWrite: 1, reasoning: 0, webSearches: 0 };
  const sse = encodeChatSse(events(), ctx);
  const chunks = dataFrames(sse);
  t.equal(chunks.at(-1), '[DONE]');
  const parsed = chunks.slice(0, -1).map((c) => JSON.parse(c) as Obj);
  const created = parsed[0]!.created as number;
  t.ok(Number.isInteger(created) && Math.abs(created - Date.now() / 1000) < 5, 'created is the unix time');
  const env = { id: 'msg_1', object: 'chat.completion.chunk', created, model: CHAT_MODEL };
  const gateway = { routed: true, routed_model: CHAT_MODEL, routing_latency_ms: 0.25 };
  const d = (delta: Obj, finish: string | null = null) => ({ ...env, choices: [{ index: 0, delta, finish_reason: finish }] });
  t.same(parsed, [
    { ...d({ role: 'assistant', content: '' }), gateway },
    d({ reasoning: 'let me think' }),
    d({ reasoning_details: [{ type: 'reasoning.text', text: 'let me think', signature: 'SIG==', format: 'anthropic-claude-v1', index: 0 }] }),
    d({ content: 'Hello' }),
    d({ content: ' "world"' }),
    d({ tool_calls: [{ index: 0, id: 'call_a', type: 'function', function: { name: 'f', arguments: '' } }] }),
    d({ tool_calls: [{ index: 0, function: { arguments: '{"x":[1,"y"]}' } }] }),
    d({ reasoning_details: [{ type: 'reasoning.encrypted', data: 'ENC', format: 'anthropic-claude-v1', index: 1 }] }),
    d({}, 'tool_calls'),
    {
      ...env,
      choices: [],
      usage: { prompt_tokens: 6, completion_tokens: 9, total_tokens: 15, prompt_tokens_details: { cached_tokens: 2 }, completion_tokens_details: { reasoning_tokens: 0 }, cost: unitsToUsd(ctx.input.cost()) },
      gateway,
    },
  ]);
  t.same(Object.keys(parsed[0]!), ['id', 'object', 'created', 'model', 'choices', 'gateway'], 'key order of the first chunk');

  const json = encodeChatJson(events(), ctx);
  t.same(json, {
    id: 'msg_1', object: 'chat.completion', created: json.created, model: CHAT_MODEL,
    choices: [{
      index: 0,
      message: {
        role: 'assistant', content: 'Hello "world"', refusal: null,
        tool_calls: [{ id: 'call_a', type: 'function', function: { name: 'f', arguments: '{"x":[1,"y"]}' } }],
        reasoning: 'let me think',
        reasoning_details: [
          { type: 'reasoning.text', text: 'let me think', signature: 'SIG==', format: 'anthropic-claude-v1', index: 0 },
          { type: 'reasoning.encrypted', data: 'ENC', format: 'anthropic-claude-v1', index: 1 },
        ],
      },
      logprobs: null,
      finish_reason: 'tool_calls',
    }],
    usage: parsed.at(-1)!.usage as JsonObject,
    gateway,
  });
});

t.test('a capped ceiling is reported in the gateway object', async (t) => {
  const ctx = chatContext();
  ctx.input.routed!.maxTokensCappedTo = 128000;
  const got = accumulateChat(encodeChatSse(events(), ctx));
  t.same(got.gateway, [0, 1].map(() => ({ routed: false, routed_model: null, routing_latency_ms: null, max_tokens_capped_to: 128000 })));
  t.same(encodeChatJson(events(), ctx).gateway, got.gateway[0]);
});

t.test('reasoning.exclude hides the text, keeps the round-trip details', async (t) => {
  const ctx = chatContext({ body: { model: CHAT_MODEL, messages: [{ role: 'user', content: 'x' }], reasoning: { effort: 'low', exclude: true } } });
  const got = accumulateChat(encodeChatSse(events(), ctx));
  t.equal(got.reasoning, '');
  t.equal(got.reasoningDetails.length, 2);
  const message = (encodeChatJson(events(), ctx).choices as Obj[])[0]!.message as Obj;
  t.equal(message.reasoning, null);
  t.equal((message.reasoning_details as unknown[]).length, 2);
});

t.test('without validated usage: usage from the events, no cost; no routing: model from upstream', async (t) => {
  const ctx = chatContext({ unrouted: true });
  const got = accumulateChat(encodeChatSse(events(), ctx));
  t.equal(got.model, 'up-model');
  t.same(got.gateway[0], { routed: false, routed_model: null, routing_latency_ms: null });
  t.same(got.usage, { prompt_tokens: 6, completion_tokens: 9, total_tokens: 15, prompt_tokens_details: { cached_tokens: 2 }, completion_tokens_details: { reasoning_tokens: 0 }, cost: 0 });
});

t.test('errors after output began, and the keep-alive frame', async (t) => {
  const ctx = chatContext();
  // the registry shapes (lib/dialects/encoders.ts): a type error here means the registry lines no longer fit
  const enc: SseEncoder = new ChatSseEncoder({ requestId: ctx.reqId, input: ctx.input });
  const factory: JsonEncoderFactory = chatJsonEncode;
  t.equal(typeof factory, 'function');
  t.equal(enc.keepalive, ': keep-alive\n\n');
  t.equal(enc.encode({ type: 'ping' }), CHAT_KEEPALIVE);
  let sse = enc.encode(events()[0]!) + enc.encode({ type: 'block-start', index: 0, block: { kind: 'text', text: 'par' } });
  const err = createError('GW_ERR_INTEGRITY', 'tool input of block 0 is not valid JSON');
  sse += enc.fail(err);
  t.equal(enc.fail(err), '', 'one terminal frame');
  t.equal(enc.encode({ type: 'message-stop' }), '', 'nothing after the end');
  const chunks = dataFrames(sse);
  t.equal(chunks.at(-1), '[DONE]');
  const last = JSON.parse(chunks.at(-2)!) as Obj;
  t.same(last.choices, [{ index: 0, delta: {}, finish_reason: 'error' }]);
  t.same(last.error, { code: 'internal_error', message: err.message });
  t.equal(accumulateChat(sse).content, 'par');

  const enc2 = new ChatSseEncoder({ requestId: 'req_z', input: ctx.input });
  const upstream = createError('GW_ERR_UPSTREAM_OVERLOADED', 'Overloaded');
  const out = dataFrames(enc2.encode({ type: 'error', error: upstream }));
  t.same((JSON.parse(out[0]!) as Obj).error, { code: 'provider_unavailable', message: 'Overloaded' }, 'an error event before any output is the same frame');
  t.equal((JSON.parse(out[0]!) as Obj).id, 'chatcmpl-req_z');
  t.equal(out[1], '[DONE]');

  t.throws(() => encodeChatJson([events()[0]!, { type: 'error', error: upstream }], ctx), upstream, 'JSON: an error event is thrown');
  t.throws(() => encodeChatJson(events().slice(0, -1), ctx), { code: 'GW_ERR_INTEGRITY' }, 'JSON: no message-stop');
});

t.test('events without native frames encode the same (canonical fields only)', async (t) => {
  const ctx = chatContext({ modelId: 'anthropic/claude-opus-5' });
  const evs = decodeWith([readFileSync(`${ANTHROPIC_DIR}/thinking-signature.sse`)], 'anthropic', ctx);
  const strip = evs.map(({ native: _n, ...rest }) => rest as CanonicalEvent);
  const norm = (s: string): string => s.replace(/"created":\d+/g, '"created":0');
  t.equal(norm(encodeChatSse(strip, ctx)), norm(encodeChatSse(evs, ctx)));
});
