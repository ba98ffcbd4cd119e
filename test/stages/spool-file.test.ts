// spool-file (parse-multipart's helper): a private temporary file, unlinked as soon as it is created,
// written once through `sink` and read back from the start as often as needed (once per upstream
// attempt), in chunks of at most 64 KiB. Whatever chunks it was written in, it reads back the same bytes.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import t from 'tap';
import { SpoolFile } from '../../stages/spool-file.js';
import { sameForEveryFeeding } from './harness.js';

const dir = mkdtempSync(join(tmpdir(), 'stage-spool-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));

async function readAll(file: SpoolFile): Promise<{ bytes: Buffer; sizes: number[] }> {
  const parts: Buffer[] = [];
  for await (const c of file.read()) parts.push(c);
  return { bytes: Buffer.concat(parts), sizes: parts.map((p) => p.length) };
}

t.test('written in any chunking, read back the same bytes, twice; the name is gone at once', async (t) => {
  const data = randomBytes(150 * 1024 + 17);
  const got = await sameForEveryFeeding(t, data.subarray(0, 4096), 'spool small', async (chunks) => {
    const file = await SpoolFile.create(dir, 'test');
    const seen: number[] = [];
    await pipeline(Readable.from(chunks, { objectMode: false }), file.sink((c) => seen.push(c.length)));
    const back = await readAll(file);
    await file.dispose();
    return { bytes: file.bytes, back: back.bytes.toString('base64'), seen: seen.reduce((a, b) => a + b, 0) };
  });
  t.same(got, { bytes: 4096, back: data.subarray(0, 4096).toString('base64'), seen: 4096 }, 'onChunk saw every byte before it was written');

  const file = await SpoolFile.create(dir, 'big');
  t.same(readdirSync(dir), [], 'unlinked as soon as created: only the open handle keeps it');
  await pipeline(Readable.from([data.subarray(0, 70_000), data.subarray(70_000)]), file.sink(() => {}));
  const first = await readAll(file);
  const second = await readAll(file);
  t.ok(first.bytes.equals(data), 'the bytes written');
  t.ok(second.bytes.equals(data), 'and again from the start');
  t.same(first.sizes, [65536, 65536, data.length - 131072], 'read in chunks of at most 64 KiB');
  await file.dispose();
  await t.rejects(readAll(file), 'after dispose the file cannot be read');
});

t.test('an empty spool reads back nothing', async (t) => {
  const file = await SpoolFile.create(dir, 'empty');
  t.same((await readAll(file)).sizes, []);
  t.equal(file.bytes, 0);
  await file.dispose();
});
