// The simulated provider's demo model on the Anthropic Messages protocol.
import t from 'tap';
import { createHmac } from 'node:crypto';
import { SIM_SECRET, simSignature } from '../../lib/sim/demo.js';
import { AH, anthropic, dataOf, msgs, parseSse, post, startSim, tokensOf, words, type J } from './util.js';

const BASH = {
  name: 'Bash', description: 'run', input_schema: {
    type: 'object', properties: { command: { type: 'string' }, description: { type: 'string' }, timeout: { type: 'number' } },
    required: ['command'], additionalProperties: false,
  },
};
const READ = {
  name: 'Read', description: 'read', input_schema: { type: 'object', properties: { file_path: { type: 'string' }, limit: { type: 'integer' } }, required: ['file_path'] },
};
const AGENT = {
  name: 'Agent', input_schema: { type: 'object', properties: { prompt: { type: 'string' }, wait: { type: 'boolean' }, n: { type: 'number' }, mode: { enum: ['a', 'b'] } }, required: ['prompt', 'wait', 'n', 'mode'] },
};

t.test('text answer as JSON', async (t) => {
  const sim = await startSim(t);
  const messages = msgs('hi there');
  const res = await anthropic(sim, { model: 'claude-opus-5', max_tokens: 100, messages });
  t.equal(res.status, 200);
  t.match(res.headers.get('content-type'), /^application\/json/);
  t.match(res.headers.get('request-id'), /^req_sim_\d+$/);
  const text = await res.text();
  t.equal(res.headers.get('content-length'), String(Buffer.byteLength(text)));
  const body = JSON.parse(text) as J;
  t.match(body, { id: 'msg_sim_1', type: 'message', role: 'assistant', model: 'claude-opus-5', stop_reason: 'end_turn', stop_sequence: null });
  const answer = 'Hello from claude-opus-5! You said: hi there';
  t.same(body.content, [{ type: 'text', text: answer }]);
  t.same(body.usage, {
    input_tokens: tokensOf(messages), cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: words(answer), service_tier: 'standard',
  });
});

t.test('text answer as SSE, framed like the real API', async (t) => {
  const sim = await startSim(t);
  const model = 'demo;deltas=3';
  const res = await anthropic(sim, { model, max_tokens: 100, stream: true, messages: msgs('stream me') });
  t.equal(res.status, 200);
  t.equal(res.headers.get('content-type'), 'text/event-stream');
  t.equal(res.headers.get('cache-control'), 'no-cache');
  const events = parseSse(await res.text());
  for (const e of events) t.equal(e.event, (JSON.parse(e.data) as J).type, 'event line matches data type');
  const data = dataOf(events);
  t.same(data.map((d) => d.type), [
    'message_start', 'content_block_start', 'ping', 'content_block_delta', 'content_block_delta', 'content_block_delta',
    'content_block_stop', 'message_delta', 'message_stop',
  ]);
  t.match(data[0], { message: { id: 'msg_sim_1', model, content: [], stop_reason: null, usage: { output_tokens: 1 } } });
  const text = data.filter((d) => d.type === 'content_block_delta').map((d) => (d.delta as J).text).join('');
  t.equal(text, `Hello from ${model}! You said: stream me`);
  t.match(data[7], { delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: words(text) } });
});

t.test('tool choice and deterministic arguments', async (t) => {
  const sim = await startSim(t);
  const call = async (text: string, tools: unknown[]): Promise<J> => {
    const res = await anthropic(sim, { model: 'agent', max_tokens: 100, messages: msgs(text), tools });
    t.equal(res.status, 200);
    return (await res.json()) as J;
  };
  let body = await call('please READ the file', [BASH, READ]);
  t.equal(body.stop_reason, 'tool_use');
  t.same(body.content, [{ type: 'tool_use', id: 'toolu_sim_1', name: 'Read', input: { file_path: 'x' } }]);
  body = await call('list files', [READ, BASH]);
  t.same((body.content as J[])[0], { type: 'tool_use', id: 'toolu_sim_2', name: 'Bash', input: { command: 'echo gateway-tool-ok', description: 'Print a marker' } });
  body = await call('do it', [AGENT, READ]);
  t.same((body.content as J[])[0]?.input, { prompt: 'x', wait: true, n: 1, mode: 'a' });
  t.equal(words(JSON.stringify({ prompt: 'x', wait: true, n: 1, mode: 'a' })), (body.usage as J).output_tokens);
  body = await call('no tools please', [{ ...BASH, input_schema: { type: 'object', properties: { command: { type: 'string' } } } }]);
  t.same((body.content as J[])[0]?.input, { command: 'echo gateway-tool-ok' }, 'only properties the schema has');
  const res = await anthropic(sim, { model: 'agent', max_tokens: 100, messages: msgs('read'), tools: [READ], tool_choice: { type: 'none' } });
  t.equal(((await res.json()) as J).stop_reason, 'end_turn', 'tool_choice none answers text');
});

t.test('tool call streamed as input_json_delta', async (t) => {
  const sim = await startSim(t);
  const res = await anthropic(sim, { model: 'agent', max_tokens: 100, stream: true, messages: msgs('go'), tools: [READ, BASH] });
  const data = dataOf(parseSse(await res.text()));
  t.match(data[1], { type: 'content_block_start', index: 0, content_block: { type: 'tool_use', id: 'toolu_sim_1', name: 'Bash', input: {} } });
  const json = data.filter((d) => d.type === 'content_block_delta').map((d) => (d.delta as J).partial_json).join('');
  t.same(JSON.parse(json), { command: 'echo gateway-tool-ok', description: 'Print a marker' });
  t.match(data.at(-2), { type: 'message_delta', delta: { stop_reason: 'tool_use' } });
});

t.test('tool result follow-up', async (t) => {
  const sim = await startSim(t);
  const messages = [
    { role: 'user', content: 'run it' },
    { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_sim_1', name: 'Bash', input: { command: 'echo gateway-tool-ok' } }] },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_sim_1', content: [{ type: 'text', text: 'gateway-tool-ok' }] }] },
  ];
  const res = await anthropic(sim, { model: 'agent', max_tokens: 100, messages, tools: [BASH] });
  const body = (await res.json()) as J;
  t.equal(body.stop_reason, 'end_turn');
  t.same(body.content, [{ type: 'text', text: 'Tool result received: gateway-tool-ok' }]);
  const long = 'y'.repeat(300);
  const res2 = await anthropic(sim, {
    model: 'agent', max_tokens: 100, tools: [BASH],
    messages: [...messages.slice(0, 2), { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_sim_1', content: long }] }],
  });
  t.equal(((await res2.json()) as { content: J[] }).content[0]?.text, `Tool result received: ${'y'.repeat(200)}`);
});

t.test('Claude Code shaped request: last text block, trailing system message', async (t) => {
  const sim = await startSim(t);
  const res = await anthropic(sim, {
    model: 'claude-opus-5-5', max_tokens: 128000,
    messages: [
      { role: 'user', content: [{ type: 'text', text: '<system-reminder>x</system-reminder>' }, { type: 'text', text: 'say hi' }] },
      { role: 'system', content: [{ type: 'text', text: '# Environment' }], output_config: { effort: 'medium' } },
    ],
  });
  t.equal(((await res.json()) as { content: J[] }).content[0]?.text, 'Hello from claude-opus-5-5! You said: say hi');
});

t.test('thinking signature round trip', async (t) => {
  const sim = await startSim(t);
  const model = 'claude-sonnet-5';
  const res = await anthropic(sim, { model, max_tokens: 100, thinking: { type: 'enabled', budget_tokens: 50 }, messages: msgs('why is the sky blue') });
  const body = (await res.json()) as { content: J[]; usage: J };
  const thinking = 'Thinking about: why is the sky blue';
  const sig = createHmac('sha256', SIM_SECRET).update(`${model}:${thinking}`).digest('base64');
  t.same(body.content[0], { type: 'thinking', thinking, signature: sig });
  t.equal(simSignature(model, thinking), sig);
  t.equal(body.usage.output_tokens, words(thinking) + words(`Hello from ${model}! You said: why is the sky blue`));

  const history = (block: J): J[] => [
    { role: 'user', content: 'why is the sky blue' },
    { role: 'assistant', content: [block, { type: 'text', text: 'ok' }] },
    { role: 'user', content: 'and the sea?' },
  ];
  const ok = await anthropic(sim, { model, max_tokens: 100, thinking: { type: 'adaptive' }, messages: history(body.content[0] as J) });
  t.equal(ok.status, 200, 'own signature accepted');
  const tampered = await anthropic(sim, { model, max_tokens: 100, messages: history({ ...body.content[0], signature: `${sig.slice(0, -4)}AAA=` }) });
  t.equal(tampered.status, 400);
  t.equal(tampered.headers.get('x-should-retry'), 'false');
  t.match(await tampered.json(), {
    type: 'error', error: { type: 'invalid_request_error', message: 'messages.1.content.0: Invalid signature in thinking block' },
  });
  const otherModel = await anthropic(sim, { model: 'claude-opus-5', max_tokens: 100, messages: history(body.content[0] as J) });
  t.equal(otherModel.status, 400, 'signature is bound to the model');
});

t.test('thinking streamed with signature_delta; redacted thinking', async (t) => {
  const sim = await startSim(t);
  const res = await anthropic(sim, { model: 'm', max_tokens: 100, stream: true, thinking: { type: 'adaptive' }, messages: msgs('hello') });
  const data = dataOf(parseSse(await res.text()));
  t.match(data[1], { type: 'content_block_start', index: 0, content_block: { type: 'thinking', thinking: '', signature: '' } });
  const deltas = data.filter((d) => d.type === 'content_block_delta' && d.index === 0).map((d) => d.delta as J);
  t.equal(deltas.filter((d) => d.type === 'thinking_delta').map((d) => d.thinking).join(''), 'Thinking about: hello');
  t.same(deltas.at(-1), { type: 'signature_delta', signature: simSignature('m', 'Thinking about: hello') });
  t.match(data.find((d) => d.type === 'content_block_start' && d.index === 1), { content_block: { type: 'text' } });

  const red = await anthropic(sim, { model: 'm;redacted=1', max_tokens: 100, thinking: { type: 'adaptive' }, messages: msgs('hello') });
  const block = ((await red.json()) as { content: J[] }).content[0] as J;
  t.equal(block.type, 'redacted_thinking');
  t.match(block.data, /^sim-redacted:[A-Za-z0-9+/=]+$/);
  const back = (b: J): J[] => [{ role: 'user', content: 'hello' }, { role: 'assistant', content: [b] }, { role: 'user', content: 'more' }];
  t.equal((await anthropic(sim, { model: 'm', max_tokens: 100, messages: back(block) })).status, 200);
  const bad = await anthropic(sim, { model: 'm', max_tokens: 100, messages: back({ type: 'redacted_thinking', data: 'EqkECkY' }) });
  t.equal(bad.status, 400);
  t.match(await bad.json(), { error: { message: /^messages\.1\.content\.0: / } });
});

t.test('cache options and count_tokens', async (t) => {
  const sim = await startSim(t);
  const res = await anthropic(sim, { model: 'demo;cache-read=100;cache-write=20', max_tokens: 100, stream: true, messages: msgs('x') });
  const data = dataOf(parseSse(await res.text()));
  t.match(data[0], { message: { usage: { cache_read_input_tokens: 100, cache_creation_input_tokens: 20 } } });
  t.match(data.at(-2), { usage: { cache_read_input_tokens: 100, cache_creation_input_tokens: 20 } });
  const ct = await post(sim, '/v1/messages/count_tokens?beta=true', { model: 'm', messages: msgs('count me') }, AH);
  t.same(await ct.json(), { input_tokens: tokensOf(msgs('count me')) });
});

t.test('auth, headers and bad input', async (t) => {
  const sim = await startSim(t);
  const body = { model: 'm', max_tokens: 10, messages: msgs('x') };
  const noKey = await post(sim, '/v1/messages', body, { 'anthropic-version': '2023-06-01' });
  t.equal(noKey.status, 401);
  t.match(await noKey.json(), { type: 'error', error: { type: 'authentication_error', message: String } });
  const noVersion = await post(sim, '/v1/messages', body, { 'x-api-key': 'k' });
  t.equal(noVersion.status, 400);
  t.match(await noVersion.json(), { type: 'error', error: { type: 'invalid_request_error', message: /anthropic-version/ } });
  const badJson = await post(sim, '/v1/messages', '{"model": "m",', AH);
  t.equal(badJson.status, 400);
  t.match(await badJson.json(), { type: 'error', error: { type: 'invalid_request_error' } });
  const noMax = await anthropic(sim, { model: 'm', messages: msgs('x') });
  t.equal(noMax.status, 400);
  t.match(await noMax.json(), { error: { message: /max_tokens/ } });
  const arr = await anthropic(sim, [1, 2]);
  t.equal(arr.status, 400);
  const bare = await post(sim, '/messages', body, AH);
  t.equal(bare.status, 200, 'path without /v1 accepted');
});
