// FAILURE-MODES.md §1 — streaming translation into Anthropic SSE (Chat / Responses upstream →
// /v1/messages): each test names the entry it would have caught. One scripted upstream and one
// gateway for the file.
import t from 'tap';
import { accumulateMessages, checkMessagesStream, send } from './clients.js';
import { anthropicSse, chatJson, chatSse, delta, JSON_HEAD, messageStart, modelId, responsesStream, startFm, usageChunk, type Api, type Script } from './upstream.js';

const USER = [{ role: 'user', content: 'list the files' }];
const TOOLS = [{ name: 'bash', description: 'run a command', input_schema: { type: 'object', properties: { command: { type: 'string' } }, required: ['command'] } }];
const ask = (m: string, extra: Record<string, unknown> = {}): Record<string, unknown> => ({ model: modelId(m), max_tokens: 1000, stream: true, messages: USER, tools: TOOLS, ...extra });

const call = (index: number, id: string | undefined, name: string | undefined, args: string): Record<string, unknown> =>
  delta({ tool_calls: [{ index, ...(id ? { id, type: 'function' } : {}), function: { ...(name ? { name } : {}), arguments: args } }] });

const script: Script = {
  // F1-F3: text, then a tool call whose first chunk already carries the first argument fragment
  'text-then-tool': { body: chatSse('text-then-tool', [delta({ role: 'assistant', content: 'Let me look.' }), call(0, 'call_a', 'bash', '{"command":'), call(0, undefined, undefined, '"ls -la"}'), delta({}, 'tool_calls'), usageChunk(20, 9)]) },
  'resp-text-then-tool': {
    body: responsesStream('resp-text-then-tool', [{ type: 'message', text: 'Let me look.' }, { type: 'function_call', call_id: 'call_r', name: 'bash', pieces: ['{"command":', '"ls -la"}'] }]),
  },
  // F4: an OpenAI-compatible upstream ending a tool-call turn with finish_reason "stop"
  'stop-with-tools': { body: chatSse('stop-with-tools', [call(0, 'call_s', 'bash', '{"command":"pwd"}'), delta({}, 'stop'), usageChunk(20, 9)]) },
  'stop-with-tools-json': { headers: JSON_HEAD, body: chatJson('stop-with-tools-json', { tool_calls: [{ id: 'call_j', type: 'function', function: { name: 'bash', arguments: '{"command":"pwd"}' } }] }, 'stop') },
  // F5: cut by the token limit in the middle of the arguments (finish "length"; vLLM's "tool_calls")
  'length-mid-tool': { body: chatSse('length-mid-tool', [call(0, 'call_l', 'bash', '{"command":"ls'), delta({}, 'length'), usageChunk(20, 1000)]) },
  'toolcalls-cut': { body: chatSse('toolcalls-cut', [call(0, 'call_v', 'bash', '{"command":"ls'), delta({}, 'tool_calls'), usageChunk(20, 1000)]) },
  // F6: parallel calls whose fragments interleave, and calls that all reuse index 0 with their own ids
  'parallel-one-chunk': {
    body: chatSse('parallel-one-chunk', [
      delta({
        tool_calls: [
          { index: 0, id: 'call_p0', type: 'function', function: { name: 'bash', arguments: '{"command":"ls"}' } },
          { index: 1, id: 'call_p1', type: 'function', function: { name: 'bash', arguments: '{"command":"pwd"}' } },
        ],
      }),
      delta({}, 'tool_calls'),
      usageChunk(20, 9),
    ]),
  },
  'reused-index': {
    body: chatSse('reused-index', [call(0, 'call_x0', 'bash', '{"command":"ls"}'), call(0, 'call_x1', 'bash', '{"command":"pwd"}'), call(0, 'call_x2', 'bash', '{"command":"id"}'), delta({}, 'tool_calls'), usageChunk(20, 9)]),
  },
  // F7: a translated stream's usage (cached part of the prompt)
  'usage-cached': { body: chatSse('usage-cached', [delta({ role: 'assistant', content: 'hi' }), delta({}, 'stop'), usageChunk(1000, 7, 600)]) },
  // F8: an Anthropic upstream adding an event of its own and a trailing [DONE]
  'vertex-extra': {
    body:
      anthropicSse(messageStart('vertex-extra'), { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }) +
      'event: vertex_event\ndata: {"type":"vertex_event","region":"us-east5"}\n\n' +
      anthropicSse(
        { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'hi' } },
        { type: 'content_block_stop', index: 0 },
        { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 2 } },
        { type: 'message_stop' },
      ) +
      'data: [DONE]\n\n',
  },
  // F9: JSON answers for a request that omits `stream`
  'json-chat': { headers: JSON_HEAD, body: chatJson('json-chat', { content: 'plain json' }, 'stop') },
  // F10: upstream failures that must not become an empty or malformed 200
  'empty-200': { body: '' },
  'html-200': { headers: { 'content-type': 'text/html' }, body: '<html><body>Bad gateway</body></html>' },
  'html-500': { status: 500, headers: { 'content-type': 'text/html' }, body: '<html><body>Internal Server Error</body></html>' },
  'error-first': { body: anthropicSse({ type: 'error', error: { type: 'api_error', message: 'Internal server error' } }) },
};

const models: { name: string; api: Api }[] = [
  ...['text-then-tool', 'stop-with-tools', 'stop-with-tools-json', 'length-mid-tool', 'toolcalls-cut', 'parallel-one-chunk', 'reused-index', 'usage-cached', 'json-chat', 'empty-200', 'html-200', 'html-500'].map((name) => ({ name, api: 'chat' as Api })),
  { name: 'resp-text-then-tool', api: 'responses' },
  { name: 'vertex-extra', api: 'messages' },
  { name: 'error-first', api: 'messages' },
];

t.test('failure modes §1', async (t) => {
  const { up, gw } = await startFm(t, script, models);

  t.test('F1 event: lines and upstream headers kept (a turn is not sent twice)', async (t) => {
    const a = await send(gw, 'messages', ask('text-then-tool'));
    checkMessagesStream(t, a);
    t.match(a.headers.get('content-type'), /^text\/event-stream/);
    t.ok(a.headers.get('request-id'), 'request-id header');
    t.equal(up.calls('text-then-tool').length, 1, 'one upstream call per turn');
  });

  for (const m of ['text-then-tool', 'resp-text-then-tool']) {
    t.test(`F2 first argument fragment kept on the text→tool_use transition (${m})`, async (t) => {
      const a = await send(gw, 'messages', ask(m));
      checkMessagesStream(t, a);
      const acc = accumulateMessages(a);
      t.match(acc.blocks, [{ type: 'text', text: 'Let me look.' }, { type: 'tool_use', name: 'bash', input: { command: 'ls -la' } }]);
      t.equal(acc.stop_reason, 'tool_use');
    });
    t.test(`F3 every content_block_delta index names an open block (${m})`, async (t) => {
      checkMessagesStream(t, await send(gw, 'messages', ask(m)));
    });
  }

  t.test('F4 finish_reason "stop" beside complete tool calls is stop_reason tool_use (stream and JSON)', async (t) => {
    const a = await send(gw, 'messages', ask('stop-with-tools'));
    checkMessagesStream(t, a);
    const acc = accumulateMessages(a);
    t.match(acc.blocks, [{ type: 'tool_use', input: { command: 'pwd' } }]);
    t.equal(acc.stop_reason, 'tool_use');
    const j = await send(gw, 'messages', ask('stop-with-tools-json', { stream: false }));
    t.equal(j.status, 200, j.text);
    t.equal(j.json.stop_reason, 'tool_use');
  });

  for (const m of ['length-mid-tool', 'toolcalls-cut']) {
    t.test(`F5 a tool call cut by the token limit is not reported as a tool call (${m})`, async (t) => {
      const a = await send(gw, 'messages', ask(m));
      if (a.status !== 200) {
        // refused before the first byte: an error, never a tool call with unparseable input
        t.equal(a.json?.type, 'error', a.text.slice(0, 200));
        return;
      }
      const acc = accumulateMessages({ ...a, data: a.data.map((d) => (d?.type === 'content_block_delta' && d.delta.type === 'input_json_delta' ? { ...d, delta: { ...d.delta, partial_json: '' } } : d)) });
      t.not(acc.stop_reason, 'tool_use', `stop_reason ${acc.stop_reason}`);
      if (a.frames.at(-1)?.event === 'message_stop') t.equal(acc.stop_reason, 'max_tokens');
      else checkMessagesStream(t, a, { terminal: 'error' });
    });
  }

  for (const m of ['parallel-one-chunk', 'reused-index']) {
    t.test(`F6 parallel tool calls stay separate (${m})`, async (t) => {
      const a = await send(gw, 'messages', ask(m));
      checkMessagesStream(t, a);
      const acc = accumulateMessages(a);
      const want = m === 'parallel-one-chunk' ? ['ls', 'pwd'] : ['ls', 'pwd', 'id'];
      t.same(
        acc.blocks.map((b) => b.input?.command),
        want,
      );
      t.equal(new Set(acc.blocks.map((b) => b.id)).size, want.length, 'distinct ids');
      t.ok(acc.blocks.every((b) => b.name === 'bash'), 'names not concatenated');
    });
  }

  t.test('F7 message_start.usage present and final usage split by cache on a translated stream', async (t) => {
    const a = await send(gw, 'messages', ask('usage-cached'));
    checkMessagesStream(t, a);
    const start = a.data[0].message.usage;
    t.type(start.input_tokens, 'number', 'message_start.usage.input_tokens');
    t.type(start.output_tokens, 'number');
    t.type(start.cache_read_input_tokens, 'number', 'message_start carries the cache fields');
    t.type(start.cache_creation_input_tokens, 'number');
    const fin = a.data.find((d) => d?.type === 'message_delta').usage;
    t.match(fin, { input_tokens: 400, cache_read_input_tokens: 600, output_tokens: 7 }, 'final usage: uncached input, cache reads apart');
  });

  // Unknown event *types* on the native path pass through on purpose (test/messages/streaming.test.ts:
  // Anthropic tells clients to ignore them, and dropping them would hide new events from Claude Code);
  // a translated stream never carries one. A trailing `data: [DONE]` is not an event at all.
  t.test('F8 a trailing [DONE] from a relay is not passed into an Anthropic stream, nor does it fail it', async (t) => {
    const a = await send(gw, 'messages', ask('vertex-extra', { tools: undefined }));
    checkMessagesStream(t, a);
    t.notOk(a.text.includes('[DONE]'), 'no [DONE]');
    t.match(accumulateMessages(a).blocks, [{ type: 'text', text: 'hi' }]);
  });

  for (const [m, label] of [['json-chat', 'chat upstream'], ['anthropic/claude-opus-5', 'native']] as const) {
    t.test(`F9 a request without a stream field gets one JSON message (${label})`, async (t) => {
      const body: Record<string, unknown> = { model: m.includes('/') ? m : modelId(m), max_tokens: 100, messages: USER };
      const a = await send(gw, 'messages', body);
      t.equal(a.status, 200, a.text.slice(0, 200));
      t.match(a.headers.get('content-type'), /^application\/json/);
      t.equal(a.json?.type, 'message');
    });
  }

  for (const m of ['empty-200', 'html-200', 'html-500', 'error-first']) {
    for (const stream of [true, false]) {
      t.test(`F10 "empty or malformed response (HTTP 200)": ${m} answered with an error status (stream ${stream})`, async (t) => {
        const a = await send(gw, 'messages', ask(m, { stream, tools: undefined }));
        t.not(a.status, 200, `status ${a.status}`);
        t.ok(a.status >= 500, 'a retryable server-side status');
        t.equal(a.json?.type, 'error', `Messages error envelope: ${a.text.slice(0, 200)}`);
        t.type(a.json?.error?.message, 'string');
      });
    }
  }
});
