// Sealing what a Messages client must carry back unread (decisions §11): the `encrypted_content` of a
// `web_search_result` and the `encrypted_index` of a `web_search_result_location` citation the gateway
// wrote. AES-256-GCM (node:crypto) with a key derived from `webSearch.sealKey`, so a later stateless
// turn that sends these blocks back is checked (a changed or foreign value is refused) and can be
// replayed, opened, to any upstream. Without `webSearch.sealKey` the gateway draws a random key at start
// (shared by its `--workers` through their environment): sealed values then hold only until a restart
// and on that one gateway (set the key for replicas and restarts).
// The key and the sealed payloads are never logged.
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import type { JsonObject } from '../chunks.js';

/** Every value the gateway seals starts so: one it did not write is known at a glance. */
export const SEAL_PREFIX = 'gws1_';

/** What a sealed value holds: a search result's content, or where a citation points. */
export type SealKind = 'web_search_result' | 'web_search_result_location';

export interface Sealer {
  seal(kind: SealKind, payload: JsonObject): string;
  /** the payload, or null when the value is not one this key sealed for this kind (changed, foreign, another key) */
  open(kind: SealKind, value: string): JsonObject | null;
}

const IV_BYTES = 12;
const TAG_BYTES = 16;

/** How a cluster primary hands its random key to its workers (never logged, never written). */
export const PROCESS_SEAL_KEY_ENV = 'GATEWAY_PROCESS_SEAL_KEY';

let processKey: Buffer | undefined;

/** The key used without `webSearch.sealKey`: the primary's (a worker), else drawn once per process. */
function randomKey(): Buffer {
  if (processKey !== undefined) return processKey;
  const inherited = process.env[PROCESS_SEAL_KEY_ENV];
  processKey = inherited !== undefined && /^[0-9a-f]{64}$/.test(inherited) ? Buffer.from(inherited, 'hex') : randomBytes(32);
  return processKey;
}

/** The random key as hex, for a cluster primary to pass to its workers. */
export function processSealKey(): string {
  return randomKey().toString('hex');
}

/** the sealers made so far, by seal key ('' for the process's random key): a sealer holds no state */
const sealers = new Map<string, Sealer>();

/**
 * The sealer of a configuration: `sealKey` (any length; HKDF-SHA-256 makes the AES key) or the
 * process's random key. Every request's encoder asks for one: it is made once per key (the key
 * derivation is not repeated per request) and shared.
 */
export function createSealer(sealKey: string | undefined): Sealer {
  const id = sealKey ?? '';
  let sealer = sealers.get(id);
  if (sealer === undefined) sealers.set(id, (sealer = newSealer(id)));
  return sealer;
}

function newSealer(sealKey: string): Sealer {
  const key = sealKey !== '' ? Buffer.from(hkdfSync('sha256', sealKey, 'model-gateway', 'web-search seal v1', 32)) : randomKey();
  return {
    seal(kind, payload) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      cipher.setAAD(Buffer.from(kind)); // a sealed result cannot pass for a sealed citation
      const body = Buffer.concat([cipher.update(JSON.stringify(payload), 'utf8'), cipher.final()]);
      return SEAL_PREFIX + Buffer.concat([iv, body, cipher.getAuthTag()]).toString('base64url');
    },
    open(kind, value) {
      if (!value.startsWith(SEAL_PREFIX)) return null;
      const raw = Buffer.from(value.slice(SEAL_PREFIX.length), 'base64url');
      if (raw.length < IV_BYTES + TAG_BYTES + 2) return null;
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, IV_BYTES));
        decipher.setAAD(Buffer.from(kind));
        decipher.setAuthTag(raw.subarray(raw.length - TAG_BYTES));
        const text = Buffer.concat([decipher.update(raw.subarray(IV_BYTES, raw.length - TAG_BYTES)), decipher.final()]).toString('utf8');
        const value_ = JSON.parse(text) as unknown;
        return typeof value_ === 'object' && value_ !== null && !Array.isArray(value_) ? (value_ as JsonObject) : null;
      } catch {
        return null;
      }
    },
  };
}
