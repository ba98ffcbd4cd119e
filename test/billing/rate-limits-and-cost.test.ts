// Per-key rate limits (requests and tokens per minute) through the real bin/gateway: the limit
// headers in each dialect's names on every answer, and the 429 with `retry-after` in whole seconds
// (`rate_limit_error` on Messages, `rate_limit_exceeded` on Chat Completions), refused before any
// provider call or reservation. And where the billed amount is (not) reported: never on Messages;
// `usage.cost` on Chat Completions.
import t from 'tap';
import { startGateway } from '../helpers/gateway.js';
import { parseSse } from '../helpers/messages.js';
import { UNITS_PER_USD } from '../../lib/store/types.js';
import { billModel, chatHeaders, fileStoreConfig, headersFor, LedgerView, localRequestId, TEST_KEY } from '../helpers/billing.js';

const KEYS = { rpm: 'sk-billing-rpm-0001', tpm: 'sk-billing-tpm-0001', chatRpm: 'sk-billing-chatrpm-0001', limited: 'sk-billing-limited-0001' };

const store = fileStoreConfig([billModel('bill/demo', 'claude-bill')], {
  keys: [
    { id: 'full', key: TEST_KEY, org: 'acme', project: 'web', environment: 'production' },
    { id: 'k-rpm', key: KEYS.rpm, org: 'acme', rateLimit: { rpm: 3 } },
    { id: 'k-tpm', key: KEYS.tpm, org: 'acme', rateLimit: { tpm: 1000 } },
    { id: 'k-chat-rpm', key: KEYS.chatRpm, org: 'acme', rateLimit: { rpm: 2, tpm: 1_000_000 } },
    { id: 'k-limited', key: KEYS.limited, org: 'acme', rateLimit: { rpm: 100, tpm: 100_000 } },
  ],
});

const gw = await startGateway(store.config);
t.teardown(() => gw.stop('SIGKILL'));
const view = new LedgerView(store.db);
t.teardown(() => view.close());

function post(path: string, headers: Record<string, string>, body: unknown): Promise<Response> {
  return fetch(`${gw.url}${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
}

const msg = (maxTokens = 64, extra: Record<string, unknown> = {}): Record<string, unknown> => ({ model: 'bill/demo', max_tokens: maxTokens, messages: [{ role: 'user', content: 'hello' }], ...extra });
const chatBody = (extra: Record<string, unknown> = {}): Record<string, unknown> => ({ model: 'openai/gpt-5', max_tokens: 64, messages: [{ role: 'user', content: 'hello' }], ...extra });

const upstreamCalls = async (): Promise<number> => (await gw.simRequests()).filter((r) => r.path.startsWith('/v1/')).length;

t.test('Messages: requests per minute', async (t) => {
  const before = await upstreamCalls();
  for (const remaining of ['2', '1', '0']) {
    const res = await post('/v1/messages', headersFor(KEYS.rpm), msg());
    t.equal(res.status, 200);
    await res.text();
    t.equal(res.headers.get('anthropic-ratelimit-requests-limit'), '3');
    t.equal(res.headers.get('anthropic-ratelimit-requests-remaining'), remaining);
    const reset = res.headers.get('anthropic-ratelimit-requests-reset') ?? '';
    t.match(reset, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/, 'reset is an RFC 3339 instant');
    t.ok(Date.parse(reset) > Date.now() - 2000, 'in the future (within clock granularity)');
    t.notOk(res.headers.has('x-ratelimit-limit-requests'), 'no OpenAI-style names on Messages');
  }
  const refused = await post('/v1/messages', headersFor(KEYS.rpm), msg());
  t.equal(refused.status, 429);
  const body = (await refused.json()) as { type: string; error: { type: string; message: string } };
  t.match(body, { type: 'error', error: { type: 'rate_limit_error', message: /3 requests per minute/ } });
  const retryAfter = refused.headers.get('retry-after') ?? '';
  t.match(retryAfter, /^\d+$/, 'retry-after in whole seconds');
  t.ok(Number(retryAfter) >= 1 && Number(retryAfter) <= 60, `retry-after ${retryAfter} s is within the minute`);
  t.equal(refused.headers.get('anthropic-ratelimit-requests-remaining'), '0');
  t.equal(await upstreamCalls(), before + 3, 'the refused request made no provider call');
  t.same(view.reservations(), [], 'nothing held');
});

t.test('Messages: tokens per minute', async (t) => {
  const before = await upstreamCalls();
  // about 1,250 tokens estimated (more than the whole minute: admitted on a full bucket), about 620 used
  const long = msg(16, { messages: [{ role: 'user', content: 'x'.repeat(2400) }] });
  const ok = await post('/v1/messages', headersFor(KEYS.tpm), long);
  t.equal(ok.status, 200);
  await ok.text();
  t.equal(ok.headers.get('anthropic-ratelimit-tokens-limit'), '1000');
  t.equal(ok.headers.get('anthropic-ratelimit-tokens-remaining'), '0', 'the estimate took the whole minute');
  t.match(ok.headers.get('anthropic-ratelimit-tokens-reset') ?? '', /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
  t.notOk(ok.headers.has('anthropic-ratelimit-requests-limit'), 'no request headers for a key without rpm');
  // after the actual use was counted, the same request does not fit for about half a minute
  const refused = await post('/v1/messages', headersFor(KEYS.tpm), long);
  t.equal(refused.status, 429);
  const body = (await refused.json()) as { error: { type: string; message: string } };
  t.match(body.error, { type: 'rate_limit_error', message: /1000 tokens per minute/ });
  const retryAfter = refused.headers.get('retry-after') ?? '';
  t.match(retryAfter, /^[1-9]\d*$/, 'retry-after in whole seconds, at least 1');
  t.ok(Number(retryAfter) <= 60, `retry-after ${retryAfter} s is within the minute`);
  t.equal(await upstreamCalls(), before + 1, 'the refused request made no provider call');
});

t.test('Chat Completions: requests per minute', async (t) => {
  const before = await upstreamCalls();
  for (const remaining of ['1', '0']) {
    const res = await post('/v1/chat/completions', chatHeaders(KEYS.chatRpm), chatBody());
    await res.text();
    t.equal(res.headers.get('x-ratelimit-limit-requests'), '2', `limit header (status ${res.status})`);
    t.equal(res.headers.get('x-ratelimit-remaining-requests'), remaining);
    t.match(res.headers.get('x-ratelimit-reset-requests') ?? '', /^(\d+m)?\d+s$/, 'reset is a duration');
    t.equal(res.headers.get('x-ratelimit-limit-tokens'), '1000000');
    t.notOk(res.headers.has('anthropic-ratelimit-requests-limit'), 'no Anthropic names on Chat Completions');
  }
  const refused = await post('/v1/chat/completions', chatHeaders(KEYS.chatRpm), chatBody());
  t.equal(refused.status, 429);
  const body = (await refused.json()) as { error: { code: string; message: string } };
  t.match(body, { error: { code: 'rate_limit_exceeded', message: /2 requests per minute/ } });
  t.match(refused.headers.get('retry-after') ?? '', /^[1-9]\d*$/, 'retry-after in whole seconds');
  t.equal(refused.headers.get('x-ratelimit-remaining-requests'), '0');
  t.equal(await upstreamCalls(), before + 2, 'the refused request made no provider call');
});

t.test('Chat Completions: a success carries the limit headers, streaming or not', async (t) => {
  for (const [stream, remaining] of [[false, '99'], [true, '98']] as const) {
    const res = await post('/v1/chat/completions', chatHeaders(KEYS.limited), chatBody({ stream }));
    const text = await res.text();
    t.equal(res.status, 200, `stream ${stream}: ${text.slice(0, 200)}`);
    t.equal(res.headers.get('x-ratelimit-limit-requests'), '100');
    t.equal(res.headers.get('x-ratelimit-remaining-requests'), remaining);
    t.match(res.headers.get('x-ratelimit-reset-requests') ?? '', /^(\d+m)?\d+s$/);
    t.equal(res.headers.get('x-ratelimit-limit-tokens'), '100000');
    t.match(res.headers.get('x-ratelimit-remaining-tokens') ?? '', /^\d+$/);
  }
});

/** every key anywhere in a JSON value */
function keysOf(value: unknown, out: string[] = []): string[] {
  if (Array.isArray(value)) for (const v of value) keysOf(v, out);
  else if (value !== null && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      out.push(k);
      keysOf(v, out);
    }
  }
  return out;
}

t.test('Messages reports no cost, streaming or not; the ledger has it', async (t) => {
  const plain = await post('/v1/messages', headersFor(TEST_KEY), msg());
  t.equal(plain.status, 200);
  const json = (await plain.json()) as unknown;
  t.notOk(keysOf(json).some((k) => /cost/i.test(k)), 'no cost field anywhere in the Message');
  const streamed = await post('/v1/messages', headersFor(TEST_KEY), msg(64, { stream: true }));
  t.equal(streamed.status, 200);
  const frames = parseSse(await streamed.text());
  t.equal(frames.at(-1)?.event, 'message_stop');
  for (const f of frames) if (keysOf(JSON.parse(f.data)).some((k) => /cost/i.test(k))) t.fail(`cost in ${f.event}: ${f.data}`);
  for (const res of [plain, streamed]) {
    const row = await view.row('acme', localRequestId(res.headers));
    t.ok(row && row.cost > 0, 'settled spend is in the ledger');
  }
});

t.test('Chat Completions usage.cost equals the settled cost, also on the final stream chunk', async (t) => {
  const res = await post('/v1/chat/completions', chatHeaders(TEST_KEY), chatBody());
  t.equal(res.status, 200);
  const json = (await res.json()) as { usage: { cost: number } };
  const row = await view.row('acme', res.headers.get('x-request-id'));
  t.ok(row, 'usage row');
  t.equal(json.usage.cost, row!.cost / UNITS_PER_USD, 'usage.cost = settled cost in USD');

  const streamed = await post('/v1/chat/completions', chatHeaders(TEST_KEY), chatBody({ stream: true }));
  t.equal(streamed.status, 200);
  const frames = parseSse(await streamed.text());
  t.equal(frames.at(-1)?.data, '[DONE]');
  const final = JSON.parse(frames.at(-2)!.data) as { choices: unknown[]; usage: { cost: number } };
  t.same(final.choices, [], 'the usage chunk has no choices');
  const srow = await view.row('acme', streamed.headers.get('x-request-id'));
  t.ok(srow, 'usage row');
  t.equal(final.usage.cost, srow!.cost / UNITS_PER_USD, 'usage.cost on the final chunk = settled cost in USD');
});
