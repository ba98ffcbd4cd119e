// FAILURE-MODES.md §5 — tools: schemas, `strict`, names, ids, choice, message shape, per upstream.
import t from 'tap';
import { accumulateChat, accumulateMessages, checkMessagesStream, send } from './clients.js';
import { anthropicStream, chatSse, delta, modelId, responsesStream, startFm, usageChunk, type Api, type Script } from './upstream.js';

const SCHEMA = { type: 'object', properties: { command: { type: 'string' }, ws: { type: 'string' } } };
const LONG = 'mcp__plugin_chrome-devtools-mcp_chrome-devtools__get_console_message'; // 67 characters

const script: Script = {
  'a-echo': { body: anthropicStream('a-echo', [{ type: 'text', text: 'ok' }], 'end_turn') },
  'a-noargs': { body: anthropicStream('a-noargs', [{ type: 'tool_use', id: 'toolu_n1', name: 'now' }, { type: 'tool_use', id: 'toolu_n2', name: 'now', json: '' }], 'tool_use') },
  'c-echo': { body: chatSse('c-echo', [delta({ role: 'assistant', content: 'ok' }), delta({}, 'stop'), usageChunk(9, 1)]) },
  'c-foreign-id': { body: chatSse('c-foreign-id', [delta({ role: 'assistant', content: '', tool_calls: [{ index: 0, id: 'functions.Bash:0', type: 'function', function: { name: 'bash', arguments: '{}' } }] }), delta({}, 'tool_calls'), usageChunk(9, 1)]) },
  'c-long-name': (req) => ({ body: chatSse('c-long-name', [delta({ role: 'assistant', tool_calls: [{ index: 0, id: 'call_l', type: 'function', function: { name: req.body.tools?.[0]?.function?.name ?? 'x', arguments: '{}' } }] }), delta({}, 'tool_calls'), usageChunk(9, 1)]) }),
  'r-echo': { body: responsesStream('r-echo', [{ type: 'message', text: 'ok' }]) },
};
const models: { name: string; api: Api }[] = [
  { name: 'a-echo', api: 'messages' },
  { name: 'a-noargs', api: 'messages' },
  { name: 'c-echo', api: 'chat' },
  { name: 'c-foreign-id', api: 'chat' },
  { name: 'c-long-name', api: 'chat' },
  { name: 'r-echo', api: 'responses' },
];

t.test('failure modes §5', async (t) => {
  const { up, gw } = await startFm(t, script, models);
  const lastBody = (m: string): any => up.calls(m).at(-1)?.body;

  t.test('F34 a tool without strict reaches a Responses upstream as strict: false (Chat, Messages clients)', async (t) => {
    await send(gw, 'chat', { model: modelId('r-echo'), messages: [{ role: 'user', content: 'hi' }], tools: [{ type: 'function', function: { name: 'monitor', parameters: SCHEMA } }] });
    t.equal(lastBody('r-echo').tools[0].strict, false, 'from Chat');
    await send(gw, 'messages', { model: modelId('r-echo'), max_tokens: 100, messages: [{ role: 'user', content: 'hi' }], tools: [{ name: 'monitor', input_schema: SCHEMA }] });
    t.equal(lastBody('r-echo').tools[0].strict, false, 'from Messages');
  });

  t.test('F35 strict-mode schema rules are not imposed on a client schema (no strict: true added)', async (t) => {
    await send(gw, 'messages', { model: modelId('c-echo'), max_tokens: 100, messages: [{ role: 'user', content: 'hi' }], tools: [{ name: 'shell', input_schema: SCHEMA }] });
    const tool = lastBody('c-echo').tools[0].function;
    t.not(tool.strict, true, 'not strict');
    t.same(tool.parameters, SCHEMA, 'schema unchanged');
  });

  t.test('F36 a no-argument tool schema {type: object} gets properties: {} for OpenAI upstreams', async (t) => {
    await send(gw, 'messages', { model: modelId('c-echo'), max_tokens: 100, messages: [{ role: 'user', content: 'hi' }], tools: [{ name: 'now', input_schema: { type: 'object' } }] });
    t.same(lastBody('c-echo').tools[0].function.parameters.properties, {}, 'Chat upstream');
    await send(gw, 'messages', { model: modelId('r-echo'), max_tokens: 100, messages: [{ role: 'user', content: 'hi' }], tools: [{ name: 'now', input_schema: { type: 'object' } }] });
    t.same(lastBody('r-echo').tools[0].parameters.properties, {}, 'Responses upstream');
  });

  t.test('F38 a tool name over 64 characters: refused up front at its path, or shortened upstream and restored', async (t) => {
    const a = await send(gw, 'messages', { model: modelId('c-long-name'), max_tokens: 100, stream: true, messages: [{ role: 'user', content: 'hi' }], tools: [{ name: LONG, input_schema: { type: 'object', properties: {} } }] });
    if (a.status === 400) {
      t.match(a.json.error.message, /tools\[0\]\.name|tools\.0\.name/, 'names the path');
      t.equal(up.calls('c-long-name').length, 0, 'not sent upstream');
    } else {
      const sent = lastBody('c-long-name').tools[0].function.name as string;
      t.ok(sent.length <= 64, `upstream name ≤ 64: ${sent.length}`);
      t.equal(accumulateMessages(a).blocks[0]?.name, LONG, 'the client sees its own name');
    }
  });

  t.test('F39 foreign tool-call ids never reach a client or Anthropic outside ^[a-zA-Z0-9_-]+$', async (t) => {
    const a = await send(gw, 'messages', { model: modelId('c-foreign-id'), max_tokens: 100, stream: true, messages: [{ role: 'user', content: 'hi' }], tools: [{ name: 'bash', input_schema: SCHEMA }] });
    checkMessagesStream(t, a);
    const id = accumulateMessages(a).blocks.find((b) => b.type === 'tool_use')?.id as string;
    t.match(id, /^[a-zA-Z0-9_-]+$/, `Messages client gets a valid tool_use id: ${id}`);
    // a Chat history carrying such an id, sent to a Claude model (a model switch mid-session)
    const r = await send(gw, 'chat', {
      model: modelId('a-echo'),
      messages: [
        { role: 'user', content: 'hi' },
        { role: 'assistant', content: null, tool_calls: [{ id: 'functions.Bash:0', type: 'function', function: { name: 'bash', arguments: '{}' } }] },
        { role: 'tool', tool_call_id: 'functions.Bash:0', content: 'done' },
      ],
      tools: [{ type: 'function', function: { name: 'bash', parameters: SCHEMA } }],
    });
    t.equal(r.status, 200, r.text.slice(0, 200));
    const msgs = lastBody('a-echo').messages;
    const useId = msgs[1].content.find((b: any) => b.type === 'tool_use').id;
    t.match(useId, /^[a-zA-Z0-9_-]+$/, `Anthropic upstream gets a valid id: ${useId}`);
    t.equal(msgs[2].content[0].tool_use_id, useId, 'the result names the same id');
  });

  t.test('F40 parallel tool results go to Anthropic as one user message, results before text', async (t) => {
    const r = await send(gw, 'chat', {
      model: modelId('a-echo'),
      messages: [
        { role: 'user', content: 'hi' },
        { role: 'assistant', content: null, tool_calls: ['call_1', 'call_2'].map((id) => ({ id, type: 'function', function: { name: 'bash', arguments: '{}' } })) },
        { role: 'tool', tool_call_id: 'call_1', content: 'one' },
        { role: 'tool', tool_call_id: 'call_2', content: 'two' },
        { role: 'user', content: 'and now?' },
      ],
      tools: [{ type: 'function', function: { name: 'bash', parameters: SCHEMA } }],
    });
    t.equal(r.status, 200, r.text.slice(0, 200));
    const msgs = lastBody('a-echo').messages;
    t.equal(msgs.length, 3, 'user, assistant, one user message');
    t.same(
      msgs[2].content.map((b: any) => b.type),
      ['tool_result', 'tool_result', 'text'],
    );
  });

  t.test('F41 no empty text block created by translation', async (t) => {
    await send(gw, 'chat', {
      model: modelId('a-echo'),
      messages: [
        { role: 'user', content: 'hi' },
        { role: 'assistant', content: '', tool_calls: [{ id: 'call_e', type: 'function', function: { name: 'bash', arguments: '{}' } }] },
        { role: 'tool', tool_call_id: 'call_e', content: 'x' },
      ],
      tools: [{ type: 'function', function: { name: 'bash', parameters: SCHEMA } }],
    });
    const blocks = lastBody('a-echo').messages[1].content as any[];
    t.notOk(blocks.some((b) => b.type === 'text' && b.text === ''), 'Chat assistant content "" → no empty text block');
    const a = await send(gw, 'messages', { model: modelId('c-foreign-id'), max_tokens: 100, messages: [{ role: 'user', content: 'hi' }], tools: [{ name: 'bash', input_schema: SCHEMA }] });
    t.notOk(a.json.content.some((b: any) => b.type === 'text' && b.text === ''), 'upstream content "" → no empty text block for the client');
  });

  t.test('F42 zero-argument tool calls are "{}" (Chat) / {} (Responses), never ""', async (t) => {
    const c = await send(gw, 'chat', { model: modelId('a-noargs'), stream: true, messages: [{ role: 'user', content: 'hi' }], tools: [{ type: 'function', function: { name: 'now', parameters: { type: 'object', properties: {} } } }] });
    t.same(
      accumulateChat(c).tool_calls.map((tc) => tc.function.arguments),
      ['{}', '{}'],
    );
    const r = await send(gw, 'responses', { model: modelId('a-noargs'), stream: true, input: 'hi', tools: [{ type: 'function', name: 'now', parameters: { type: 'object', properties: {} } }] });
    const final = r.data.at(-1).response;
    t.same(
      final.output.filter((o: any) => o.type === 'function_call').map((o: any) => o.arguments),
      ['{}', '{}'],
    );
    const done = r.data.filter((d) => d?.type === 'response.function_call_arguments.done').map((d) => d.arguments);
    t.same(done, ['{}', '{}'], 'arguments.done events too');
    // a Chat client sending "" back: Claude gets an object
    await send(gw, 'chat', {
      model: modelId('a-echo'),
      messages: [{ role: 'user', content: 'hi' }, { role: 'assistant', content: null, tool_calls: [{ id: 'call_z', type: 'function', function: { name: 'now', arguments: '' } }] }, { role: 'tool', tool_call_id: 'call_z', content: 'noon' }],
      tools: [{ type: 'function', function: { name: 'now', parameters: { type: 'object', properties: {} } } }],
    });
    t.same(lastBody('a-echo').messages[1].content.find((b: any) => b.type === 'tool_use').input, {}, 'arguments "" → input {}');
  });

  t.test('F43 tool_choice none and parallel_tool_calls map per upstream', async (t) => {
    const a = await send(gw, 'messages', { model: modelId('c-echo'), max_tokens: 100, messages: [{ role: 'user', content: 'hi' }], tools: [{ name: 'bash', input_schema: SCHEMA }], tool_choice: { type: 'none' } });
    t.equal(a.status, 200, a.text.slice(0, 200));
    t.equal(lastBody('c-echo').tool_choice, 'none');
    const b = await send(gw, 'chat', { model: modelId('a-echo'), messages: [{ role: 'user', content: 'hi' }], tools: [{ type: 'function', function: { name: 'bash', parameters: SCHEMA } }], tool_choice: 'none', parallel_tool_calls: false });
    t.equal(b.status, 200, b.text.slice(0, 200));
    t.same(lastBody('a-echo').tool_choice, { type: 'none' }, 'none carries no disable_parallel_tool_use');
    await send(gw, 'chat', { model: modelId('a-echo'), messages: [{ role: 'user', content: 'hi' }], tools: [{ type: 'function', function: { name: 'bash', parameters: SCHEMA } }], parallel_tool_calls: false });
    t.match(lastBody('a-echo').tool_choice, { type: 'auto', disable_parallel_tool_use: true }, 'parallel_tool_calls false → disable_parallel_tool_use');
  });

  t.test('F44 inline role: system messages in /v1/messages are accepted and placed per upstream', async (t) => {
    const body = (m: string): Record<string, unknown> => ({
      model: modelId(m),
      max_tokens: 100,
      messages: [{ role: 'user', content: 'hi' }, { role: 'assistant', content: 'hello' }, { role: 'system', content: 'Be terse from now on.' }, { role: 'user', content: 'go' }],
    });
    const a = await send(gw, 'messages', body('c-echo'));
    t.equal(a.status, 200, a.text.slice(0, 300));
    t.ok(lastBody('c-echo').messages.some((m: any) => (m.role === 'system' || m.role === 'developer') && JSON.stringify(m.content).includes('Be terse')), 'a system message for the Chat upstream');
    const n = await send(gw, 'messages', body('a-echo'));
    t.equal(n.status, 200, n.text.slice(0, 300));
  });

  t.test('F45 tool_reference blocks from tool search do not lock the session', async (t) => {
    const hist = (m: string): Record<string, unknown> => ({
      model: modelId(m),
      max_tokens: 100,
      messages: [
        { role: 'user', content: 'find a tool' },
        { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_s', name: 'tool_search', input: { query: 'x' } }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_s', content: [{ type: 'tool_reference', tool_name: 'bash' }] }] },
      ],
      tools: [{ name: 'tool_search', input_schema: SCHEMA }, { name: 'bash', input_schema: SCHEMA }],
    });
    for (const m of ['a-echo', 'c-echo']) {
      const a = await send(gw, 'messages', hist(m));
      // accepted (native), or refused once with a capability message naming the block — never a 5xx
      t.ok(a.status === 200 || (a.status === 400 && /tool_reference/.test(a.json?.error?.message ?? '')), `${m}: ${a.status} ${a.text.slice(0, 200)}`);
    }
  });
});
