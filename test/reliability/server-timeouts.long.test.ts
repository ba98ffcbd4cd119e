// Header, body and drain timeouts on every connection, through real TCP against bin/gateway (issue
// #18, item 1): a refused request's trickled body is dropped only briefly, then the connection
// closes (it was drained forever, and 1,100 such connections starved the gateway); an accepted
// request's body gets a time bounded by its size and a minimum rate (408 in the envelope past it); a
// head that never ends gets 408; a fair slow upload and a long streaming response are not cut.
import t from 'tap';
import { baseConfig, messagesHeaders, startGateway, withModels, TEST_KEY, type RunningGateway } from '../helpers/gateway.js';
import { errorOf } from '../helpers/http.js';
import { RawConnection, within } from './raw-connection.js';

const connections = { headersTimeoutMs: 1000, bodyGraceMs: 600, bodyMinBytesPerSecond: 1000, refusedBodyDrainMs: 400 };
let gw: RunningGateway;
t.before(async () => {
  const config = withModels(baseConfig({ connections }), [
    { id: 'test/slow-stream', deployments: [{ provider: 'sim-anthropic', model: 'claude-slow;delay=150;deltas=16' }], pricing: { input: 1, output: 1 }, input: ['text'], maxOutputTokens: 1000 },
  ]);
  gw = await startGateway(config);
});
t.teardown(() => gw?.stop());

const host = (): string => `host: ${new URL(gw.url).host}`;
const headerLines = (headers: Record<string, string>): string[] => Object.entries(headers).map(([k, v]) => `${k}: ${v}`);
/** generous bounds: the configured times are well under a second; before the fix these never closed */
const BOUND_MS = 6000;

t.test('a refused (401) request trickling a small declared body: answered at once, then cut after the drain time', async (t) => {
  const c = new RawConnection(gw.url);
  c.head(['POST /v1/messages HTTP/1.1', host(), ...headerLines(messagesHeaders({ 'x-api-key': 'sk-wrong-key-000' })), 'content-length: 100000']);
  const stop = c.trickle('{', 50);
  const a = await c.answer();
  t.equal(a?.status, 401);
  t.equal(errorOf(a!.body).type, 'authentication_error');
  t.ok(await within(c.closed, BOUND_MS), 'the gateway closed the connection while the client was still trickling');
  stop();
});

t.test('a refused (401) request with a chunked body and Connection: close: the answer arrives, then the connection closes', async (t) => {
  const c = new RawConnection(gw.url);
  c.head(['POST /v1/messages HTTP/1.1', host(), ...headerLines(messagesHeaders({ 'x-api-key': 'sk-wrong-key-000' })), 'transfer-encoding: chunked', 'connection: close']);
  const stop = c.trickle('1\r\n \r\n', 50);
  const a = await c.answer();
  t.equal(a?.status, 401);
  t.equal(a?.headers.connection, 'close');
  t.ok(await within(c.closed, BOUND_MS), 'closed after a brief drain');
  stop();
});

t.test('an authenticated request whose body trickles below the minimum rate: 408 in the envelope, connection closed', async (t) => {
  const c = new RawConnection(gw.url);
  c.head(['POST /v1/messages HTTP/1.1', host(), ...headerLines(messagesHeaders()), 'content-length: 100000']);
  const stop = c.trickle(' ', 50); // 20 bytes a second, under 1,000
  const a = await c.answer();
  t.equal(a?.status, 408);
  const err = errorOf(a!.body);
  t.equal(err.type, 'invalid_request_error');
  t.match(err.message, /arrived too slowly/);
  t.match(a!.headers['request-id'], /^req_/, 'a request id');
  t.equal(err.request_id, a!.headers['request-id']);
  t.equal(a!.headers.connection, 'close');
  t.ok(await within(c.closed, BOUND_MS), 'closed (the client, still sending, sees it)');
  stop();
});

t.test('a head that never ends: 408 in the OpenAI-style envelope (the path is not a Messages one) with a request id', async (t) => {
  const c = new RawConnection(gw.url);
  c.write(`POST /v1/chat/completions HTTP/1.1\r\n${host()}\r\nauthorization: Bearer ${TEST_KEY}\r\n`);
  const a = await c.answer();
  t.equal(a?.status, 408);
  t.equal(errorOf(a!.body).code, 'request_timeout');
  t.match(a!.headers['x-request-id'] ?? a!.headers['request-id'] ?? '', /^req_/, 'a request id');
  // a client that goes on sending after the answer sees the connection closed
  const stop = c.trickle('x', 50);
  t.ok(await within(c.closed, BOUND_MS));
  stop();
});

t.test('a body at a fair rate that takes longer than the grace period is served (time grows with size)', async (t) => {
  const c = new RawConnection(gw.url);
  const body = Buffer.from(`{"model":"claude-opus-5","max_tokens":16,"messages":[{"role":"user","content":"hi"}]}${' '.repeat(2400)}`);
  c.head(['POST /v1/messages HTTP/1.1', host(), ...headerLines(messagesHeaders()), `content-length: ${body.length}`]);
  // 100 bytes every 50 ms (2,000 bytes a second, twice the minimum): about 1.2 s, twice the grace
  for (let off = 0; off < body.length; off += 100) {
    c.write(body.subarray(off, off + 100));
    await new Promise((r) => setTimeout(r, 50));
  }
  const a = await c.answer();
  t.equal(a?.status, 200, a?.body ?? 'no answer');
  c.destroy();
});

t.test('a streaming response longer than every request timeout is not cut', async (t) => {
  const res = await fetch(`${gw.url}/v1/messages`, {
    method: 'POST',
    headers: messagesHeaders(),
    body: JSON.stringify({ model: 'test/slow-stream', max_tokens: 64, stream: true, messages: [{ role: 'user', content: 'hi' }] }),
  });
  t.equal(res.status, 200);
  const text = await res.text(); // 16 deltas 150 ms apart: about 2.4 s, past the grace, drain and head times
  t.match(text, /event: message_stop/);
});

t.test('the gateway still serves new connections', async (t) => {
  const res = await fetch(`${gw.url}/api/hello`, { method: 'HEAD' });
  t.equal(res.status, 204);
});
