// stages/transient-buffers.ts: the bytes of buffers that are garbage once passed on (upload chunks)
// run a young-generation GC every GC_EVERY_BYTES, so their memory is freed as the upload goes instead
// of piling up until V8's own 32 MB trigger; `gc` stays hidden from every context.
import { PerformanceObserver, constants, type PerformanceEntry } from 'node:perf_hooks';
import { runInNewContext } from 'node:vm';
import t from 'tap';
import { GC_EVERY_BYTES, transientBytes } from '../../stages/transient-buffers.js';

/** the GCs (their `kind`) that run while `work` runs and shortly after */
async function gcsDuring(work: () => void): Promise<number[]> {
  const kinds: number[] = [];
  const obs = new PerformanceObserver((list) => {
    for (const e of list.getEntries() as (PerformanceEntry & { detail?: { kind?: number } })[]) kinds.push(e.detail?.kind ?? -1);
  });
  obs.observe({ entryTypes: ['gc'] });
  work();
  await new Promise((r) => setTimeout(r, 50));
  obs.disconnect();
  return kinds;
}

t.test('a young-generation GC once GC_EVERY_BYTES went by', async (t) => {
  // start from an empty count: whatever a previous caller left is flushed by one full interval
  transientBytes(GC_EVERY_BYTES);
  // (no assertion that nothing runs below the interval: V8 may scavenge on its own at any time)
  transientBytes(GC_EVERY_BYTES - 1);
  const at = await gcsDuring(() => transientBytes(1));
  t.ok(at.includes(constants.NODE_PERFORMANCE_GC_MINOR), 'a minor GC when the interval is reached');
  const chunked = await gcsDuring(() => {
    for (let sent = 0; sent < 3 * GC_EVERY_BYTES; sent += 64 * 1024) transientBytes(64 * 1024);
  });
  t.ok(chunked.filter((k) => k === constants.NODE_PERFORMANCE_GC_MINOR).length >= 3, 'one per interval of 64 KiB chunks');
});

t.test('the gc function is exposed nowhere', async (t) => {
  transientBytes(GC_EVERY_BYTES);
  t.equal(typeof (globalThis as { gc?: unknown }).gc, 'undefined', 'not on this global');
  t.equal(runInNewContext('typeof gc'), 'undefined', 'not in a new context');
});

t.test('dead 64 KiB chunks do not pile up while they stream by', async (t) => {
  const before = process.memoryUsage().arrayBuffers;
  let peak = 0;
  for (let i = 0; i < 512; i++) {
    // 32 MiB in all, each chunk dropped at once, as a request body's chunks are once spooled
    Buffer.allocUnsafe(64 * 1024).fill(i);
    transientBytes(64 * 1024);
    if (i % 16 === 0) peak = Math.max(peak, process.memoryUsage().arrayBuffers - before);
  }
  t.ok(peak < 8 * 1024 * 1024, `at most ${(peak / 1048576).toFixed(1)} MiB of chunks alive at once (V8 alone: up to 32 MiB)`);
});
