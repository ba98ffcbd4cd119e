// The Redis rate limiter (lib/limits/redis-rate-limit.ts) against a real redis-server: the same
// decisions as the in-process buckets for requests and tokens (the Lua script is that logic on
// Redis's clock), the refusal's reasons and retry-after, token corrections, and a 503 (never an
// admission) when Redis cannot be reached.
import t from 'tap';
import { Redis } from 'ioredis';
import { GatewayError } from '../../lib/errors.js';
import { RedisRateLimiter } from '../../lib/limits/redis-rate-limit.js';
import { InProcessRateLimiter, type RateDecision, type RateLimiter } from '../../lib/rate-limit.js';
import type { KeyRecord } from '../../lib/store/types.js';
import { startRedis, type RedisServer } from '../helpers/redis-server.js';

let server: RedisServer;
let client: Redis;
t.before(async () => {
  server = await startRedis();
  client = new Redis(server.url, { enableOfflineQueue: false, maxRetriesPerRequest: 0, commandTimeout: 1000, lazyConnect: true });
  client.on('error', () => undefined);
  await client.connect();
});
t.teardown(async () => {
  client?.disconnect();
  await server?.stop();
});

function key(id: string, rpm: number | null, tpm: number | null): KeyRecord {
  return { id, org: 'acme', project: null, environment: null, scopes: [], models: [], spendCap: null, rateLimit: { rpm, tpm } };
}

async function outcome(rl: RateLimiter, k: KeyRecord, estimate: number): Promise<RateDecision | GatewayError> {
  try {
    return await rl.admit(k, estimate);
  } catch (err) {
    if (GatewayError.is(err)) return err;
    throw err;
  }
}

/** what a decision or refusal says, with remaining levels (a few ms of refill never reach a whole unit here) */
function summary(d: RateDecision | GatewayError): unknown {
  if (GatewayError.is(d)) return { code: d.code, message: d.message, retryAfter: d.headers?.['retry-after'] };
  return { remaining: d.remaining, tokens: d.tokens?.remaining ?? null, limit: d.limit };
}

function isDecision(v: unknown): v is { remaining: number; tokens: number | null; limit: unknown } {
  return typeof v === 'object' && v !== null && 'tokens' in v;
}

t.test('the same decisions as the in-process buckets, for requests and tokens', async (t) => {
  const redis = new RedisRateLimiter(client);
  const local = new InProcessRateLimiter();
  const steps: [string, number, number][] = [
    ['admit', 400, 0],
    ['admit', 400, 0],
    ['admit', 400, 0], // 200 tokens left: refused on tokens
    ['record', 100, 400], // the first used 100 of its 400: 300 given back
    ['admit', 400, 0],
    ['admit', 10, 0], // the request limit (3) is reached
  ];
  const a = key(`same-${Date.now()}`, 3, 1000);
  for (const [op, n, estimate] of steps) {
    if (op === 'record') {
      redis.record(a, n, estimate);
      local.record(a, n, estimate);
      await new Promise((r) => setTimeout(r, 50));
      continue;
    }
    const [viaRedis, inProcess] = [summary(await outcome(redis, a, n)), summary(await outcome(local, a, n))];
    // a token bucket of 1,000 per minute refills one token every 60 ms: the two are read a few ms
    // apart (more on a loaded machine), so the token figure may differ by that refill, never more
    if (isDecision(viaRedis) && isDecision(inProcess) && viaRedis.tokens !== null && inProcess.tokens !== null) {
      t.ok(Math.abs(viaRedis.tokens - inProcess.tokens) <= 2, `${op} ${n}: tokens ${viaRedis.tokens} ≈ ${inProcess.tokens}`);
      t.same({ ...viaRedis, tokens: 0 }, { ...inProcess, tokens: 0 }, `${op} ${n}`);
    } else {
      t.same(viaRedis, inProcess, `${op} ${n}`);
    }
  }
  const refusal = await outcome(redis, a, 10);
  t.ok(GatewayError.is(refusal) && refusal.code === 'GW_ERR_RATE_LIMITED');
  t.match((refusal as GatewayError).message, /3 requests per minute/);
});

t.test('an unlimited key never asks redis', async (t) => {
  const dead = new Redis('redis://127.0.0.1:1', { lazyConnect: true, enableOfflineQueue: false });
  dead.on('error', () => undefined);
  const rl = new RedisRateLimiter(dead);
  t.match(await rl.admit(key('free', null, null), 5), { limit: null, tokens: null });
  dead.disconnect();
});

t.test('redis unreachable: a 503 with retry-after, never an admission', async (t) => {
  const dead = new Redis('redis://127.0.0.1:1', { lazyConnect: true, enableOfflineQueue: false });
  dead.on('error', () => undefined);
  const got = await outcome(new RedisRateLimiter(dead), key('k', 5, null), 0);
  t.ok(GatewayError.is(got));
  t.match(got, { code: 'GW_ERR_UNAVAILABLE', status: 503 });
  t.equal((got as GatewayError).headers?.['retry-after'], '1');
  dead.disconnect();
});
