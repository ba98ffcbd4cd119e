// POST /v1/messages validation through real HTTP against bin/gateway: one representative request
// per rule family (the validator's unit tests cover every rule). Each rejection has the Messages
// envelope and names the path; none reaches the provider, and none is charged.
import { request } from 'node:http';
import t from 'tap';
import { baseConfig, messagesHeaders, startGateway, TEST_KEY, type RunningGateway } from '../helpers/gateway.js';
import { rawRequest } from '../helpers/http.js';
import { countTokens, credits, expectError, fileStoreConfig, msg, post, upstreamCalls, type Reply } from '../helpers/messages.js';

const FAST = 'fast-mode-2026-02-01';
const TASK = 'task-budgets-2026-03-13';
const DIAG = 'cache-diagnosis-2026-04-07';
const CHAT_KEY = 'sk-test-chat-only-0000';

const { config, file } = fileStoreConfig(
  baseConfig({
    keys: [
      { id: 'full', key: TEST_KEY, org: 'acme', project: 'web', environment: 'production' },
      { id: 'chat', key: CHAT_KEY, org: 'acme', scopes: ['chat.completions'] },
    ],
  }),
);
let gw: RunningGateway;
t.before(async () => {
  gw = await startGateway(config);
});
t.teardown(() => gw?.stop());

const raw = (headers: Record<string, string | string[]>, body: string | Buffer = JSON.stringify(msg('opus')), query = ''): Promise<Reply> =>
  rawRequest(`${gw.url}/v1/messages${query}`, { headers, body }).then((r) => ({
    status: r.status,
    headers: new Headers(Object.entries(r.headers).flatMap(([k, v]) => (v === undefined ? [] : Array.isArray(v) ? v.map((x) => [k, x] as [string, string]) : [[k, v] as [string, string]]))),
    text: r.body,
  }));

interface Case {
  name: string;
  send: () => Promise<Reply>;
  status?: number;
  type?: string;
  contains: (string | RegExp)[];
  headers?: Record<string, string>;
}

/** a body rejection; `extra.headers` are response headers the answer must carry */
const bad = (name: string, body: unknown, contains: (string | RegExp)[], extra: Partial<Case> = {}): Case => ({ name, send: () => post(gw, body), contains, ...extra });

const MSG = msg('opus');
const cases: Case[] = [
  // unknown fields, wrong types: the exact path
  bad('unknown top-level field', { ...MSG, foo: 1 }, ['foo', 'unknown field']),
  bad('unknown block field', { ...MSG, messages: [{ role: 'user', content: [{ type: 'text', text: 'hi', bogus: true }] }] }, ['messages[0].content[0].bogus']),
  bad('max_tokens is a string (never coerced)', { ...MSG, max_tokens: '5' }, ['max_tokens']),
  bad('temperature is a string', { ...MSG, temperature: '0.5' }, ['temperature']),
  bad('stream is a string', { ...MSG, stream: 'true' }, ['stream']),
  bad('model missing is not auto-routing', { max_tokens: 5, messages: MSG.messages }, ['model', 'gateway-auto']),
  // the spec's "Unsupported (rejected)" list
  bad('container', { ...MSG, container: 'container_01' }, ['capability_rejected: container']),
  bad('inference_geo', { ...MSG, inference_geo: 'us' }, ['capability_rejected: inference_geo']),
  bad('mcp_servers', { ...MSG, mcp_servers: [{ type: 'url', url: 'https://mcp.example', name: 'x' }] }, ['capability_rejected: mcp_servers']),
  bad('mcp_toolset', { ...MSG, tools: [{ type: 'mcp_toolset', mcp_server_name: 'x' }] }, ['capability_rejected: tools[0].type']),
  bad('document block', { ...MSG, messages: [{ role: 'user', content: [{ type: 'document', source: { type: 'text', media_type: 'text/plain', data: 'x' } }] }] }, [
    'capability_rejected: messages[0].content[0].type',
  ]),
  bad('max_tokens 0 (prewarm)', { ...MSG, max_tokens: 0 }, ['capability_rejected: max_tokens']),
  bad('compaction edit', { ...MSG, context_management: { edits: [{ type: 'compact_20260112' }] } }, ['capability_rejected: context_management.edits[0].type']),
  bad('standalone code execution', { ...MSG, tools: [{ type: 'code_execution_20250825', name: 'code_execution' }] }, ['capability_rejected: tools[0].type']),
  // beta-gated fields without their beta: the beta named in Anthropic's words, x-should-retry: true
  bad('speed fast without its beta', { ...MSG, speed: 'fast' }, ['capability_rejected: speed', `Unexpected value(s) \`${FAST}\` for the \`anthropic-beta\` header`], {
    headers: { 'x-should-retry': 'true' },
  }),
  bad('task_budget without its beta', { ...MSG, output_config: { task_budget: { type: 'tokens', total: 20000 } } }, [
    'capability_rejected: output_config.task_budget',
    `Unexpected value(s) \`${TASK}\` for the \`anthropic-beta\` header`,
  ], { headers: { 'x-should-retry': 'true' } }),
  bad('diagnostics without its beta', { ...MSG, diagnostics: { previous_message_id: null } }, ['capability_rejected: diagnostics', `Unexpected value(s) \`${DIAG}\``], {
    headers: { 'x-should-retry': 'true' },
  }),
  // thinking
  bad('thinking budget below 1024', { ...MSG, max_tokens: 4096, thinking: { type: 'enabled', budget_tokens: 1000 } }, ['thinking.budget_tokens', '1024']),
  bad('thinking budget not below max_tokens', { ...MSG, max_tokens: 2048, thinking: { type: 'enabled', budget_tokens: 2048 } }, ['thinking.budget_tokens', 'max_tokens']),
  bad('effort with disabled thinking', { ...MSG, thinking: { type: 'disabled' }, output_config: { effort: 'high' } }, ['output_config.effort']),
  bad(
    'forced tool use with enabled thinking',
    { ...MSG, max_tokens: 4096, thinking: { type: 'enabled', budget_tokens: 1024 }, tools: [{ name: 'get_weather', input_schema: { type: 'object' } }], tool_choice: { type: 'any' } },
    ['tool_choice'],
  ),
  // anthropic-version
  {
    name: 'anthropic-version missing',
    send: () => post(gw, MSG, { rawHeaders: { 'content-type': 'application/json', 'x-api-key': TEST_KEY } }),
    contains: ['anthropic-version', '`2023-06-01`', '`2026-10-21`'],
  },
  {
    name: 'anthropic-version wrong',
    send: () => post(gw, MSG, { headers: { 'anthropic-version': '2024-01-01' } }),
    contains: ['anthropic-version', '2024-01-01', '`2023-06-01`', '`2026-10-21`'],
  },
  // singleton headers
  { name: 'anthropic-version twice', send: () => raw({ ...messagesHeaders(), 'anthropic-version': ['2023-06-01', '2023-06-01'] }), contains: ['anthropic-version', 'more than once'] },
  { name: 'anthropic-beta twice', send: () => raw({ ...messagesHeaders(), 'anthropic-beta': [FAST, TASK] }), contains: ['anthropic-beta', 'more than once'] },
  { name: 'content-type twice', send: () => raw({ ...messagesHeaders(), 'content-type': ['application/json', 'application/json'] }), contains: ['content-type', 'more than once'] },
  {
    name: 'session header twice',
    send: () => raw({ ...messagesHeaders(), 'x-claude-code-session-id': ['a', 'b'] }),
    contains: ['x-claude-code-session-id', 'more than once'],
  },
  { name: 'credential header twice', send: () => raw({ ...messagesHeaders(), 'x-api-key': [TEST_KEY, TEST_KEY] }), status: 401, type: 'authentication_error', contains: ['more than once'] },
  // session header
  { name: 'session header blank', send: () => post(gw, MSG, { headers: { 'x-claude-code-session-id': '   ' } }), contains: ['x-claude-code-session-id', '1 to 256'] },
  { name: 'session header too long', send: () => post(gw, MSG, { headers: { 'x-claude-code-session-id': 's'.repeat(257) } }), contains: ['x-claude-code-session-id', '1 to 256'] },
  // query
  { name: '?beta=false', send: () => post(gw, MSG, { query: '?beta=false' }), contains: ['beta', '`true`'] },
  { name: '?foo=1', send: () => post(gw, MSG, { query: '?foo=1' }), contains: ['foo', 'unknown query parameter'] },
  { name: '?beta=true&beta=true', send: () => post(gw, MSG, { query: '?beta=true&beta=true' }), contains: ['beta', 'more than once'] },
  // content-type
  { name: 'content-type missing', send: () => raw({ 'anthropic-version': '2023-06-01', 'x-api-key': TEST_KEY }), contains: ['content-type', 'required'] },
  { name: 'content-type text/plain', send: () => post(gw, MSG, { headers: { 'content-type': 'text/plain' } }), contains: ['content-type', 'application/json'] },
  // strict JSON, with the path of the problem
  { name: 'duplicate key', send: () => post(gw, null, { body: '{"model":"opus","max_tokens":5,"max_tokens":6,"messages":[{"role":"user","content":"hi"}]}' }), contains: ['not valid JSON', 'max_tokens', 'duplicate'] },
  { name: 'NaN', send: () => post(gw, null, { body: '{"model":"opus","max_tokens":5,"temperature":NaN,"messages":[{"role":"user","content":"hi"}]}' }), contains: ['not valid JSON', 'temperature'] },
  { name: 'trailing garbage', send: () => post(gw, null, { body: '{"model":"opus","max_tokens":5,"messages":[{"role":"user","content":"hi"}]} x' }), contains: ['not valid JSON'] },
  {
    name: 'invalid UTF-8',
    send: () =>
      post(gw, null, {
        body: Buffer.concat([Buffer.from('{"model":"opus","max_tokens":5,"messages":[{"role":"user","content":"h'), Buffer.from([0xff, 0xfe]), Buffer.from('i"}]}')]),
      }),
    contains: ['not valid JSON', 'messages[0].content', 'UTF-8'],
  },
  { name: 'empty body', send: () => post(gw, null, { body: '' }), contains: ['empty'] },
  // auth and scope come before the body
  { name: 'no key', send: () => post(gw, MSG, { rawHeaders: { 'content-type': 'application/json', 'anthropic-version': '2023-06-01' } }), status: 401, type: 'authentication_error', contains: ['API key'] },
  { name: 'unknown key', send: () => post(gw, MSG, { headers: { 'x-api-key': 'sk-nope' } }), status: 401, type: 'authentication_error', contains: ['Invalid API key'] },
  {
    name: 'key without the messages scope',
    send: () => post(gw, MSG, { headers: { 'x-api-key': CHAT_KEY } }),
    status: 403,
    type: 'permission_error',
    contains: ['messages'],
  },
];

t.test('every rejection: envelope, path, no provider call', async (t) => {
  for (const c of cases) {
    await t.test(c.name, async (t) => {
      await gw.clearSim();
      const r = await c.send();
      const body = expectError(t, r, c.status ?? 400, c.type ?? 'invalid_request_error');
      for (const want of c.contains) {
        if (typeof want === 'string') t.ok(body.error.message.includes(want), `message names ${JSON.stringify(want)}: ${body.error.message}`);
        else t.match(body.error.message, want);
      }
      for (const [k, v] of Object.entries(c.headers ?? {})) t.equal(r.headers.get(k), v, `header ${k}`);
      t.same(await upstreamCalls(gw), [], 'the provider was not called');
    });
  }
});

t.test('beta-gated rejections say x-should-retry: true; other 400s say false', async (t) => {
  const gated = await post(gw, { ...MSG, speed: 'fast' });
  t.equal(gated.headers.get('x-should-retry'), 'true');
  const plain = await post(gw, { ...MSG, foo: 1 });
  t.equal(plain.headers.get('x-should-retry'), 'false');
});

/** Stream a body of `total` bytes in 1 MiB pieces (chunked, no content-length) until the answer comes. */
function streamHuge(total: number, headers: Record<string, string>): Promise<{ status: number; body: string; written: number; headers: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    let written = 0;
    let answered = false;
    const req = request(`${gw.url}/v1/messages`, { method: 'POST', headers }, (res) => {
      answered = true;
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8'), written, headers: res.headers }));
      res.on('error', reject);
    });
    req.on('error', (err) => {
      if (!answered) reject(err);
    });
    const piece = Buffer.alloc(1024 * 1024, 0x20);
    req.write('{"model":"opus","max_tokens":5,"messages":[{"role":"user","content":"');
    const pump = (): void => {
      while (!answered && written < total) {
        written += piece.length;
        if (!req.write(piece)) {
          req.once('drain', pump);
          return;
        }
      }
      if (!answered && written >= total) req.end('"}]}');
    };
    pump();
  });
}

t.test('413 for a body over 32 MiB, answered before the body was read', async (t) => {
  await gw.clearSim();
  const r = await streamHuge(96 * 1024 * 1024, { 'content-type': 'application/json', 'anthropic-version': '2023-06-01', 'x-api-key': TEST_KEY });
  t.equal(r.status, 413);
  const body = JSON.parse(r.body) as { type: string; error: { type: string; message: string }; request_id: string };
  t.equal(body.error.type, 'request_too_large');
  t.equal(r.headers['request-id'], body.request_id);
  t.ok(r.written < 96 * 1024 * 1024, `answered after ${r.written} bytes, before the whole body was sent`);
  t.same(await upstreamCalls(gw), [], 'the provider was not called');
});

t.test('413 at once for a declared content-length over 32 MiB', async (t) => {
  const r = await new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = request(`${gw.url}/v1/messages`, { method: 'POST', headers: { ...messagesHeaders(), 'content-length': String(32 * 1024 * 1024 + 1) } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.write('{'); // nothing else: the answer must not wait for the body
  });
  t.equal(r.status, 413);
  t.match(JSON.parse(r.body), { type: 'error', error: { type: 'request_too_large' } });
});

t.test('count_tokens applies the same header, query and body rules', async (t) => {
  await gw.clearSim();
  expectError(t, await countTokens(gw, { model: 'opus', messages: MSG.messages }, { query: '?beta=false' }), 400, 'invalid_request_error', 'beta');
  expectError(t, await countTokens(gw, { model: 'opus', messages: MSG.messages, foo: 1 }), 400, 'invalid_request_error', 'foo');
  t.same(await upstreamCalls(gw), []);
});

t.test('nothing rejected was charged or held', async (t) => {
  const [acme] = await credits(file, 'show', '--org', 'acme');
  t.match(acme, { org: 'acme', balanceUsd: 100, reservedUnits: 0, spentUnits: 0 });
  t.same(await credits(file, 'usage'), [], 'no usage record: nothing was reserved');
});

t.test('accepted variants (after the billing check: these reach the provider)', async (t) => {
  const ok = async (name: string, r: Reply): Promise<void> => {
    t.equal(r.status, 200, `${name}: ${r.text.slice(0, 300)}`);
    t.match(JSON.parse(r.text), { type: 'message', role: 'assistant', model: 'opus' }, name);
    t.ok(r.headers.get('request-id'), `${name}: request-id`);
  };
  await ok('anthropic-version 2026-10-21 (configured)', await post(gw, MSG, { headers: { 'anthropic-version': '2026-10-21' } }));
  await ok('?beta=true', await post(gw, MSG, { query: '?beta=true' }));
  await ok('content-type with charset', await post(gw, MSG, { headers: { 'content-type': 'application/json; charset=utf-8' } }));
  await ok('session header of 256 characters, padded', await post(gw, MSG, { headers: { 'x-claude-code-session-id': ` ${'s'.repeat(256)} ` } }));
  await ok('Authorization: Bearer', await post(gw, MSG, { rawHeaders: { 'content-type': 'application/json', 'anthropic-version': '2023-06-01', authorization: `Bearer ${TEST_KEY}` } }));
  await ok('speed fast with its beta', await post(gw, { ...MSG, speed: 'fast' }, { headers: { 'anthropic-beta': FAST } }));
  await ok('max_tokens 1, plain string content', await post(gw, { ...MSG, max_tokens: 1 }));
});
