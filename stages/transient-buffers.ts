// Paces the collection of the short-lived buffers a large upload streams through the gateway.
//
// Every chunk of a request body is a fresh Buffer (Node's HTTP parser copies each read into a new
// ArrayBuffer), and so is every chunk read back from a spooled upload for the upstream request. Each
// is dead a moment later, but V8 frees an ArrayBuffer's memory only when a GC finds it dead, and
// streaming allocates almost nothing on the JS heap, so nothing schedules one: V8 starts a young
// generation GC for backing-store memory alone only once it passes 2 × the largest semi-space
// (32 MB on 64-bit; `Heap::AllocateExternalBackingStore`). Until then every chunk stays allocated,
// so each upload raised the gateway's RSS by up to 32 MB (measured: `arrayBuffers` climbing to
// ~30 MB, then one minor GC, per upload; bench/transcription-upload.ts).
//
// `transientBytes(n)` is told the bytes of such buffers as they go by; every `GC_EVERY_BYTES` it runs
// a young-generation GC (a scavenge: ~0.2–1 ms, it only visits live young objects), which frees the
// dead chunks at once, so an upload of any size holds about GC_EVERY_BYTES of them. 1 MiB: ~25
// scavenges for a 25 MB upload, lost in the noise of the ~150 ms of CPU the upload costs anyway;
// the bench measured a peak RSS rise of +2–7 MB per upload at 1 MiB, +5–8 at 2 MiB, +6–9 at 4 MiB,
// +10–22 without. The counter is shared, so concurrent uploads do not multiply it.
// V8 offers no API for a GC, so the `gc` function is taken from a fresh context while `--expose-gc`
// is briefly on (Node keeps V8's flags writable for `v8.setFlagsFromString`), and the flag is
// switched off again: no other context sees a `gc`. Should that fail, the pacing is off and V8's own
// schedule applies.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** bytes of transient buffers between two young-generation GCs */
export const GC_EVERY_BYTES = 1024 * 1024;

type Gc = (options?: { type?: 'minor' | 'major'; execution?: 'sync' | 'async' }) => void;

let gc: Gc | null | undefined;
let pending = 0;

function obtainGc(): Gc | null {
  const own = (globalThis as { gc?: unknown }).gc;
  if (typeof own === 'function') return own as Gc;
  try {
    setFlagsFromString('--expose-gc');
    const fn = runInNewContext('typeof gc === "function" ? gc : null') as unknown;
    return typeof fn === 'function' ? (fn as Gc) : null;
  } catch {
    return null;
  } finally {
    try {
      setFlagsFromString('--no-expose-gc');
    } catch {
      /* flags frozen: nothing was changed either */
    }
  }
}

/** `bytes` of buffers that are garbage as soon as they have been passed on went by. */
export function transientBytes(bytes: number): void {
  pending += bytes;
  if (pending < GC_EVERY_BYTES) return;
  pending = 0;
  if (gc === undefined) gc = obtainGc();
  gc?.({ type: 'minor' });
}
