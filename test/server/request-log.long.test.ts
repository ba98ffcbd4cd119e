// The access log through bin/gateway: one `request` line per request, carrying what an operator needs
// to answer a bug report (path, status, error code and message, key id, requested and served model,
// provider and the upstream's request id, tokens, cost, gateway and upstream time), never a secret or
// a prompt; at `debug`, a line of stage timings.
import t from 'tap';
import { baseConfig, messagesHeaders, startGateway, TEST_KEY, type RunningGateway } from '../helpers/gateway.js';
import { rawRequest } from '../helpers/http.js';
import { ADMIN_KEY, startAdminGateway } from '../helpers/admin.js';

const PROMPT = 'a-secret-prompt-text-42';

async function requestLine(gw: RunningGateway, from: number): Promise<Record<string, unknown>> {
  for (let i = 0; i < 250; i++) {
    const line = gw.logs.slice(from).find((l) => l.msg === 'request');
    if (line) return line;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error('no request line');
}

t.test('info: one line per request with the fields an operator needs', async (t) => {
  const gw = await startGateway(baseConfig());
  t.teardown(() => gw.stop());

  let from = gw.logs.length;
  const ok = await rawRequest(`${gw.url}/v1/messages`, {
    headers: messagesHeaders(),
    body: JSON.stringify({ model: 'opus', max_tokens: 64, messages: [{ role: 'user', content: PROMPT }] }),
  });
  t.equal(ok.status, 200);
  const line = await requestLine(gw, from);
  t.match(line, {
    level: 30,
    method: 'POST',
    path: '/v1/messages',
    status: 200,
    keyId: 'full',
    modelRequested: 'opus',
    model: 'anthropic/claude-opus-5',
    provider: 'sim-anthropic',
    upstreamRequestId: ok.headers['request-id'],
    usage: { input: Number, output: Number },
    costUsd: Number,
    ms: Number,
    upstreamMs: Number,
    gatewayMs: Number,
  });
  t.ok((line.usage as { output: number }).output > 0, 'tokens are counted');
  t.ok((line.costUsd as number) > 0, 'the charged cost');
  t.ok(typeof line.upstreamRequestId === 'string' && (line.upstreamRequestId as string).length > 0, 'the upstream request id a client is shown');
  t.ok((line.upstreamMs as number) + (line.gatewayMs as number) <= (line.ms as number) + 1, 'gateway time and upstream time split the total');
  t.equal(line.errorCode, undefined);
  t.equal(gw.logs.slice(from).filter((l) => l.msg === 'request').length, 1, 'exactly one line');

  from = gw.logs.length;
  const bad = await rawRequest(`${gw.url}/v1/chat/completions`, {
    headers: { 'content-type': 'application/json', authorization: `Bearer ${TEST_KEY}` },
    body: JSON.stringify({ model: 'opus', messages: [{ role: 'user', content: PROMPT }], temperature: 'hot' }),
  });
  t.equal(bad.status, 400);
  const badLine = await requestLine(gw, from);
  t.match(badLine, { method: 'POST', path: '/v1/chat/completions', status: 400, keyId: 'full', errorCode: String, errorMessage: /temperature/ });

  from = gw.logs.length;
  const unauth = await rawRequest(`${gw.url}/v1/models`, { method: 'GET', headers: { 'x-api-key': 'sk-wrong-secret-999' } });
  t.equal(unauth.status, 401);
  const unauthLine = await requestLine(gw, from);
  t.match(unauthLine, { method: 'GET', path: '/v1/models', status: 401, errorCode: 'GW_ERR_AUTH_INVALID', errorMessage: String });

  from = gw.logs.length;
  const tokens = await rawRequest(`${gw.url}/v1/messages/count_tokens`, {
    headers: messagesHeaders(),
    body: JSON.stringify({ model: 'opus', messages: [{ role: 'user', content: PROMPT }] }),
  });
  t.equal(tokens.status, tokens.status >= 400 ? tokens.status : 200);
  t.match(await requestLine(gw, from), { path: '/v1/messages/count_tokens', status: tokens.status, keyId: 'full' }, 'count_tokens is logged too');

  const all = JSON.stringify(gw.logs) + gw.stderr.join('\n');
  t.notMatch(all, new RegExp(TEST_KEY), 'never the key');
  t.notMatch(all, /sk-wrong-secret-999/, 'never a presented secret');
  t.notMatch(all, new RegExp(PROMPT), 'never the prompt');
  t.notOk(gw.logs.some((l) => l.msg === 'stage timings'), 'no stage timings at info');
});

t.test('debug: the stage timings of each request', async (t) => {
  const gw = await startGateway(baseConfig({ logLevel: 'debug' }));
  t.teardown(() => gw.stop());
  const from = gw.logs.length;
  const ok = await rawRequest(`${gw.url}/v1/messages`, {
    headers: messagesHeaders(),
    body: JSON.stringify({ model: 'opus', max_tokens: 64, stream: true, messages: [{ role: 'user', content: PROMPT }] }),
  });
  t.equal(ok.status, 200);
  let timings: Record<string, unknown> | undefined;
  for (let i = 0; i < 250 && timings === undefined; i++) {
    timings = gw.logs.slice(from).find((l) => l.msg === 'stage timings');
    if (timings === undefined) await new Promise((r) => setTimeout(r, 20));
  }
  t.ok(timings, 'a stage timings line');
  const stageMs = timings!.stageMs as Record<string, number>;
  for (const name of ['parse-body', 'validate', 'route', 'reserve-credits', 'dispatch', 'integrity', 'settle']) {
    t.type(stageMs[name], 'number', `${name} is timed`);
  }
  t.notMatch(JSON.stringify(gw.logs), new RegExp(PROMPT), 'never the prompt, even at debug');
});

t.test('info: an admin route that answers an error logs its code', async (t) => {
  const admin = await startAdminGateway();
  t.teardown(() => admin.gw.stop());
  const { gw } = admin;

  let from = gw.logs.length;
  const invalid = await admin.call('POST', '/keys', { org: 'acme', scopes: ['messages', 42] });
  t.equal(invalid.status, 400);
  const line = await requestLine(gw, from);
  t.match(line, { method: 'POST', path: '/admin/v1/keys', status: 400, errorCode: 'GW_ERR_REQUEST_INVALID', errorMessage: String });

  from = gw.logs.length;
  const refused = await admin.call('GET', '/orgs', undefined, 'not-the-admin-key-000');
  t.equal(refused.status, 401);
  t.match(await requestLine(gw, from), { path: '/admin/v1/orgs', status: 401, errorCode: String });

  from = gw.logs.length;
  const ok = await admin.call('GET', '/orgs');
  t.equal(ok.status, 200);
  t.equal((await requestLine(gw, from)).errorCode, undefined, 'a success names no error');
  t.notMatch(JSON.stringify(gw.logs), new RegExp(ADMIN_KEY), 'never the admin key');
});
