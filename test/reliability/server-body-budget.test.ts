// The memory bound across request bodies (issue #18, item 5: 8 concurrent 30 MB bodies took nearly
// 1 GB and small requests waited behind them), through bin/gateway with a low maxBufferedBodyBytes:
// large bodies in progress hold their declared length; the next large one is refused at once with a
// retryable 503 in its endpoint's envelope and a retry-after, before its body is read; a small
// request is still served; once the large ones end, a large body is admitted again. Each large
// request sends `expect: 100-continue`: the interim answer comes after the gateway has taken (or
// refused) its lease, so the order is certain without timing.
import t from 'tap';
import { baseConfig, messagesHeaders, startGateway, type RunningGateway } from '../helpers/gateway.js';
import { errorOf } from '../helpers/http.js';
import { RawConnection, type RawAnswer } from './raw-connection.js';

const MiB = 1024 * 1024;
let gw: RunningGateway;
t.before(async () => {
  gw = await startGateway(baseConfig({ maxBufferedBodyBytes: 8 * MiB }));
});
t.teardown(() => gw?.stop());

const request = (content = 'hi'): string => JSON.stringify({ model: 'claude-opus-5', max_tokens: 16, messages: [{ role: 'user', content }] });

/** a large Messages request (3.5 MiB, JSON padded with whitespace) whose head is sent, its body held back */
async function startLarge(path = '/v1/messages', headers = messagesHeaders()): Promise<{ c: RawConnection; body: Buffer }> {
  const json = request();
  const body = Buffer.concat([Buffer.from(json), Buffer.alloc(3.5 * MiB - json.length, 0x20)]);
  const c = new RawConnection(gw.url);
  c.head([`POST ${path} HTTP/1.1`, `host: ${new URL(gw.url).host}`, ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`), `content-length: ${body.length}`, 'expect: 100-continue']);
  await c.continued();
  return { c, body };
}

t.test('past the budget a large body gets 503 + retry-after before it is read; a small request is still served', async (t) => {
  // 8 MiB, an eighth kept for small bodies: two 3.5 MiB bodies fill the other 7 MiB, a third does not fit
  const first = await startLarge();
  const second = await startLarge();
  const third = await startLarge();
  const refused = await third.c.answer();
  t.equal(refused?.status, 503, 'the third large body is refused');
  t.equal(errorOf(refused!.body).type, 'api_error', 'in the Messages envelope');
  t.match(errorOf(refused!.body).message, /maxBufferedBodyBytes/);
  t.equal(refused!.headers['retry-after'], '1');
  t.not(refused!.headers['x-should-retry'], 'false', 'retryable');
  t.match(refused!.headers['request-id'], /^req_/);
  t.equal(refused!.headers.connection, 'close', 'its body is never read');
  t.equal(first.c.isClosed || second.c.isClosed, false, 'the first two are still in progress');

  const chat = await fetch(`${gw.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer sk-test-full-0000' },
    body: JSON.stringify({ model: 'gpt-5', max_tokens: 16, messages: [{ role: 'user', content: 'x'.repeat(200 * 1024) }] }),
  });
  t.equal(chat.status, 200, 'a small request (200 KiB) is served from the reserve while the large ones hold all the rest');
  const small = await fetch(`${gw.url}/v1/messages`, { method: 'POST', headers: messagesHeaders(), body: request() });
  t.equal(small.status, 200);

  // the OpenAI-style endpoints refuse in their own envelope
  const chatLarge = await startLarge('/v1/chat/completions', { 'content-type': 'application/json', authorization: 'Bearer sk-test-full-0000' });
  const chatRefused = await chatLarge.c.answer();
  t.equal(chatRefused?.status, 503);
  t.equal(errorOf(chatRefused!.body).code, 'service_unavailable');
  t.equal(chatRefused!.headers['retry-after'], '1');

  // the first finishes its body and is served; the second is abandoned: both leases come back
  first.c.write(first.body);
  const served = await first.c.answer();
  t.equal(served?.status, 200, 'an admitted large body is served');
  first.c.destroy();
  second.c.destroy();
  await second.c.closed;
  third.c.destroy();
  chatLarge.c.destroy();

  // retry until the abandoned request's lease is back (its close is seen by the gateway a moment later)
  let again: RawAnswer | null = null;
  for (let i = 0; i < 50; i++) {
    const retry = await startLarge();
    const pair = await startLarge();
    retry.c.write(retry.body);
    pair.c.write(pair.body);
    const [a, b] = [await retry.c.answer(), await pair.c.answer()];
    retry.c.destroy();
    pair.c.destroy();
    if (a?.status === 200 && b?.status === 200) {
      again = a;
      break;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  t.equal(again?.status, 200, 'two large bodies fit again once the earlier ones ended');
});

t.test('a chunked body is leased as it arrives: past the budget, 503 and the connection closes', async (t) => {
  const c = new RawConnection(gw.url);
  c.head(['POST /v1/messages HTTP/1.1', `host: ${new URL(gw.url).host}`, ...Object.entries(messagesHeaders()).map(([k, v]) => `${k}: ${v}`), 'transfer-encoding: chunked']);
  const piece = Buffer.alloc(256 * 1024, 0x20);
  const frame = Buffer.concat([Buffer.from(`${piece.length.toString(16)}\r\n`), piece, Buffer.from('\r\n')]);
  c.write(`${request().length.toString(16)}\r\n${request()}\r\n`);
  const got: { answer: RawAnswer | null | undefined } = { answer: undefined };
  const answered = c.answer().then((a) => (got.answer = a));
  for (let sent = 0; got.answer === undefined && sent < 16 * MiB && !c.isClosed; sent += piece.length) {
    c.write(frame);
    await new Promise((r) => setImmediate(r));
  }
  await answered;
  const answer = got.answer;
  t.equal(answer?.status, 503, 'refused once the body passed the budget (8 MiB), before the 32 MiB body limit');
  t.equal(answer!.headers['retry-after'], '1');
  t.equal(answer!.headers.connection, 'close');
  c.destroy();
});
