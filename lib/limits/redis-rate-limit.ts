// Rate limits kept in Redis: the same token buckets as lib/rate-limit.ts (integer unit-milliseconds,
// refilled continuously), read, judged and written by one Lua script, so every replica's admission
// of one key is serialised by Redis and the limit holds across all of them exactly. The clock is
// Redis's own (TIME), so replicas with skewed clocks still share one bucket timeline.
//
// While Redis cannot be reached, `admit` refuses with a 503 (GW_ERR_UNAVAILABLE, retry-after 1):
// a key's limit is never silently lifted. A token correction (`record`) that cannot be sent is
// dropped: the request's estimate stays counted.
import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import { errors } from '../errors/index.js';
import { decisionOf, judge, settleVerdict, type BucketVerdict, type RateDecision, type RateHeaders, type RateLimiter } from '../rate-limit.js';
import type { KeyRecord } from '../store/types.js';

/** Shared by both scripts: the bucket refilled to Redis's now. ARGV[1] rpm, ARGV[2] tpm (-1: none). */
const REFILL = `
local M = 60000
local rpm = tonumber(ARGV[1])
local tpm = tonumber(ARGV[2])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local h = redis.call('HMGET', KEYS[1], 'r', 't', 'at')
local r = math.max(rpm, 0) * M
local k = math.max(tpm, 0) * M
if h[3] then
  local el = math.max(0, now - tonumber(h[3]))
  if rpm >= 0 then r = math.min(rpm * M, tonumber(h[1]) + el * rpm) end
  if tpm >= 0 then k = math.min(tpm * M, tonumber(h[2]) + el * tpm) end
end
local function store()
  -- kept until both buckets are full again (then absent means the same)
  local ttl = 1000
  if rpm > 0 then ttl = math.max(ttl, math.ceil((rpm * M - r) / rpm)) end
  if tpm > 0 then ttl = math.max(ttl, math.ceil((tpm * M - k) / tpm)) end
  redis.call('HSET', KEYS[1], 'r', string.format('%.0f', r), 't', string.format('%.0f', k), 'at', now)
  redis.call('PEXPIRE', KEYS[1], ttl + 1000)
end
`;

/** ARGV[3] the estimate: {1 admitted | 0 refused, requests level, tokens level} */
const ADMIT = `${REFILL}
local est = tonumber(ARGV[3])
local ok = 1
if rpm >= 0 and r < M then ok = 0 end
if tpm >= 0 and k < math.min(est, tpm) * M then ok = 0 end
if ok == 1 then
  if rpm >= 0 then r = r - M end
  if tpm >= 0 then k = k - est * M end
  store()
end
return {ok, string.format('%.0f', r), string.format('%.0f', k)}
`;

/** ARGV[3] estimate minus actual tokens: given back (or taken), never above a full bucket */
const RECORD = `${REFILL}
k = math.min(tpm * M, k + tonumber(ARGV[3]) * M)
store()
return 1
`;

class Script {
  private readonly sha: string;
  constructor(private readonly lua: string) {
    this.sha = createHash('sha1').update(lua).digest('hex');
  }
  async run(redis: Redis, key: string, args: (string | number)[]): Promise<unknown> {
    try {
      return await redis.evalsha(this.sha, 1, key, ...args);
    } catch (err) {
      if (!String((err as Error)?.message).startsWith('NOSCRIPT')) throw err;
      return redis.eval(this.lua, 1, key, ...args);
    }
  }
}

const admitScript = new Script(ADMIT);
const recordScript = new Script(RECORD);

function bucketKey(keyId: string): string {
  return `gw:rl:${keyId}`;
}

export class RedisRateLimiter implements RateLimiter {
  constructor(private readonly redis: Redis) {}

  async admit(key: KeyRecord, estimatedTokens: number, headers?: RateHeaders): Promise<RateDecision> {
    const { rpm, tpm } = key.rateLimit;
    const estimate = Math.max(0, Math.ceil(estimatedTokens));
    // an unlimited key needs no Redis (and keeps working while it is down)
    if (rpm === null && tpm === null) return decisionOf({ requests: 0, tokens: 0 }, null, null, estimate, null);
    let reply: [number, string, string];
    try {
      reply = (await admitScript.run(this.redis, bucketKey(key.id), [rpm ?? -1, tpm ?? -1, estimate])) as [number, string, string];
    } catch (err) {
      throw errors.limitsUnreachable(err);
    }
    const levels = { requests: Number(reply[1]), tokens: Number(reply[2]) };
    // refused: the levels are as they were, judged again here for the reasons and retry-after
    const verdict: BucketVerdict = reply[0] === 1 ? { decision: decisionOf(levels, rpm, tpm, estimate, null), reasons: [] } : judge(levels, rpm, tpm, estimate);
    return settleVerdict(key, verdict, headers);
  }

  record(key: KeyRecord, tokens: number, estimatedTokens = 0): void {
    const { rpm, tpm } = key.rateLimit;
    if (tpm === null) return;
    const actual = tokens > 0 ? Math.ceil(tokens) : 0;
    if (estimatedTokens === actual) return;
    recordScript.run(this.redis, bucketKey(key.id), [rpm ?? -1, tpm, estimatedTokens - actual]).catch(() => undefined);
  }
}
