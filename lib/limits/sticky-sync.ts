// Sticky sessions shared by every process that shares the limits: each pin is published on the bus
// (lib/limits/bus.ts) and adopted by the others. With Redis, pins are also kept there, with a TTL,
// so a replica that starts later loads the sessions still alive; with workers only, the cluster
// primary keeps a copy for a worker that (re)starts (lib/cluster/primary.ts).
import type { Redis } from 'ioredis';
import { stickyPin, type StickyRoutes } from '../sticky.js';
import type { Bus } from './bus.js';

/** how long a pin lives in Redis after it was made (a session idle longer is routed afresh) */
export const STICKY_TTL_SECONDS = 24 * 3600;
const PREFIX = 'gw:sticky:';

export function shareSticky(sticky: StickyRoutes, bus: Bus, redis: Redis | null): void {
  sticky.onPin = (slot, pin) => {
    bus.publish({ topic: 'sticky', slot, pin });
    // best effort: a pin Redis missed is made again by the next replica that routes the session
    redis?.set(PREFIX + slot, JSON.stringify(pin), 'EX', STICKY_TTL_SECONDS).catch(() => undefined);
  };
  bus.subscribe((msg) => {
    if (msg.topic === 'sticky') sticky.adopt(msg.slot, msg.pin);
  });
}

/** At start: the pins Redis still holds (at most `max`), into this process's map. */
export async function loadStickyFromRedis(sticky: StickyRoutes, redis: Redis, max = 10_000): Promise<number> {
  let cursor = '0';
  let loaded = 0;
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${PREFIX}*`, 'COUNT', 500);
    cursor = next;
    if (keys.length === 0) continue;
    const models = await redis.mget(...keys);
    keys.forEach((k, i) => {
      const pin = models[i] == null ? null : stickyPin(parsed(models[i]!));
      if (pin !== null && loaded < max) {
        sticky.adopt(k.slice(PREFIX.length), pin);
        loaded++;
      }
    });
  } while (cursor !== '0' && loaded < max);
  return loaded;
}

function parsed(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return null;
  }
}
