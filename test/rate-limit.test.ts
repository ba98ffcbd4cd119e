import t from 'tap';
import { GatewayError } from '../lib/errors.js';
import { InProcessRateLimiter, type RateDecision } from '../lib/rate-limit.js';
import type { KeyRecord } from '../lib/store/types.js';

function key(id: string, rpm: number | null, tpm: number | null): KeyRecord {
  return { id, org: 'acme', project: null, environment: null, scopes: [], models: [], spendCap: null, rateLimit: { rpm, tpm } };
}

/** a limiter on a hand-moved clock: no timing in these tests */
function limiter(): { rl: InProcessRateLimiter; advance: (ms: number) => void } {
  let now = 1_000_000;
  return { rl: new InProcessRateLimiter({ now: () => now }), advance: (ms) => (now += ms) };
}

function refused(fn: () => unknown): GatewayError {
  try {
    fn();
  } catch (err) {
    if (GatewayError.is(err)) return err;
    throw err;
  }
  throw new Error('expected a rate-limit refusal');
}

t.test('unlimited keys are never counted', async (t) => {
  const { rl } = limiter();
  const k = key('free', null, null);
  for (let i = 0; i < 1000; i++) rl.admit(k, 1_000_000);
  t.same(rl.admit(k, 5), { limit: null, remaining: null, resetSeconds: null, tokens: null, estimatedTokens: 5, retryAfterSeconds: null });
  rl.record(k, 10, 5);
});

t.test('requests per minute', async (t) => {
  const { rl, advance } = limiter();
  const k = key('k', 3, null);
  const d1 = rl.admit(k, 0);
  t.match(d1, { limit: 3, remaining: 2, resetSeconds: 20, tokens: null });
  t.equal(rl.admit(k, 0).remaining, 1);
  t.match(rl.admit(k, 0), { remaining: 0, resetSeconds: 60 });
  const e = refused(() => rl.admit(k, 0, (d: RateDecision) => ({ 'x-limit': String(d.limit), 'x-remaining': String(d.remaining) })));
  t.equal(e.code, 'GW_ERR_RATE_LIMITED');
  t.equal(e.status, 429);
  t.same(e.headers, { 'retry-after': '20', 'x-limit': '3', 'x-remaining': '0' }, 'one request refills every 20 s; extra headers included');
  t.match(e.message, /3 requests per minute/);
  advance(5_000);
  t.equal(refused(() => rl.admit(k, 0)).headers['retry-after'], '15');
  advance(14_999);
  t.equal(refused(() => rl.admit(k, 0)).headers['retry-after'], '1', 'never below one second');
  advance(1);
  t.equal(rl.admit(k, 0).remaining, 0, 'a refused request was not counted');
  advance(10 * 60_000);
  t.match(rl.admit(k, 0), { remaining: 2 }, 'the bucket never holds more than the limit');
});

t.test('tokens per minute: estimate at admission, corrected by the actual count', async (t) => {
  const { rl, advance } = limiter();
  const k = key('k', null, 1000);
  const d = rl.admit(k, 600);
  t.same(d.tokens, { limit: 1000, remaining: 400, resetSeconds: 36 });
  t.equal(d.limit, null);
  const e = refused(() => rl.admit(k, 600));
  t.equal(e.headers['retry-after'], '12', '200 tokens missing at 1000 per minute');
  t.match(e.message, /1000 tokens per minute/);
  rl.record(k, 100, d.estimatedTokens);
  const d2 = rl.admit(k, 600);
  t.equal(d2.tokens?.remaining, 300, '400 + 600 given back − 100 used − 600 estimated');
  rl.record(k, 0, 600);
  rl.record(k, 0, 600);
  advance(60_000);
  t.equal(rl.admit(k, 0).tokens?.remaining, 1000, 'corrections never overfill the bucket');
});

t.test('an estimate above the whole limit runs on a full bucket and leaves it in debt', async (t) => {
  const { rl, advance } = limiter();
  const k = key('k', 100, 1000);
  t.equal(rl.admit(k, 5000).tokens?.remaining, 0);
  const e = refused(() => rl.admit(k, 10));
  t.equal(e.headers['retry-after'], '241', '4010 tokens to refill at 1000 per minute');
  advance(241_000);
  t.ok(rl.admit(k, 10));
});

t.test('both limits: the longer wait wins, nothing is counted on refusal', async (t) => {
  const { rl, advance } = limiter();
  const k = key('k', 1, 600);
  rl.admit(k, 300);
  const e = refused(() => rl.admit(k, 600));
  t.equal(e.headers['retry-after'], '60', 'the request bucket needs 60 s, the token bucket 30 s');
  t.match(e.message, /1 requests per minute and 600 tokens per minute/);
  advance(60_000);
  t.match(rl.admit(k, 600), { remaining: 0, tokens: { remaining: 0 } });
});

t.test('keys are limited separately', async (t) => {
  const { rl } = limiter();
  rl.admit(key('a', 1, null), 0);
  t.ok(rl.admit(key('b', 1, null), 0));
  t.throws(() => rl.admit(key('a', 1, null), 0));
});
