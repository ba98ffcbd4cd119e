// The multipart upload against the real bin/gateway: malformed bodies framed by hand over node:http,
// the file rules, the 25 MB limit (refused while the client is still sending), chunked uploads as
// the openai SDK sends them, and the spooled file removed afterwards.
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { AUTH, errorCode, formPost, HELLO_TEXT, makeWav, multipart, PATH, postForm, rawPost, type RawPart } from './helpers.js';
import { startTranscriptionGateway } from './transcription-gateway.js';

const gw = await startTranscriptionGateway();
t.teardown(() => gw.stop());

const B = 'test-boundary-7f3a';
const WAV = makeWav({ sampleRate: 16000, channels: 1, bits: 16, frames: 8000 });
const filePart = (over: Partial<{ filename: string; contentType: string; data: Buffer }> = {}): RawPart => ({
  name: 'file',
  filename: 'hello.wav',
  contentType: 'audio/wav',
  data: WAV,
  ...over,
});

async function refused(t: Test, label: string, headers: Record<string, string>, body: Buffer, code: string, message?: RegExp): Promise<void> {
  const res = await rawPost(gw.url, { ...AUTH, ...headers }, body);
  t.equal(res.status, 400, `${label}: status`);
  const json = res.json();
  t.equal(errorCode(json), code, `${label}: code`);
  if (message) t.match((json.error as Record<string, unknown>).message, message, `${label}: message`);
}

const mp = { 'content-type': `multipart/form-data; boundary=${B}` };

t.test('a well-formed hand-framed upload is transcribed', async (t) => {
  const res = await formPost(gw.url, AUTH, B, [{ name: 'model', value: 'whisper-1' }, filePart()]);
  t.equal(res.status, 200);
  t.equal(res.json().text, HELLO_TEXT);
});

t.test('malformed bodies: a clear 400, never a 500', async (t) => {
  await refused(t, 'no content-type', {}, multipart(B, [filePart()]), 'invalid_request', /multipart\/form-data/);
  await refused(t, 'json content-type', { 'content-type': 'application/json' }, Buffer.from('{"model":"whisper-1"}'), 'invalid_request', /multipart\/form-data/);
  await refused(t, 'urlencoded', { 'content-type': 'application/x-www-form-urlencoded' }, Buffer.from('model=whisper-1'), 'invalid_request', /multipart\/form-data/);
  await refused(t, 'missing boundary', { 'content-type': 'multipart/form-data' }, multipart(B, [filePart()]), 'invalid_request', /Boundary not found/);
  await refused(t, 'wrong boundary', { 'content-type': 'multipart/form-data; boundary=other' }, multipart(B, [filePart()]), 'invalid_request', /Unexpected end of form/);
  await refused(t, 'empty body', mp, Buffer.alloc(0), 'invalid_request', /not valid multipart/);
  await refused(t, 'no closing boundary', mp, multipart(B, [filePart()], { close: false }), 'invalid_request', /Unexpected end of form/);
  const whole = multipart(B, [{ name: 'model', value: 'whisper-1' }, filePart()]);
  await refused(t, 'cut inside the file', mp, whole.subarray(0, whole.length - 2000), 'invalid_request', /not valid multipart/);
  await refused(t, 'cut inside a part header', mp, Buffer.from(`--${B}\r\nContent-Disposition: form-data; name="mo`), 'invalid_request', /not valid multipart/);
  await refused(t, 'garbage part header', mp, Buffer.from(`--${B}\r\n\u0001\u0002 not a header\r\n\r\nx\r\n--${B}--\r\n`), 'invalid_request', /not valid multipart/);
  await refused(t, 'a part without a name', mp, multipart(B, [{ name: 'x', disposition: 'form-data', data: Buffer.from('v') }, filePart()]), 'invalid_request');
  await refused(t, 'a field over 64 KiB', mp, multipart(B, [{ name: 'prompt', value: 'x'.repeat(65 * 1024) }, filePart()]), 'invalid_request', /longer than 65536 bytes/);
});

t.test('file rules', async (t) => {
  await refused(t, 'no file part', mp, multipart(B, [{ name: 'model', value: 'whisper-1' }]), 'invalid_request', /no file part/);
  await refused(t, 'file without filename (octet-stream)', mp, multipart(B, [{ name: 'file', contentType: 'application/octet-stream', data: WAV }]), 'invalid_request', /no filename/);
  await refused(t, 'file without filename (audio/wav)', mp, multipart(B, [{ name: 'file', contentType: 'audio/wav', data: WAV }]), 'invalid_request', /no filename/);
  await refused(t, 'empty filename', mp, multipart(B, [filePart({ filename: '' })]), 'invalid_request', /no filename/);
  await refused(t, 'empty file', mp, multipart(B, [filePart({ data: Buffer.alloc(0) })]), 'invalid_request', /is empty/);
  await refused(t, 'two files', mp, multipart(B, [filePart(), filePart()]), 'invalid_request', /exactly one file/);
  await refused(t, 'a file under another name', mp, multipart(B, [{ name: 'audio', filename: 'a.wav', data: WAV }]), 'invalid_request', /unexpected file part/);
  for (const filename of ['notes.txt', 'hello', 'hello.wav.exe', 'song.aac', '.wav']) {
    await refused(t, `extension of ${filename}`, mp, multipart(B, [filePart({ filename })]), 'invalid_file_format', /supported: flac, mp3, mp4, mpeg, mpga, m4a, ogg, wav, webm/);
  }
  for (const ext of ['flac', 'mp3', 'mp4', 'mpeg', 'mpga', 'm4a', 'ogg', 'wav', 'webm', 'WAV', 'Mp3']) {
    const res = await formPost(gw.url, AUTH, B, [filePart({ filename: `hello.${ext}`, contentType: 'application/octet-stream' })]);
    t.equal(res.status, 200, `.${ext} is accepted`);
  }
});

t.test('a chunked upload with an octet-stream file part, as the openai SDK sends it', async (t) => {
  const body = multipart('openai-abcdefghij', [
    { name: 'model', value: 'gpt-4o-transcribe' },
    { name: 'file', filename: 'hello.wav', contentType: 'application/octet-stream', data: WAV },
    { name: 'response_format', value: 'json' },
    { name: 'temperature', value: '0' },
    { name: 'timestamp_granularities[]', value: 'word' },
  ]);
  async function* chunks(): AsyncGenerator<Buffer> {
    for (let i = 0; i < body.length; i += 777) yield body.subarray(i, i + 777);
  }
  const res = await rawPost(gw.url, { ...AUTH, 'content-type': 'multipart/form-data; boundary=openai-abcdefghij', 'transfer-encoding': 'chunked' }, chunks());
  t.equal(res.status, 200, 'status', { body: res.text });
  t.equal(res.json().text, HELLO_TEXT);
  const sim = (await gw.simRequests()).filter((r) => r.path.endsWith(PATH));
  t.match(sim.at(-1)!.body, { fields: { model: 'gpt-4o-transcribe', response_format: 'json', temperature: '0' }, file: { filename: 'hello.wav', mimeType: 'audio/wav', bytes: WAV.length } }, 'an untyped file part goes upstream as audio/wav');
});

t.test('FormData from undici, non-ASCII filename', async (t) => {
  const res = await postForm(gw.url, { model: 'whisper-1' }, { data: WAV, filename: 'grüße hello.wav', type: 'audio/wav' });
  t.equal(res.status, 200, 'status', { body: res.text });
  const sim = (await gw.simRequests()).filter((r) => r.path.endsWith(PATH));
  const file = (sim.at(-1)!.body as { file: { filename: string; bytes: number } }).file;
  t.equal(file.filename, 'gr__e hello.wav', 'the provider gets the filename in plain ASCII');
  t.equal(file.bytes, WAV.length);
});


t.test('a refused part ends the request at once, while the client is still sending', async (t) => {
  const cases: [string, Buffer, string][] = [
    ['bad extension', Buffer.from(`--${B}\r\nContent-Disposition: form-data; name="file"; filename="notes.txt"\r\nContent-Type: text/plain\r\n\r\n`), 'invalid_file_format'],
    ['bad field before the file', Buffer.from(`--${B}\r\nContent-Disposition: form-data; name="language"\r\n\r\nklingon\r\n--${B}\r\nContent-Disposition: form-data; name="file"; filename="a.wav"\r\n\r\n`), 'invalid_request'],
    ['bad gateway JSON before the file', Buffer.from(`--${B}\r\nContent-Disposition: form-data; name="gateway"\r\n\r\n{oops\r\n--${B}\r\nContent-Disposition: form-data; name="file"; filename="a.wav"\r\n\r\n`), 'invalid_request'],
  ];
  for (const [label, start, code] of cases) {
    let release: () => void = () => {};
    const stalled = new Promise<void>((r) => (release = r));
    async function* body(): AsyncGenerator<Buffer> {
      yield start;
      yield Buffer.alloc(64 * 1024, 1);
      await stalled; // the rest never comes until the answer is in
      yield Buffer.from(`\r\n--${B}--\r\n`);
    }
    const res = await rawPost(gw.url, { ...AUTH, ...mp, 'content-length': String(start.length + 64 * 1024 + B.length + 8) }, body());
    release();
    t.equal(res.status, 400, label);
    t.equal(errorCode(res.json()), code, label);
  }
  t.equal((await postForm(gw.url, {}, { data: WAV, filename: 'hello.wav' })).status, 200, 'the gateway is still serving');
});

const MiB = 1024 * 1024;
const LIMIT = 25 * MiB;

/** The head of a file part; the caller streams the file's bytes and the closing boundary. */
function head(filename: string): Buffer {
  return Buffer.from(`--${B}\r\nContent-Disposition: form-data; name="file"; filename="${filename}"\r\nContent-Type: audio/mpeg\r\n\r\n`);
}

t.test('a 30 MB upload is refused with file_too_large while the client is still sending', async (t) => {
  let produced = 0;
  let release: () => void = () => {};
  const stalled = new Promise<void>((r) => (release = r));
  async function* thirtyMegabytes(): AsyncGenerator<Buffer> {
    yield head('big.mp3');
    const block = Buffer.alloc(256 * 1024, 0x55);
    while (produced < 30 * MiB) {
      // after 26 MB the producer stops and waits: the answer must come without the rest of the body
      if (produced >= 26 * MiB) await stalled;
      produced += block.length;
      yield block;
    }
    yield Buffer.from(`\r\n--${B}--\r\n`);
  }
  const res = await rawPost(gw.url, { ...AUTH, ...mp, 'content-length': String(head('big.mp3').length + 30 * MiB + B.length + 8) }, thirtyMegabytes());
  t.equal(res.status, 400);
  t.equal(errorCode(res.json()), 'file_too_large');
  t.match(res.json(), { error: { message: /25 MB \(26214400 bytes\)/, param: 'file' } });
  t.ok(produced < 30 * MiB, `answered after ${produced} bytes, before the whole 30 MB was sent`);
  t.equal(res.headers.connection, 'close', 'the connection is closed instead of draining the rest');
  release();
  const after = await postForm(gw.url, {}, { data: WAV, filename: 'hello.wav' });
  t.equal(after.status, 200, 'the gateway serves the next request');
});

t.test('exactly 25 MB is accepted; one byte more is refused', async (t) => {
  const exact = Buffer.alloc(LIMIT, 0x11);
  const ok = await formPost(gw.url, AUTH, B, [{ name: 'file', filename: 'hello.mp3', contentType: 'audio/mpeg', data: exact }]);
  t.equal(ok.status, 200, 'status', { body: ok.text });
  const sim = (await gw.simRequests()).filter((r) => r.path.endsWith(PATH));
  t.equal((sim.at(-1)!.body as { file: { bytes: number } }).file.bytes, LIMIT, 'all 25 MB reached the provider');
  const over = await formPost(gw.url, AUTH, B, [{ name: 'file', filename: 'hello.mp3', contentType: 'audio/mpeg', data: Buffer.alloc(LIMIT + 1, 0x11) }]);
  t.equal(over.status, 400);
  t.equal(errorCode(over.json()), 'file_too_large');
});

t.test('the spooled upload is never left on disk, even when the gateway is killed', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'gw-spool-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  // the gateway spools into os.tmpdir(), which follows TMPDIR
  const other = await startTranscriptionGateway({}, { env: { TMPDIR: dir } });
  t.teardown(() => other.stop('SIGKILL'));
  const ok = await postForm(other.url, {}, { data: WAV, filename: 'hello.wav' });
  t.equal(ok.status, 200);
  const bad = await postForm(other.url, { language: 'xx' }, { data: WAV, filename: 'hello.wav' });
  t.equal(bad.status, 400);
  // a refused request is answered at once; its spool file (if it was being opened) goes as the request ends
  for (let i = 0; i < 100 && readdirSync(dir).length > 0; i++) await new Promise((r) => setTimeout(r, 20));
  t.same(readdirSync(dir), [], 'nothing left after answered and refused requests');
  // an upload the provider takes 1.5 s to answer: the spooled file is already unlinked while in use
  const pending = postForm(other.url, { model: 'openai/slow-transcribe' }, { data: Buffer.alloc(3 * MiB, 1), filename: 'long.mp3' }).catch(() => null);
  let sent = false;
  for (let i = 0; i < 100 && !sent; i++) {
    sent = (await other.simRequests()).some((r) => r.path.endsWith(PATH) && (r.body as { fields: Record<string, string> }).fields.model === 'fault:slow;ms=1500');
    if (!sent) await new Promise((r) => setTimeout(r, 20));
  }
  t.ok(sent, 'the upload reached the provider');
  t.same(readdirSync(dir), [], 'no named file while the request is in flight');
  await other.stop('SIGKILL');
  await pending;
  t.same(readdirSync(dir), [], 'nothing left after the gateway was killed mid-request');
});
