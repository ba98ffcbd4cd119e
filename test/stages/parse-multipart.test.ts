// parse-multipart: a multipart/form-data body → one Upload (the text fields, and the file part spooled
// to a private temporary file, its bytes counted and shown to the probe). The same upload, fed whole,
// byte by byte and in random chunks, gives the same fields, file bytes and probe result; and the same
// refusal (code, field path) when it is refused. The spool is gone once the stage is closed.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import type { RequestContext } from '../../lib/context.js';
import { parseMultipart, type ByteProbe, type MultipartOptions, type Upload } from '../../stages/parse-multipart.js';
import { makeContext } from '../helpers/context.js';
import { run, sameForEveryFeeding } from './harness.js';

const BOUNDARY = '----gateway-test-7MA4YWxk';
const AUDIO = randomBytes(3000);
const dir = mkdtempSync(join(tmpdir(), 'stage-multipart-'));

type Part = { name: string; value: string } | { name: string; filename: string; data: Buffer; type?: string };

function form(parts: Part[]): Buffer {
  const out: Buffer[] = [];
  for (const p of parts) {
    const head = 'filename' in p
      ? `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${p.name}"; filename="${p.filename}"\r\nContent-Type: ${p.type ?? 'audio/wav'}\r\n\r\n`
      : `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${p.name}"\r\n\r\n`;
    out.push(Buffer.from(head), 'filename' in p ? p.data : Buffer.from(p.value), Buffer.from('\r\n'));
  }
  out.push(Buffer.from(`--${BOUNDARY}--\r\n`));
  return Buffer.concat(out);
}

/** Counts the bytes it sees and keeps their sum: the probe's result. */
const summer = (): ByteProbe<{ seen: number; sum: number; total: number }> => {
  let seen = 0;
  let sum = 0;
  return { feed: (c) => ((seen += c.length), (sum = c.reduce((a, b) => (a + b) % 65521, sum))), result: (total) => ({ seen, sum, total }) };
};

const OPTS: MultipartOptions<{ seen: number; sum: number; total: number }> = { fileField: 'file', maxFileBytes: 4000, extensions: ['wav', 'mp3'], dir, probe: (ext) => (ext === 'wav' ? summer() : null) };

function contextFor(type = `multipart/form-data; boundary=${BOUNDARY}`): RequestContext {
  return { ...makeContext({ endpoint: 'audio.transcriptions', dialect: 'openai-transcriptions' }), headers: { 'content-type': type } };
}

/** Parse, read the spooled file back, close the stage: what a user of the upload sees. */
async function parse(chunks: Buffer[], opts = OPTS, ctx = contextFor()) {
  const stage = parseMultipart(opts)(ctx);
  const got = await run(stage, chunks, ctx);
  let file: object | undefined;
  const upload = got.values[0] as Upload<unknown> | undefined;
  if (upload) {
    const { open, ...meta } = upload.file;
    const read = async (): Promise<Buffer> => {
      const parts: Buffer[] = [];
      for await (const c of open()) parts.push(c);
      return Buffer.concat(parts);
    };
    const [first, again] = [await read(), await read()];
    file = { ...meta, same: first.equals(AUDIO), readTwice: again.equals(first) };
  }
  await stage.close?.(ctx, got.error);
  return { fields: upload?.fields, file, error: got.error && { code: got.error.code, status: got.error.status, param: got.error.param, message: got.error.message } };
}

t.test('an upload: fields, the file spooled and read back (twice), the probe result; the same for every chunking', async (t) => {
  const body = form([{ name: 'model', value: 'whisper-1' }, { name: 'file', filename: 'Talk.WAV', data: AUDIO }, { name: 'language', value: 'en' }]);
  const got = await sameForEveryFeeding(t, body, 'multipart ok', (chunks) => parse(chunks));
  t.equal(got.error, undefined);
  t.same(got.fields, [{ name: 'model', value: 'whisper-1' }, { name: 'language', value: 'en' }]);
  t.match(got.file, { field: 'file', filename: 'Talk.WAV', extension: 'wav', mimeType: 'audio/wav', bytes: AUDIO.length, same: true, readTwice: true });
  t.match(got.file, { probe: { seen: AUDIO.length, total: AUDIO.length } }, 'the probe saw every byte');
  const mp3 = await parse([form([{ name: 'file', filename: 'a.mp3', data: AUDIO }])]);
  t.match(mp3.file, { extension: 'mp3', probe: null }, 'no probe for that extension');
});

t.test('refusals, the same for every chunking: code, status and the field they name', async (t) => {
  const file = { name: 'file', filename: 'a.wav', data: AUDIO };
  const cases: [string, Buffer, { code: string; param?: string; message: RegExp }][] = [
    ['a file over the limit', form([{ ...file, data: randomBytes(4001) }]), { code: 'GW_ERR_FILE_TOO_LARGE', param: 'file', message: /larger than the limit of 4000 bytes/ }],
    ['an extension not accepted', form([{ ...file, filename: 'a.exe' }]), { code: 'GW_ERR_FILE_FORMAT_INVALID', param: 'file', message: /unsupported file format/ }],
    ['no file part', form([{ name: 'model', value: 'm' }]), { code: 'GW_ERR_REQUEST_INVALID', param: 'file', message: /no file part/ }],
    ['an empty file', form([{ ...file, data: Buffer.alloc(0) }]), { code: 'GW_ERR_REQUEST_INVALID', param: 'file', message: /is empty/ }],
    ['the file part sent as text', form([{ name: 'file', value: 'abc' }]), { code: 'GW_ERR_REQUEST_INVALID', param: 'file', message: /has no filename/ }],
    ['a file under another name', form([{ ...file, name: 'audio' }]), { code: 'GW_ERR_REQUEST_INVALID', param: 'audio', message: /unexpected file part/ }],
    ['a second file', form([file, file]), { code: 'GW_ERR_REQUEST_INVALID', param: 'file', message: /exactly one file part/ }],
    ['a field over its size', form([{ name: 'prompt', value: 'p'.repeat(65) }, file]), { code: 'GW_ERR_REQUEST_INVALID', param: 'prompt', message: /longer than 64 bytes/ }],
    ['a body cut short', form([file]).subarray(0, 500), { code: 'GW_ERR_REQUEST_INVALID', message: /not valid multipart\/form-data/ }],
  ];
  for (const [what, body, expected] of cases) {
    const got = await sameForEveryFeeding(t, body, `multipart ${what}`, (chunks) => parse(chunks, { ...OPTS, maxFieldBytes: 64 }));
    t.match(got.error, { status: 400, ...expected }, what);
  }
});

t.test('onField refuses a bad field as it arrives', async (t) => {
  const body = form([{ name: 'temperature', value: 'hot' }, { name: 'file', filename: 'a.wav', data: AUDIO }]);
  const onField = (f: { name: string; value: string }): void => {
    if (f.name === 'temperature') throw Object.assign(new Error('x'), {});
  };
  const internal = await parse([body], { ...OPTS, onField });
  t.match(internal.error, { code: 'GW_ERR_INTERNAL' }, 'a plain throw is an internal error');
  const { errors } = await import('../../lib/errors/index.js');
  const refused = await parse([body], { ...OPTS, onField: (f) => { if (f.name === 'temperature') throw errors.formFieldInvalid('temperature', 'not a number'); } });
  t.match(refused.error, { code: 'GW_ERR_REQUEST_INVALID', param: 'temperature', message: 'temperature: not a number' });
});

t.test('not multipart, or no boundary: refused at the first byte', async (t) => {
  t.match((await parse([Buffer.from('{}')], OPTS, contextFor('application/json'))).error, { code: 'GW_ERR_CONTENT_TYPE_INVALID', status: 400, message: /got "application\/json"/ });
  t.match((await parse([Buffer.from('x')], OPTS, contextFor('multipart/form-data'))).error, { code: 'GW_ERR_REQUEST_INVALID', message: /not valid multipart/ });
});

t.test('closed before the body ended (client gone): the spool is released all the same', async (t) => {
  const ctx = contextFor();
  const stage = parseMultipart(OPTS)(ctx);
  const body = form([{ name: 'file', filename: 'a.wav', data: AUDIO }]);
  const out = stage.step(body.subarray(0, 2000), ctx);
  if (out && Symbol.asyncIterator in out) for await (const _ of out);
  await new Promise((r) => setTimeout(r, 20));
  await stage.close?.(ctx, undefined);
  t.same(readdirSync(dir), [], 'close returned (the body never ended) and no temporary file is left');
});

t.test('after every upload above, refused or not: no spooled file is left behind', async (t) => {
  t.same(readdirSync(dir), []);
  rmSync(dir, { recursive: true, force: true });
});
