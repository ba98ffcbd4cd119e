// ChunkReader: the request body as an async iterator on 'data' events. Order, backpressure, early
// stop, errors and premature close.
import { PassThrough, Readable } from 'node:stream';
import t from 'tap';
import { ChunkReader } from '../../lib/request-io.js';

const tick = (): Promise<void> => new Promise((r) => setImmediate(r));

t.test('every chunk, in order, then done', async (t) => {
  const parts = ['a', 'bc', 'def', 'ghij'].map((s) => Buffer.from(s));
  const got: string[] = [];
  for await (const c of new ChunkReader(Readable.from(parts, { objectMode: false }))) got.push(c.toString());
  t.same(got, ['a', 'bc', 'def', 'ghij']);
});

t.test('reads ahead 64 KiB at most, then pauses the source until the consumer catches up', async (t) => {
  const src = new PassThrough({ highWaterMark: 1024 });
  const reader = new ChunkReader(src);
  const chunk = Buffer.alloc(16 * 1024, 1);
  let accepted = 0;
  // the producer writes as long as the stream accepts
  for (let i = 0; i < 40; i++) {
    if (!src.write(chunk)) break;
    accepted++;
    await tick();
  }
  await tick();
  t.ok(src.isPaused(), 'the source is paused');
  t.ok(accepted * chunk.length < 40 * chunk.length, `the producer was held back after ${accepted} chunks`);
  t.ok(accepted * chunk.length <= 64 * 1024 + 4 * chunk.length, 'no more than the read-ahead (plus the stream buffers) was taken');
  // draining the reader resumes the source
  let read = 0;
  while (read < accepted) {
    const r = await reader.next();
    t.notOk(r.done);
    read++;
  }
  await tick();
  t.notOk(src.isPaused(), 'resumed once the consumer caught up');
  src.end();
  const rest: Buffer[] = [];
  for await (const c of reader) rest.push(c);
  t.equal((await reader.next()).done, true, 'done after the end');
});

t.test('a source error rejects the pending read with that error', async (t) => {
  const src = new PassThrough();
  const reader = new ChunkReader(src);
  const pending = reader.next();
  const boom = Object.assign(new Error('body timeout'), { code: 'UND_ERR_BODY_TIMEOUT' });
  src.destroy(boom);
  await t.rejects(pending, { code: 'UND_ERR_BODY_TIMEOUT' });
  await t.rejects(reader.next(), { code: 'UND_ERR_BODY_TIMEOUT' }, 'and every read after it');
});

t.test('a source closed before its end is an error, not a short body', async (t) => {
  const src = new PassThrough();
  const reader = new ChunkReader(src);
  src.write('partial');
  t.equal((await reader.next()).value?.toString(), 'partial');
  const pending = reader.next();
  src.destroy(); // closes without 'end' and without an error
  await t.rejects(pending, { code: 'ERR_STREAM_PREMATURE_CLOSE' });
});

t.test('stopping early drains the rest of the body without keeping it', async (t) => {
  const req = new PassThrough();
  const b = new ChunkReader(req);
  req.write('first');
  t.equal((await b.next()).value?.toString(), 'first');
  b.fail(new Error('too large'));
  t.notOk(req.destroyed, 'the request is not destroyed (the answer must still go out)');
  let more = 0;
  req.on('data', () => more++);
  for (let i = 0; i < 10; i++) req.write(Buffer.alloc(64 * 1024));
  req.end();
  await new Promise((r) => req.once('end', r));
  t.ok(more >= 10, 'the rest flowed through and was dropped');
  t.equal(req.listenerCount('data'), 1, 'the reader detached itself');
  await t.rejects(b.next(), /too large/, 'a stopped reader keeps its failure');
  req.emit('error', new Error('late')); // a late error after stopping is heard (no crash)
});
