// POST /v1/responses validation: status, OpenAI-style code and `param` of every rule, checked
// against the real gateway before any provider work (the simulated provider sees nothing).
import t from 'tap';
import { baseConfig, startGateway, TEST_KEY, type RunningGateway } from '../helpers/gateway.js';
import { upstreamCalls } from '../helpers/messages.js';

let gw: RunningGateway;
t.before(async () => {
  gw = await startGateway(baseConfig());
});
t.teardown(() => gw?.stop());

type Obj = Record<string, unknown>;

async function post(body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; body: Obj; headers: Headers }> {
  const r = await fetch(`${gw.url}/v1/responses`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: r.status, body: (await r.json()) as Obj, headers: r.headers };
}

const M = 'anthropic/claude-sonnet-5';
const ok = { model: M, input: 'hi' };
const call = { type: 'function_call', call_id: 'call_1', name: 'f', arguments: '{}' };

const CASES: [string, Obj, number, string, string | undefined, RegExp?][] = [
  ['input missing', { model: M }, 400, 'invalid_request', 'input'],
  ['input empty string', { model: M, input: '' }, 400, 'invalid_request', 'input'],
  ['input empty array', { model: M, input: [] }, 400, 'invalid_request', 'input'],
  ['input number', { model: M, input: 3 }, 400, 'invalid_request', 'input'],
  ['item_reference', { model: M, input: [{ type: 'item_reference', id: 'msg_1' }] }, 400, 'invalid_request', 'input', /providerOptions\.openai\.store/],
  ['unknown item type', { model: M, input: [{ type: 'computer_call_output', call_id: 'x' }] }, 400, 'invalid_request', 'input'],
  ['input_audio part', { model: M, input: [{ role: 'user', content: [{ type: 'input_audio', input_audio: { data: 'AAAA', format: 'wav' } }] }] }, 400, 'unsupported_parameter', 'input'],
  ['input_file that is not an image', { model: M, input: [{ role: 'user', content: [{ type: 'input_file', file_data: 'data:application/pdf;base64,AAAA' }] }] }, 400, 'invalid_request', 'input'],
  ['image detail unknown', { model: M, input: [{ role: 'user', content: [{ type: 'input_image', image_url: 'https://x.test/a.png', detail: 'ultra' }] }] }, 400, 'invalid_request', 'input[0].content[0].detail'],
  ['bad role', { model: M, input: [{ role: 'robot', content: 'x' }] }, 400, 'invalid_request', 'input[0].role'],
  ['output without its call', { model: M, input: [{ type: 'function_call_output', call_id: 'nope', output: 'x' }] }, 400, 'invalid_request', 'input'],
  ['tampered anthropic reasoning state', { model: M, input: [{ type: 'reasoning', summary: [], encrypted_content: 'anthropic-thinking:!!' }, { role: 'user', content: 'x' }] }, 400, 'invalid_request', 'input'],
  ['store true', { ...ok, store: true }, 400, 'unsupported_parameter', 'store'],
  ['previous_response_id', { ...ok, previous_response_id: 'resp_1' }, 400, 'unsupported_parameter', 'previous_response_id'],
  ['conversation', { ...ok, conversation: 'conv_1' }, 400, 'unsupported_parameter', 'conversation'],
  ['background true', { ...ok, background: true }, 400, 'unsupported_parameter', 'background'],
  ['prompt', { ...ok, prompt: { id: 'pmpt_1' } }, 400, 'unsupported_parameter', 'prompt'],
  ['moderation', { ...ok, moderation: { mode: 'strict' } }, 400, 'unsupported_parameter', 'moderation'],
  ['context_management', { ...ok, context_management: [{ type: 'compaction' }] }, 400, 'unsupported_parameter', 'context_management'],
  ['unknown parameter', { ...ok, frobnicate: 1 }, 400, 'invalid_request', 'frobnicate'],
  ['reasoning effort unknown', { ...ok, reasoning: { effort: 'extreme' } }, 400, 'invalid_request', 'reasoning'],
  ['reasoning summary unknown', { ...ok, reasoning: { summary: 'long' } }, 400, 'invalid_request', 'reasoning.summary'],
  ['json_schema without name', { ...ok, text: { format: { type: 'json_schema', schema: { type: 'object' } } } }, 400, 'invalid_request', 'text'],
  ['json_schema without schema', { ...ok, text: { format: { type: 'json_schema', name: 'x' } } }, 400, 'invalid_request', 'text'],
  ['max_output_tokens 0', { ...ok, max_output_tokens: 0 }, 400, 'invalid_request', 'max_output_tokens'],
  ['max_output_tokens fraction', { ...ok, max_output_tokens: 1.5 }, 400, 'invalid_request', 'max_output_tokens'],
  ['temperature out of range', { ...ok, temperature: 3 }, 400, 'invalid_request', 'temperature'],
  ['top_p out of range', { ...ok, top_p: 1.5 }, 400, 'invalid_request', 'top_p'],
  ['unknown tool type', { ...ok, tools: [{ type: 'teleport' }] }, 400, 'invalid_request', 'tools[0].type'],
  ['function tool without name', { ...ok, tools: [{ type: 'function', parameters: {} }] }, 400, 'invalid_request', 'tools[0].name'],
  ['duplicate tool names', { ...ok, tools: [{ type: 'function', name: 'a' }, { type: 'custom', name: 'a' }] }, 400, 'invalid_request', 'tools[1].name'],
  ['tool_choice names no tool', { ...ok, tools: [{ type: 'function', name: 'a' }], tool_choice: { type: 'function', name: 'b' } }, 400, 'invalid_request', 'tool_choice.name'],
  ['call_name blank', { ...ok, metadata: { call_name: ' ' } }, 400, 'invalid_call_name', 'metadata.call_name'],
  ['end_user_id too long', { ...ok, gateway: { end_user_id: 'x'.repeat(513) } }, 400, 'invalid_end_user_id', 'gateway.end_user_id'],
  ['unknown model', { ...ok, model: 'nope/nothing' }, 400, 'invalid_model', 'model'],
  ['tool_choice shell without the shell tool', { ...ok, tools: [{ type: 'function', name: 'a' }], tool_choice: { type: 'shell' } }, 400, 'invalid_request', 'tool_choice.type'],
];

t.test('rules: status, code and param', async (t) => {
  await gw.clearSim();
  for (const [name, body, status, code, param, message] of CASES) {
    const r = await post(body);
    const error = r.body.error as Obj;
    t.equal(r.status, status, `${name}: status (${JSON.stringify(r.body).slice(0, 200)})`);
    t.equal(error?.code, code, `${name}: code`);
    t.equal(error?.param, param, `${name}: param`);
    if (message) t.match(error?.message, message, `${name}: message`);
  }
  t.same(await upstreamCalls(gw), [], 'no provider work for any of them');
});

t.test('accepted: the fields Codex and the SDKs send, and the ignored hosted tools', async (t) => {
  const r = await post({
    model: M,
    input: [
      { type: 'message', role: 'developer', content: [{ type: 'input_text', text: 'You are a coding agent.' }] },
      { role: 'system', content: 'Be terse.' },
      { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'hi' }, { type: 'input_image', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=', detail: 'original' } }] },
      { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'hello', annotations: [] }], id: 'msg_1', status: 'completed' },
      { ...call, id: 'fc_1', status: 'completed' },
      { type: 'function_call_output', id: 'fco_1', call_id: 'call_1', output: [{ type: 'input_text', text: 'result' }] },
      { type: 'reasoning', id: 'rs_1', summary: [{ type: 'summary_text', text: 'thinking' }], content: null, encrypted_content: 'gAAAAOpaque==' },
      { role: 'user', content: 'go on' },
    ],
    tools: [
      { type: 'function', name: 'f', parameters: { type: 'object', properties: {} }, strict: false },
      { type: 'namespace', name: 'ns', description: 'd', tools: [{ type: 'function', name: 'g', parameters: { type: 'object', properties: {} } }] },
      { type: 'custom', name: 'apply_patch', format: { type: 'grammar', syntax: 'lark', definition: 'start: "x"' } },
      { type: 'web_search', external_web_access: false },
      { type: 'tool_search', execution: 'client', parameters: {} },
      { type: 'file_search', vector_store_ids: ['vs_1'] },
      { type: 'code_interpreter', container: { type: 'auto' } },
      { type: 'image_generation' },
      { type: 'mcp', server_label: 'x' },
      { type: 'computer_use_preview', display_width: 1, display_height: 1, environment: 'linux' },
      { type: 'web_search_preview_2025_03_11' },
    ],
    tool_choice: 'auto',
    parallel_tool_calls: true,
    reasoning: { effort: 'max', summary: 'detailed' },
    text: { format: { type: 'text' }, verbosity: 'low' },
    include: ['reasoning.encrypted_content'],
    store: false,
    previous_response_id: null,
    background: false,
    prompt_cache_key: 'thread-1',
    prompt_cache_retention: '24h',
    prompt_cache_options: { ttl: '1h' },
    safety_identifier: 'user-1',
    truncation: 'disabled',
    service_tier: 'auto',
    top_logprobs: 0,
    max_tool_calls: 3,
    stream_options: { include_obfuscation: false },
    client_metadata: { thread_id: 't' },
    metadata: { call_name: 'codex-turn', other: 'x' },
    session_id: 'sess-42',
    max_output_tokens: 2000,
    temperature: 1,
  });
  t.equal(r.status, 200, JSON.stringify(r.body).slice(0, 400));
  t.match(r.body, { status: 'completed', reasoning: { effort: 'xhigh', summary: 'detailed' }, store: false, service_tier: null, max_output_tokens: 2000 });
});

t.test('the stored-response routes answer 400', async (t) => {
  const routes: [string, string][] = [
    ['GET', '/v1/responses/resp_1'],
    ['DELETE', '/v1/responses/resp_1'],
    ['GET', '/v1/responses/resp_1/input_items'],
    ['POST', '/v1/responses/resp_1/cancel'],
    ['POST', '/v1/responses/compact'],
  ];
  for (const [method, path] of routes) {
    const r = await fetch(`${gw.url}${path}`, { method, headers: { authorization: `Bearer ${TEST_KEY}` } });
    t.equal(r.status, 400, `${method} ${path}`);
    t.equal(((await r.json()) as { error: { code: string } }).error.code, 'invalid_request');
  }
});

t.test('auth and content type', async (t) => {
  const noKey = await fetch(`${gw.url}/v1/responses`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(ok) });
  t.equal(noKey.status, 401);
  t.equal(((await noKey.json()) as { error: { code: string } }).error.code, 'unauthorized');
  const xKey = await fetch(`${gw.url}/v1/responses`, { method: 'POST', headers: { 'x-api-key': TEST_KEY, 'content-type': 'application/json' }, body: JSON.stringify(ok) });
  t.equal(xKey.status, 200);
  const text = await fetch(`${gw.url}/v1/responses`, { method: 'POST', headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'text/plain' }, body: JSON.stringify(ok) });
  t.equal(text.status, 400);
  const badJson = await post('{"input": ');
  t.equal(badJson.status, 400);
  t.equal((badJson.body.error as Obj).code, 'invalid_request');
});

t.test('a key scoped to chat.completions may use responses; one scoped to messages may not', async (t) => {
  const scoped = await startGateway(
    baseConfig({
      keys: [
        { id: 'chat', key: 'sk-chat-only-0000', org: 'acme', project: 'web', environment: 'production', scopes: ['chat.completions'] },
        { id: 'msg', key: 'sk-msg-only-0000', org: 'acme', project: 'web', environment: 'production', scopes: ['messages'] },
      ],
    }),
  );
  t.teardown(() => scoped.stop());
  const send = (key: string): Promise<Response> =>
    fetch(`${scoped.url}/v1/responses`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(ok) });
  t.equal((await send('sk-chat-only-0000')).status, 200);
  const denied = await send('sk-msg-only-0000');
  t.equal(denied.status, 403);
  t.equal(((await denied.json()) as { error: { code: string } }).error.code, 'endpoint_not_allowed');
});
