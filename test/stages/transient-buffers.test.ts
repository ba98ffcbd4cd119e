// transient-buffers (the spool's helper): told the bytes of short-lived buffers, it runs a young
// generation GC every GC_EVERY_BYTES. What a user can see: it never throws, and obtaining the GC
// function leaves no `gc` behind on the global object (the --expose-gc flag is switched off again).
import t from 'tap';
import { GC_EVERY_BYTES, transientBytes } from '../../stages/transient-buffers.js';

t.test('counting bytes past the threshold collects, leaving no global gc behind', async (t) => {
  t.equal(GC_EVERY_BYTES, 1024 * 1024);
  const had = typeof (globalThis as { gc?: unknown }).gc;
  t.doesNotThrow(() => {
    for (let i = 0; i < 5; i++) transientBytes(GC_EVERY_BYTES / 2);
  });
  t.equal(typeof (globalThis as { gc?: unknown }).gc, had, 'the global object is as it was');
  // dead buffers (4 MB, far below V8's own 32 MB trigger) are freed by the next paced collection
  for (let i = 0; i < 40; i++) Buffer.alloc(100 * 1024);
  await new Promise((r) => setTimeout(r, 10));
  const before = process.memoryUsage().arrayBuffers;
  transientBytes(GC_EVERY_BYTES);
  await new Promise((r) => setTimeout(r, 50));
  const after = process.memoryUsage().arrayBuffers;
  t.ok(before - after >= 3_000_000, `the dead buffers were freed (${before} → ${after} bytes of ArrayBuffers)`);
});
