// FAILURE-MODES.md §2 — streaming translation into Chat Completions and Responses (what the SDKs,
// OpenCode, Cline and Codex need). Each test names the entry it would have caught.
import t from 'tap';
import { accumulateChat, checkChatStream, checkResponsesStream, send } from './clients.js';
import { anthropicJson, anthropicStream, chatSse, delta, frame, modelId, startFm, usageChunk, type Api, type Script } from './upstream.js';

const TOOLS_CHAT = [{ type: 'function', function: { name: 'bash', description: 'run', parameters: { type: 'object', properties: { command: { type: 'string' } }, required: ['command'] } } }];
const TOOLS_RESP = [{ type: 'function', name: 'bash', description: 'run', parameters: { type: 'object', properties: { command: { type: 'string' } }, required: ['command'] } }];
const chat = (m: string, extra: Record<string, unknown> = {}): Record<string, unknown> => ({ model: modelId(m), stream: true, messages: [{ role: 'user', content: 'hi' }], tools: TOOLS_CHAT, ...extra });
const resp = (m: string, extra: Record<string, unknown> = {}): Record<string, unknown> => ({ model: modelId(m), stream: true, input: 'hi', tools: TOOLS_RESP, ...extra });

const script: Script = {
  // an Anthropic upstream: text then a tool call
  'a-text-tool': { body: anthropicStream('a-text-tool', [{ type: 'text', text: 'Looking.' }, { type: 'tool_use', id: 'toolu_1', name: 'bash', json: '{"command":"ls"}' }], 'tool_use', { input_tokens: 50, output_tokens: 12 }) },
  'a-text': { body: anthropicStream('a-text', [{ type: 'text', text: 'Hello.' }], 'end_turn', { input_tokens: 50, output_tokens: 3 }) },
  'a-max-tokens': { body: anthropicStream('a-max-tokens', [{ type: 'thinking', thinking: 'long thought', signature: 'sig-abc' }], 'max_tokens', { input_tokens: 50, output_tokens: 100 }) },
  'a-max-tokens-json': { headers: { 'content-type': 'application/json' }, body: anthropicJson('a-max-tokens-json', [{ type: 'text', text: 'cut' }], 'max_tokens') },
  // a Chat upstream in the Azure way: a preamble chunk with empty choices and prompt_filter_results
  'c-azure': {
    body:
      frame({ id: '', object: '', created: 0, model: '', choices: [], prompt_filter_results: [{ prompt_index: 0, content_filter_results: {} }] }) +
      chatSse('c-azure', [delta({ role: 'assistant', content: 'ok' }), delta({}, 'stop'), usageChunk(9, 1)]),
  },
  // a Chat upstream (vLLM style) whose stream ends at [DONE] without a finish_reason
  'c-no-finish': { body: chatSse('c-no-finish', [delta({ role: 'assistant', content: 'partial' }), usageChunk(9, 1)]) },
  // streamed tool calls without ids (vLLM, NIM, GLM)
  'c-no-id': {
    body: chatSse('c-no-id', [
      delta({ tool_calls: [{ index: 0, type: 'function', function: { name: 'bash', arguments: '{"command":' } }] }),
      delta({ tool_calls: [{ index: 0, function: { arguments: '"ls"}' } }] }),
      delta({}, 'tool_calls'),
      usageChunk(9, 4),
    ]),
  },
  'r-effort': { headers: { 'content-type': 'application/json' }, body: '' },
};
script['r-effort'] = (req) => ({
  headers: { 'content-type': 'text/event-stream' },
  body: ((): string => {
    const r = { id: 'resp_e', object: 'response', created_at: 1, model: 'r-effort', status: 'in_progress', output: [], usage: null };
    const out = [{ id: 'msg_e', type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: `effort ${req.body.reasoning?.effort}`, annotations: [] }] }];
    return [
      frame({ type: 'response.created', sequence_number: 0, response: r }, 'response.created'),
      frame({ type: 'response.output_item.added', sequence_number: 1, output_index: 0, item: { ...out[0], status: 'in_progress', content: [] } }, 'response.output_item.added'),
      frame({ type: 'response.content_part.added', sequence_number: 2, item_id: 'msg_e', output_index: 0, content_index: 0, part: { type: 'output_text', text: '', annotations: [] } }, 'response.content_part.added'),
      frame({ type: 'response.output_text.delta', sequence_number: 3, item_id: 'msg_e', output_index: 0, content_index: 0, delta: out[0]!.content[0]!.text }, 'response.output_text.delta'),
      frame({ type: 'response.output_text.done', sequence_number: 4, item_id: 'msg_e', output_index: 0, content_index: 0, text: out[0]!.content[0]!.text }, 'response.output_text.done'),
      frame({ type: 'response.content_part.done', sequence_number: 5, item_id: 'msg_e', output_index: 0, content_index: 0, part: out[0]!.content[0] }, 'response.content_part.done'),
      frame({ type: 'response.output_item.done', sequence_number: 6, output_index: 0, item: out[0] }, 'response.output_item.done'),
      frame({ type: 'response.completed', sequence_number: 7, response: { ...r, status: 'completed', output: out, usage: { input_tokens: 5, output_tokens: 2, total_tokens: 7, input_tokens_details: { cached_tokens: 0 }, output_tokens_details: { reasoning_tokens: 0 } } } }, 'response.completed'),
    ].join('');
  })(),
});

const models: { name: string; api: Api }[] = [
  ...['a-text-tool', 'a-text', 'a-max-tokens', 'a-max-tokens-json'].map((name) => ({ name, api: 'messages' as Api })),
  ...['c-azure', 'c-no-finish', 'c-no-id'].map((name) => ({ name, api: 'chat' as Api })),
  { name: 'r-effort', api: 'responses' },
];

t.test('failure modes §2', async (t) => {
  const { up, gw } = await startFm(t, script, models);

  for (const m of ['a-text-tool', 'c-azure']) {
    t.test(`F11 usage-only chunk has choices: [] and a whole usage; every other chunk has choices with index (${m})`, async (t) => {
      const a = await send(gw, 'chat', chat(m, { stream_options: { include_usage: true } }));
      checkChatStream(t, a);
      const chunks = a.data.slice(0, -1);
      const last = chunks.at(-1);
      t.same(last.choices, [], 'usage chunk: choices []');
      t.type(last.usage.prompt_tokens, 'number');
      t.type(last.usage.completion_tokens, 'number');
      t.ok(chunks.slice(0, -1).every((c) => c.choices.length > 0), 'no other chunk with empty choices (no Azure preamble passed on)');
    });
  }

  t.test('F12 usage delivered on a translated stream (and asked of the upstream)', async (t) => {
    const a = await send(gw, 'chat', chat('a-text', { tools: undefined, stream_options: { include_usage: true } }));
    checkChatStream(t, a);
    t.match(accumulateChat(a).usage, { prompt_tokens: 50, completion_tokens: 3 });
    const plain = await send(gw, 'chat', chat('a-text', { tools: undefined }));
    t.match(accumulateChat(plain).usage, { prompt_tokens: 50 }, 'also without stream_options (decisions §3: the stream always ends with the usage chunk)');
    up.requests.length = 0;
    await send(gw, 'messages', { model: modelId('c-azure'), max_tokens: 50, stream: true, messages: [{ role: 'user', content: 'hi' }] });
    t.match(up.calls('c-azure')[0]?.body.stream_options, { include_usage: true }, 'the Chat upstream is asked for usage');
  });

  t.test('F13 every Chat stream carries a finish_reason (tool_calls after tools)', async (t) => {
    const a = await send(gw, 'chat', chat('a-text-tool'));
    checkChatStream(t, a);
    t.equal(accumulateChat(a).finish_reason, 'tool_calls');
    const b = await send(gw, 'chat', chat('a-text', { tools: undefined }));
    t.equal(accumulateChat(b).finish_reason, 'stop');
    const cut = await send(gw, 'chat', chat('c-no-finish', { tools: undefined }));
    // an upstream that never said why it stopped: an error, never a stream that silently lacks a finish
    if (cut.status === 200) t.ok(accumulateChat(cut).finish_reason !== null || cut.data.some((d) => d?.error), 'a finish_reason or an error chunk');
    else t.ok(cut.json?.error, 'an error answer');
  });

  t.test('F14 streamed tool calls: id, type and name on the first chunk, never null names later; id-less upstream calls get an id', async (t) => {
    for (const m of ['a-text-tool', 'c-no-id']) {
      const a = await send(gw, 'chat', chat(m));
      checkChatStream(t, a);
      const firsts = new Map<number, any>();
      for (const c of a.data.slice(0, -1)) {
        for (const tc of c.choices[0]?.delta?.tool_calls ?? []) {
          if (!firsts.has(tc.index)) firsts.set(tc.index, tc);
          else t.notOk('name' in (tc.function ?? {}) && tc.function.name === null, 'no name: null later');
        }
      }
      const first = firsts.get(0);
      t.match(first, { id: /^\S+$/, type: 'function', function: { name: 'bash' } }, `${m}: first chunk complete`);
      t.same(JSON.parse(accumulateChat(a).tool_calls[0].function.arguments), { command: 'ls' });
      const r = await send(gw, 'responses', resp(m));
      const final = checkResponsesStream(t, r);
      const call = final?.output.find((o: any) => o.type === 'function_call');
      t.match(call, { call_id: /^\S+$/, name: 'bash', arguments: '{"command":"ls"}' }, `${m}: Responses function_call with a call_id`);
    }
  });

  for (const m of ['a-text-tool', 'c-azure']) {
    t.test(`F15 Responses events in order: item added before its deltas, done with its name, all before completed (${m})`, async (t) => {
      const a = await send(gw, 'responses', resp(m));
      const final = checkResponsesStream(t, a);
      const done = a.data.filter((d) => d?.type === 'response.output_item.done');
      for (const d of done) if (d.item.type === 'function_call') t.equal(d.item.name, 'bash', 'name in output_item.done');
      t.ok(final.output.length > 0);
    });
    t.test(`F16 response.completed carries output and usage; non-streaming output_text not empty (${m})`, async (t) => {
      const a = await send(gw, 'responses', resp(m));
      const final = checkResponsesStream(t, a);
      t.ok(final.output.length > 0, 'output');
      t.ok(final.usage.input_tokens > 0, 'usage');
      const j = await send(gw, 'responses', resp(m, { stream: false }));
      t.equal(j.status, 200, j.text.slice(0, 200));
      t.ok(Array.isArray(j.json.output) && j.json.output.length > 0, 'JSON output');
      t.type(j.json.usage?.input_tokens, 'number');
    });
    t.test(`F17 sequence_number on every event, gap-free; output_index = position in output (${m})`, async (t) => {
      checkResponsesStream(t, await send(gw, 'responses', resp(m)));
    });
  }

  t.test('F18 max_tokens from a Claude upstream is response.incomplete (max_output_tokens), not completed', async (t) => {
    const a = await send(gw, 'responses', resp('a-max-tokens', { tools: undefined }));
    const final = checkResponsesStream(t, a, 'response.incomplete');
    t.match(final, { status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } });
    const j = await send(gw, 'responses', resp('a-max-tokens-json', { tools: undefined, stream: false }));
    t.match(j.json, { status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } });
    const c = await send(gw, 'chat', chat('a-max-tokens-json', { tools: undefined, stream: false }));
    t.equal(c.json.choices[0].finish_reason, 'length', 'Chat: finish_reason length');
  });

  t.test('F19 a Chat client with tools and reasoning_effort is served by a Responses deployment', async (t) => {
    const a = await send(gw, 'chat', chat('r-effort', { reasoning_effort: 'high', stream: false }));
    t.equal(a.status, 200, a.text.slice(0, 300));
    t.equal(a.json.choices[0].message.content, 'effort high');
    const sent = up.calls('r-effort').at(-1)!.body;
    t.equal(sent.tools?.[0]?.name, 'bash', 'tools went to the Responses upstream');
  });
});
