// Answers outside the request's own chain, through real TCP against bin/gateway (issue #18, item 7):
// Node's own 431/400/408 (clientError) come in the gateway's envelope with a request id, by the path
// when it can be read (a Messages path gets the Messages envelope) and OpenAI-style otherwise;
// targets that are not a plain path, and a missing or repeated Host, are refused with 400 before any
// hook; an early 401 to a large upload sent with `Connection: close` reaches the client.
import t from 'tap';
import { baseConfig, messagesHeaders, startGateway, type RunningGateway } from '../helpers/gateway.js';
import { errorOf } from '../helpers/http.js';
import { RawConnection, type RawAnswer } from './raw-connection.js';

let gw: RunningGateway;
t.before(async () => {
  gw = await startGateway(baseConfig());
});
t.teardown(() => gw?.stop());

const MiB = 1024 * 1024;
const host = (): string => `host: ${new URL(gw.url).host}`;
const lines = (headers: Record<string, string>): string[] => Object.entries(headers).map(([k, v]) => `${k}: ${v}`);
const body = JSON.stringify({ model: 'claude-opus-5', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] });

/** send raw bytes on a new connection; the first answer */
async function send(raw: string | Buffer): Promise<RawAnswer | null> {
  const c = new RawConnection(gw.url);
  c.write(raw);
  const a = await c.answer();
  c.destroy();
  return a;
}

function messagesHead(target: string, extra: string[] = []): string {
  return `${[`POST ${target} HTTP/1.1`, ...extra, ...lines(messagesHeaders()), `content-length: ${Buffer.byteLength(body)}`].join('\r\n')}\r\n\r\n${body}`;
}

t.test('headers over the limit: 431 in the Messages envelope on a Messages path, OpenAI-style elsewhere, with a request id', async (t) => {
  const big = `x-padding: ${'a'.repeat(20 * 1024)}`;
  const a = await send(messagesHead('/v1/messages', [host(), big]));
  t.equal(a?.status, 431);
  const err = errorOf(a!.body);
  t.equal(err.type, 'invalid_request_error');
  t.match(a!.headers['request-id'], /^req_/);
  t.equal(err.request_id, a!.headers['request-id']);
  t.equal(a!.headers.connection, 'close');
  const o = await send(`POST /v1/chat/completions HTTP/1.1\r\n${host()}\r\n${big}\r\n\r\n`);
  t.equal(o?.status, 431);
  t.equal(errorOf(o!.body).code, 'request_headers_too_large');
});

t.test('bytes that are not HTTP: 400 in the OpenAI-style envelope with a request id', async (t) => {
  const a = await send('HELLO THERE\r\n\r\n');
  t.equal(a?.status, 400);
  t.equal(errorOf(a!.body).code, 'invalid_request');
  t.match(errorOf(a!.body).message, /not valid HTTP/);
  t.ok(Object.entries(a!.headers).some(([k, v]) => k.endsWith('request-id') && v.startsWith('req_')), 'a request id header');
});

t.test('a malformed chunked body on /v1/messages: 400 in the Messages envelope', async (t) => {
  const head = [`POST /v1/messages HTTP/1.1`, host(), ...lines(messagesHeaders()), 'transfer-encoding: chunked'].join('\r\n');
  const a = await send(`${head}\r\n\r\nzz-not-a-size\r\n`);
  t.equal(a?.status, 400);
  t.equal(errorOf(a!.body).type, 'invalid_request_error');
  t.match(a!.headers['request-id'], /^req_/);
});

t.test('targets that are not a plain path are refused with 400, never served as the path', async (t) => {
  await gw.clearSim();
  for (const target of ['//evil.example/v1/messages', 'http://evil.example/v1/messages', `http://${new URL(gw.url).host}/v1/messages`]) {
    const a = await send(messagesHead(target, [host()]));
    t.equal(a?.status, 400, target);
    const err = errorOf(a!.body);
    t.equal(err.type, 'invalid_request_error', `${target}: Messages envelope`);
    t.match(err.message, /is not a path/);
    t.match(a!.headers['request-id'], /^req_/);
  }
  t.same(await gw.simRequests(), [], 'nothing reached a provider');
  const ok = await send(messagesHead('/v1/messages', [host()]));
  t.equal(ok?.status, 200, 'the plain path is served');
});

t.test('two Host headers, or none in HTTP/1.1: 400 in the envelope (RFC 9112)', async (t) => {
  const two = await send(messagesHead('/v1/messages', [host(), 'host: evil.example']));
  t.equal(two?.status, 400);
  t.equal(errorOf(two!.body).param, undefined, 'the Messages envelope has no param');
  t.match(errorOf(two!.body).message, /^host: the header appears more than once/);
  const none = await send(messagesHead('/v1/messages'));
  t.equal(none?.status, 400);
  t.match(errorOf(none!.body).message, /^host: the header is required/);
  t.match(none!.headers['request-id'], /^req_/);
  const chat = await send(`GET /v1/models HTTP/1.1\r\n${host()}\r\nhost: other\r\n\r\n`);
  t.equal(chat?.status, 400);
  t.equal(errorOf(chat!.body).code, 'invalid_request');
  t.equal(errorOf(chat!.body).param, 'host');
});

t.test('an early 401 to a large upload sent with Connection: close reaches the client, without a reset while it sends', async (t) => {
  const c = new RawConnection(gw.url);
  c.head(['POST /v1/messages HTTP/1.1', host(), ...lines(messagesHeaders({ 'x-api-key': 'sk-wrong-key-000' })), `content-length: ${64 * MiB}`, 'connection: close']);
  const block = Buffer.alloc(256 * 1024, 0x20);
  let sentAfter = 0;
  let answer: RawAnswer | null | undefined;
  void c.answer().then((a) => (answer = a));
  // send at full speed until the answer is in, then 4 MiB more, then end our side
  while (!c.isClosed && (answer === undefined || sentAfter < 4 * MiB)) {
    if (answer !== undefined) sentAfter += block.length;
    if (!c.socket.write(block)) await new Promise((r) => c.socket.once('drain', r).once('close', r));
  }
  c.socket.end();
  const closed = await c.closed;
  t.equal(answer?.status, 401, 'the answer arrived');
  t.equal(errorOf(answer!.body).type, 'authentication_error');
  t.equal(answer!.headers.connection, 'close');
  t.equal(closed.error, undefined, 'no EPIPE or ECONNRESET while the client was still sending');
  t.equal(sentAfter, 4 * MiB);
});
