// The connection to `limits: "redis://…"`: one client for commands (the rate-limit scripts, sticky
// sessions) and one subscribed to the gateway's channel (the bus). At start Redis must answer (and
// be 7 or later) or the gateway refuses to start; later, while it is down, commands fail at once
// (no offline queue: a request never waits on a queue that may never drain) and the clients keep
// reconnecting, so the limits come back by themselves.
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { errors } from '../errors/index.js';
import { busMessage, type Bus, type BusMessage } from './bus.js';
import { redactRedisUrl } from './redis-url.js';

export { redactRedisUrl };

const CHANNEL = 'gw:bus';
/** how long start waits for Redis to answer */
const CONNECT_TIMEOUT_MS = 3000;
/** a command Redis does not answer within this fails the request with a 503 */
const COMMAND_TIMEOUT_MS = 1000;


export class RedisLimits implements Bus {
  /** this process, so that it skips its own messages on the channel */
  private readonly self = randomUUID();
  private readonly handlers: ((msg: BusMessage) => void)[] = [];

  private constructor(
    readonly client: Redis,
    private readonly sub: Redis,
  ) {
    sub.on('message', (channel: string, text: string) => {
      if (channel !== CHANNEL) return;
      let raw: { from?: unknown; msg?: unknown };
      try {
        raw = JSON.parse(text) as typeof raw;
      } catch {
        return;
      }
      const msg = raw.from === this.self ? null : busMessage(raw.msg);
      if (msg !== null) for (const h of this.handlers) h(msg);
    });
  }

  /** Connects both clients, or throws the start-up error naming the URL (without its password). */
  static async connect(url: string): Promise<RedisLimits> {
    const options = {
      lazyConnect: true,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      commandTimeout: COMMAND_TIMEOUT_MS,
      connectTimeout: CONNECT_TIMEOUT_MS,
      // keep trying, at most once a second: the limits come back as soon as Redis does
      retryStrategy: (attempt: number) => Math.min(attempt * 100, 1000),
    };
    const client = new Redis(url, options);
    const sub = new Redis(url, { ...options, commandTimeout: undefined, enableOfflineQueue: true });
    // errors are seen as a status (readiness, 503s), not as unhandled 'error' events
    client.on('error', () => undefined);
    sub.on('error', () => undefined);
    try {
      await withTimeout(Promise.all([client.connect(), sub.connect()]), CONNECT_TIMEOUT_MS);
      const info = await client.info('server');
      const version = /redis_version:(\d+)/.exec(info)?.[1];
      if (version !== undefined && Number(version) < 7) throw new Error(`Redis ${version} is too old (7 or later needed)`);
      await sub.subscribe(CHANNEL);
    } catch (err) {
      client.disconnect();
      sub.disconnect();
      throw errors.limitsUnreachableAtStart(redactRedisUrl(url), ((err as Error)?.message ?? String(err)).replace(/\.$/, ''));
    }
    return new RedisLimits(client, sub);
  }

  /** null when Redis answers commands now; else why not (for /readyz) */
  problem(): string | null {
    return this.client.status === 'ready' ? null : `redis is ${this.client.status === 'reconnecting' ? 'unreachable (reconnecting)' : this.client.status}`;
  }

  publish(msg: BusMessage): void {
    // a lost message is a pin another replica makes again, or a key cache the next reload clears
    this.client.publish(CHANNEL, JSON.stringify({ from: this.self, msg })).catch(() => undefined);
  }

  subscribe(handler: (msg: BusMessage) => void): void {
    this.handlers.push(handler);
  }

  async close(): Promise<void> {
    await Promise.allSettled([this.client.quit(), this.sub.quit()]);
  }
}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}
