// What the cluster primary and its workers tell each other over the IPC channel (node:cluster).
// Every message carries `gw` so that other IPC traffic is told apart.
import type { BusMessage } from '../limits/bus.js';
import type { BucketVerdict } from '../rate-limit.js';
import type { KeyRecord } from '../store/types.js';
import type { StickyPin } from '../sticky.js';

/** the part of a key the rate limits need */
export type LimitedKey = Pick<KeyRecord, 'id' | 'rateLimit'>;

export type WorkerToPrimary =
  | { gw: 'admit'; id: number; key: LimitedKey; estimate: number }
  | { gw: 'record'; key: LimitedKey; tokens: number; estimate: number }
  | { gw: 'bus'; msg: BusMessage }
  /** a (re)started worker asks for the pins made so far */
  | { gw: 'sticky-snapshot' }
  | { gw: 'listening'; url: string; sim: string | null };

export type PrimaryToWorker = { gw: 'verdict'; id: number; verdict: BucketVerdict } | { gw: 'bus'; msg: BusMessage } | { gw: 'sticky'; entries: [string, StickyPin][] };

export function isGatewayMessage<T extends { gw: string }>(m: unknown): m is T {
  return typeof m === 'object' && m !== null && typeof (m as { gw?: unknown }).gw === 'string';
}
