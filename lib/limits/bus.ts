// What one gateway process tells the others that share its rate limits and sessions: a sticky
// session pinned, the keys changed (a reload disabled or rotated one). Carried by Redis pub/sub
// (lib/limits/redis.ts) across replicas, or by the cluster primary (lib/cluster/) across workers.
// Delivery is at most once and unordered between senders: every message is a fact that can be
// applied in any order (a pin, "forget your key cache").

import { stickyPin, type StickyPin } from '../sticky.js';

export type BusMessage = { topic: 'sticky'; slot: string; pin: StickyPin } | { topic: 'keys' };

export interface Bus {
  /** tell every other process (never this one: it applied the change itself) */
  publish(msg: BusMessage): void;
  /** called for each message another process published */
  subscribe(handler: (msg: BusMessage) => void): void;
}

/** A message read from the wire, or null when it is not one (another program on the channel). */
export function busMessage(raw: unknown): BusMessage | null {
  if (typeof raw !== 'object' || raw === null) return null;
  const m = raw as Record<string, unknown>;
  if (m.topic === 'keys') return { topic: 'keys' };
  if (m.topic === 'sticky' && typeof m.slot === 'string') {
    const pin = stickyPin(m.pin);
    if (pin !== null) return { topic: 'sticky', slot: m.slot, pin };
  }
  return null;
}
