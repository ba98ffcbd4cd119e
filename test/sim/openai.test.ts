// The simulated provider's demo model on the OpenAI protocols: Chat Completions, Responses, transcriptions.
import t from 'tap';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { simSignature } from '../../lib/sim/demo.js';
import { chat, dataOf, msgs, OH, parseSse, post, responses, startSim, tokensOf, transcribe, words, type J } from './util.js';

const WEATHER = {
  type: 'function',
  function: {
    name: 'get_weather',
    parameters: { type: 'object', properties: { city: { type: 'string' }, days: { type: 'integer' }, units: { enum: ['c', 'f'] } }, required: ['city', 'days'] },
  },
};

t.test('chat: JSON text answer', async (t) => {
  const sim = await startSim(t);
  const messages = [{ role: 'system', content: 'be nice' }, ...msgs('hello')];
  const res = await chat(sim, { model: 'gpt-5', messages });
  t.equal(res.status, 200);
  t.match(res.headers.get('x-request-id'), /^req_sim_/);
  const body = (await res.json()) as J;
  const text = 'Hello from gpt-5! You said: hello';
  t.match(body, { id: 'chatcmpl-sim-1', object: 'chat.completion', model: 'gpt-5', created: Number });
  t.match(body.choices, [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }]);
  t.match(body.usage, {
    prompt_tokens: tokensOf(messages), completion_tokens: words(text), total_tokens: tokensOf(messages) + words(text),
    prompt_tokens_details: { cached_tokens: 0 }, completion_tokens_details: { reasoning_tokens: 0 },
  });
  const bare = await post(sim, '/chat/completions', { model: 'gpt-5', messages }, OH);
  t.equal(bare.status, 200, 'path without /v1 accepted');
});

t.test('chat: SSE with and without include_usage', async (t) => {
  const sim = await startSim(t);
  const plain = parseSse(await (await chat(sim, { model: 'gpt-5', stream: true, messages: msgs('hi') })).text());
  t.equal(plain.at(-1)?.data, '[DONE]');
  t.notOk(plain.some((e) => e.event !== undefined), 'no event: lines');
  const chunks = dataOf(plain);
  t.ok(chunks.every((c) => !('usage' in c)), 'no usage without include_usage');
  t.match(chunks[0], { object: 'chat.completion.chunk', choices: [{ delta: { role: 'assistant', content: '' } }] });
  t.equal(chunks.map((c) => ((c.choices as J[])[0]?.delta as J).content ?? '').join(''), 'Hello from gpt-5! You said: hi');
  t.match(chunks.at(-1), { choices: [{ delta: {}, finish_reason: 'stop' }] });

  const res = await chat(sim, { model: 'gpt-5;deltas=2', stream: true, stream_options: { include_usage: true }, messages: msgs('hi') });
  t.equal(res.headers.get('content-type'), 'text/event-stream');
  const withUsage = dataOf(parseSse(await res.text()));
  t.equal(withUsage.length, 5, 'role, 2 deltas, finish, usage');
  t.ok(withUsage.slice(0, -1).every((c) => c.usage === null));
  t.match(withUsage.at(-1), { choices: [], usage: { prompt_tokens: tokensOf(msgs('hi')), completion_tokens: words('Hello from gpt-5;deltas=2! You said: hi') } });
});

t.test('chat: tool call and tool result', async (t) => {
  const sim = await startSim(t);
  const res = await chat(sim, { model: 'gpt-5', messages: msgs('weather?'), tools: [WEATHER] });
  const body = (await res.json()) as { choices: J[] };
  t.match(body.choices[0], {
    finish_reason: 'tool_calls',
    message: { content: null, tool_calls: [{ id: 'call_sim_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"x","days":1}' } }] },
  });
  const stream = dataOf(parseSse(await (await chat(sim, { model: 'gpt-5', stream: true, messages: msgs('x'), tools: [WEATHER] })).text()));
  const calls = stream.flatMap((c) => (((c.choices as J[])[0]?.delta as J | undefined)?.tool_calls as J[] | undefined) ?? []);
  t.match(calls[0], { index: 0, id: 'call_sim_2', type: 'function', function: { name: 'get_weather', arguments: '' } });
  t.same(JSON.parse(calls.map((c) => (c.function as J).arguments).join('')), { city: 'x', days: 1 });
  t.match(stream.at(-1), { choices: [{ finish_reason: 'tool_calls' }] });

  const follow = await chat(sim, {
    model: 'gpt-5', tools: [WEATHER],
    messages: [
      ...msgs('weather?'),
      { role: 'assistant', content: null, tool_calls: [{ id: 'call_sim_1', type: 'function', function: { name: 'get_weather', arguments: '{}' } }] },
      { role: 'tool', tool_call_id: 'call_sim_1', content: 'sunny, 21C' },
    ],
  });
  t.match(await follow.json(), { choices: [{ message: { content: 'Tool result received: sunny, 21C' }, finish_reason: 'stop' }] });
});

t.test('chat: reasoning tokens and cached tokens', async (t) => {
  const sim = await startSim(t);
  const res = await chat(sim, { model: 'o-sim;cache-read=30', reasoning_effort: 'low', messages: msgs('think') });
  const usage = ((await res.json()) as { usage: J }).usage;
  const reasoning = words('Thinking about: think');
  t.match(usage, {
    prompt_tokens: tokensOf(msgs('think')) + 30, prompt_tokens_details: { cached_tokens: 30 },
    completion_tokens: reasoning + words('Hello from o-sim;cache-read=30! You said: think'),
    completion_tokens_details: { reasoning_tokens: reasoning },
  });
});

t.test('responses: JSON and SSE event sequence', async (t) => {
  const sim = await startSim(t);
  const res = await responses(sim, { model: 'gpt-5', input: 'hello' });
  const body = (await res.json()) as J;
  t.match(body, { id: 'resp_sim_1', object: 'response', status: 'completed', model: 'gpt-5' });
  t.match(body.output, [{ type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'Hello from gpt-5! You said: hello' }] }]);
  t.match(body.usage, { input_tokens: tokensOf('hello'), output_tokens: 6, total_tokens: tokensOf('hello') + 6, output_tokens_details: { reasoning_tokens: 0 } });

  const input = [{ type: 'message', role: 'developer', content: [{ type: 'input_text', text: 'sys' }] }, { role: 'user', content: [{ type: 'input_text', text: 'yo' }] }];
  const sse = parseSse(await (await responses(sim, { model: 'gpt-5;deltas=2', stream: true, input })).text());
  const data = dataOf(sse);
  for (const e of sse) t.equal(e.event, (JSON.parse(e.data) as J).type);
  t.same(data.map((d) => d.type), [
    'response.created', 'response.in_progress', 'response.output_item.added', 'response.content_part.added',
    'response.output_text.delta', 'response.output_text.delta', 'response.output_text.done', 'response.content_part.done',
    'response.output_item.done', 'response.completed',
  ]);
  t.same(data.map((d) => d.sequence_number), data.map((_, i) => i));
  const deltas = data.filter((d) => d.type === 'response.output_text.delta').map((d) => d.delta).join('');
  t.equal(deltas, 'Hello from gpt-5;deltas=2! You said: yo');
  t.match(data.at(-1), { response: { status: 'completed', usage: { input_tokens: tokensOf(input) } } });
});

t.test('responses: function call and its output', async (t) => {
  const sim = await startSim(t);
  const tools = [{ type: 'function', name: 'exec_command', strict: false, parameters: { type: 'object', properties: { cmd: { type: 'string' }, justification: { type: 'string' } }, required: ['cmd'] } }];
  const body = (await (await responses(sim, { model: 'gpt-5', input: 'run', tools })).json()) as { output: J[] };
  t.match(body.output, [{ id: 'fc_sim_1', type: 'function_call', status: 'completed', call_id: 'call_sim_1', name: 'exec_command', arguments: '{"cmd":"echo gateway-tool-ok"}' }]);
  const sse = dataOf(parseSse(await (await responses(sim, { model: 'gpt-5', input: 'run', tools, stream: true })).text()));
  t.same(sse.map((d) => d.type).slice(2, 4), ['response.output_item.added', 'response.function_call_arguments.delta']);
  t.match(sse.find((d) => d.type === 'response.function_call_arguments.done'), { arguments: '{"cmd":"echo gateway-tool-ok"}' });
  const follow = await responses(sim, {
    model: 'gpt-5', tools,
    input: [{ role: 'user', content: 'run' }, body.output[0], { type: 'function_call_output', call_id: 'call_sim_1', output: 'gateway-tool-ok\n' }],
  });
  t.match(await follow.json(), { output: [{ type: 'message', content: [{ text: 'Tool result received: gateway-tool-ok\n' }] }] });
});

t.test('responses: reasoning with encrypted_content round trip', async (t) => {
  const sim = await startSim(t);
  const model = 'gpt-5-codex';
  const req = { model, input: 'plan it', reasoning: { effort: 'medium', summary: 'auto' }, include: ['reasoning.encrypted_content'], store: false };
  const body = (await (await responses(sim, req)).json()) as { output: J[]; usage: J };
  const summary = 'Thinking about: plan it';
  t.match(body.output[0], { id: 'rs_sim_1', type: 'reasoning', encrypted_content: simSignature(model, summary), summary: [{ type: 'summary_text', text: summary }] });
  t.match(body.usage, { output_tokens_details: { reasoning_tokens: words(summary) } });
  const noInclude = (await (await responses(sim, { ...req, include: [] })).json()) as { output: J[] };
  t.notOk('encrypted_content' in (noInclude.output[0] as J));

  const next = (item: J): J => ({ ...req, input: [{ role: 'user', content: 'plan it' }, item, body.output[1], { role: 'user', content: 'go on' }] });
  t.equal((await responses(sim, next(body.output[0] as J))).status, 200, 'own encrypted_content accepted');
  const bad = await responses(sim, next({ ...body.output[0], encrypted_content: 'gAAAAProbeEncryptedReasoning==' }));
  t.equal(bad.status, 400);
  t.match(await bad.json(), { error: { type: 'invalid_request_error', code: 'invalid_encrypted_content', param: 'input[1].encrypted_content' } });

  const sse = dataOf(parseSse(await (await responses(sim, { ...req, stream: true })).text()));
  t.same(sse.slice(2, 5).map((d) => d.type), ['response.output_item.added', 'response.reasoning_summary_part.added', 'response.reasoning_summary_text.delta']);
  t.match(sse.find((d) => d.type === 'response.reasoning_summary_text.done'), { text: summary });
});

t.test('transcriptions: formats and streaming', async (t) => {
  const sim = await startSim(t);
  const res = await transcribe(sim, { model: 'gpt-4o-transcribe' }, 2500, 'clip.wav');
  const text = 'Transcribed 2500 bytes of clip.wav';
  t.same(await res.json(), { text, usage: { type: 'tokens', input_tokens: 3, input_token_details: { text_tokens: 0, audio_tokens: 3 }, output_tokens: 5, total_tokens: 8 } });
  const plain = await transcribe(sim, { model: 'whisper-1', response_format: 'text' }, 10, 'a.mp3');
  t.match(plain.headers.get('content-type'), /^text\/plain/);
  t.equal(await plain.text(), 'Transcribed 10 bytes of a.mp3');
  const verbose = await transcribe(sim, { model: 'whisper-1', response_format: 'verbose_json' });
  t.match(await verbose.json(), { task: 'transcribe', text: String, segments: Array });
  t.match(await (await transcribe(sim, { model: 'whisper-1', response_format: 'srt' })).text(), /^1\n00:00:00,000 --> /);
  const badFormat = await transcribe(sim, { model: 'whisper-1', response_format: 'mp3' });
  t.equal(badFormat.status, 400);

  const stream = await transcribe(sim, { model: 'gpt-4o-transcribe', stream: 'true' }, 2500, 'clip.wav');
  t.equal(stream.headers.get('content-type'), 'text/event-stream');
  const events = parseSse(await stream.text());
  t.equal(events.at(-1)?.data, '[DONE]');
  const data = dataOf(events);
  t.equal(data.filter((d) => d.type === 'transcript.text.delta').map((d) => d.delta).join(''), text);
  t.match(data.at(-1), { type: 'transcript.text.done', text, usage: { type: 'tokens', output_tokens: 5 } });

  const noFile = await fetch(`${sim.url}/v1/audio/transcriptions`, { method: 'POST', headers: { authorization: 'Bearer k' }, body: (() => { const f = new FormData(); f.append('model', 'whisper-1'); return f; })() });
  t.equal(noFile.status, 400);
  t.match(await noFile.json(), { error: { param: 'file' } });
  const notMultipart = await post(sim, '/v1/audio/transcriptions', { model: 'whisper-1' }, OH);
  t.equal(notMultipart.status, 400);
  t.match(await notMultipart.json(), { error: { message: /multipart/ } });
});

t.test('transcriptions: sidecar text from fixtures/audio', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'sim-root-'));
  mkdirSync(join(dir, 'fixtures', 'audio'), { recursive: true });
  writeFileSync(join(dir, 'fixtures', 'audio', 'hello.txt'), 'Hello from the sidecar.\n');
  const saved = process.env.GATEWAY_ROOT;
  process.env.GATEWAY_ROOT = dir;
  t.teardown(() => {
    if (saved === undefined) delete process.env.GATEWAY_ROOT;
    else process.env.GATEWAY_ROOT = saved;
    rmSync(dir, { recursive: true, force: true });
  });
  const sim = await startSim(t);
  const res = await transcribe(sim, { model: 'whisper-1' }, 100, 'hello.wav');
  t.match(await res.json(), { text: 'Hello from the sidecar.', usage: { output_tokens: 4 } });
});

t.test('auth and bad input (OpenAI envelopes)', async (t) => {
  const sim = await startSim(t);
  for (const path of ['/v1/chat/completions', '/v1/responses', '/v1/audio/transcriptions']) {
    const res = await post(sim, path, { model: 'gpt-5' }, { 'content-type': 'application/json' });
    t.equal(res.status, 401, path);
    t.match(await res.json(), { error: { message: /API key/, type: 'invalid_request_error' } });
  }
  const badJson = await post(sim, '/v1/chat/completions', '{nope', OH);
  t.equal(badJson.status, 400);
  t.match(await badJson.json(), { error: { type: 'invalid_request_error', message: /parse the JSON/ } });
  const noInput = await responses(sim, { model: 'gpt-5' });
  t.equal(noInput.status, 400);
  t.match(await noInput.json(), { error: { param: 'input' } });
  const empty = await chat(sim, { model: 'gpt-5', messages: [] });
  t.equal(empty.status, 400);
  const unknown = await post(sim, '/v1/embeddings', { model: 'x' }, OH);
  t.equal(unknown.status, 404);
});
