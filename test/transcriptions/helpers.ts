// Helpers for the transcription tests: WAV files generated at test time (a real sine tone, any rate,
// channel count and bit depth, optional extra chunks), hand-framed multipart bodies, and requests
// over node:http and undici's fetch.
import { request } from 'node:http';
import { fetch, FormData, type Headers } from 'undici';
import { TEST_KEY } from '../helpers/gateway.js';

export const PATH = '/v1/audio/transcriptions';
export const AUTH = { authorization: `Bearer ${TEST_KEY}` };
/** the simulated provider answers with this text for files named `hello.*` (fixtures/audio/hello.txt) */
export const HELLO_TEXT = 'Hello from the gateway transcription test.';

export interface WavOptions {
  sampleRate: number;
  channels: number;
  bits: 8 | 16 | 24 | 32;
  frames: number;
  /** chunks written between `fmt ` and `data` (a LIST chunk by default is not added) */
  extraChunks?: { id: string; body: Buffer }[];
  extensible?: boolean;
  /** the size written in the data chunk header (default: the real size) */
  declaredDataSize?: number;
}

/** A 440 Hz tone as PCM WAV (8-bit unsigned, 16/24/32-bit signed little-endian). */
export function makeWav(o: WavOptions): Buffer {
  const bytesPerSample = o.bits / 8;
  const data = Buffer.alloc(o.frames * o.channels * bytesPerSample);
  let at = 0;
  for (let i = 0; i < o.frames; i++) {
    const v = Math.sin((2 * Math.PI * 440 * i) / o.sampleRate) * 0.5;
    for (let c = 0; c < o.channels; c++) {
      if (o.bits === 8) data.writeUInt8(Math.round(128 + v * 127), at);
      else if (o.bits === 16) data.writeInt16LE(Math.round(v * 32767), at);
      else if (o.bits === 24) data.writeIntLE(Math.round(v * 8388607), at, 3);
      else data.writeInt32LE(Math.round(v * 2147483647), at);
      at += bytesPerSample;
    }
  }
  const blockAlign = o.channels * bytesPerSample;
  const fmt = Buffer.alloc(o.extensible ? 40 : 16);
  fmt.writeUInt16LE(o.extensible ? 0xfffe : 1, 0);
  fmt.writeUInt16LE(o.channels, 2);
  fmt.writeUInt32LE(o.sampleRate, 4);
  fmt.writeUInt32LE(o.sampleRate * blockAlign, 8);
  fmt.writeUInt16LE(blockAlign, 12);
  fmt.writeUInt16LE(o.bits, 14);
  if (o.extensible) {
    fmt.writeUInt16LE(22, 16);
    fmt.writeUInt16LE(o.bits, 18);
    fmt.writeUInt32LE(o.channels === 2 ? 3 : 4, 20);
    // KSDATAFORMAT_SUBTYPE_PCM 00000001-0000-0010-8000-00aa00389b71
    Buffer.from('0100000000001000800000aa00389b71', 'hex').copy(fmt, 24);
  }
  const chunks: Buffer[] = [chunk('fmt ', fmt)];
  for (const c of o.extraChunks ?? []) chunks.push(chunk(c.id, c.body));
  const dataHeader = Buffer.alloc(8);
  dataHeader.write('data', 0, 'latin1');
  dataHeader.writeUInt32LE(o.declaredDataSize ?? data.length, 4);
  chunks.push(dataHeader, data);
  const body = Buffer.concat(chunks);
  const riff = Buffer.alloc(12);
  riff.write('RIFF', 0, 'latin1');
  riff.writeUInt32LE(4 + body.length, 4);
  riff.write('WAVE', 8, 'latin1');
  return Buffer.concat([riff, body]);
}

/** A RIFF chunk with its pad byte. */
export function chunk(id: string, body: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.write(id, 0, 'latin1');
  head.writeUInt32LE(body.length, 4);
  return Buffer.concat([head, body, Buffer.alloc(body.length & 1)]);
}

/** A LIST/INFO chunk of odd size (19 bytes), so the pad byte after it matters. */
export function listChunk(): { id: string; body: Buffer } {
  const size = Buffer.alloc(4);
  size.writeUInt32LE(7, 0);
  return { id: 'LIST', body: Buffer.concat([Buffer.from('INFOISFT', 'latin1'), size, Buffer.from('gateway', 'latin1')]) };
}

export type RawPart = { name: string; value: string } | { name: string; filename?: string; contentType?: string; data: Buffer; disposition?: string };

/** A multipart/form-data body framed by hand. */
export function multipart(boundary: string, parts: RawPart[], opts: { close?: boolean } = {}): Buffer {
  const out: Buffer[] = [];
  for (const p of parts) {
    if ('value' in p) {
      out.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${p.name}"\r\n\r\n${p.value}\r\n`));
      continue;
    }
    const disposition = p.disposition ?? `form-data; name="${p.name}"${p.filename !== undefined ? `; filename="${p.filename}"` : ''}`;
    const type = p.contentType !== undefined ? `Content-Type: ${p.contentType}\r\n` : '';
    out.push(Buffer.from(`--${boundary}\r\nContent-Disposition: ${disposition}\r\n${type}\r\n`), p.data, Buffer.from('\r\n'));
  }
  if (opts.close !== false) out.push(Buffer.from(`--${boundary}--\r\n`));
  return Buffer.concat(out);
}

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  json(): Record<string, unknown>;
}

/** POST over node:http; `body` is bytes or a generator of chunks (sent chunked unless a content-length is given). */
export function rawPost(url: string, headers: Record<string, string>, body: Buffer | AsyncIterable<Buffer>): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}${PATH}`, { method: 'POST', headers });
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json: () => JSON.parse(text) as Record<string, unknown> });
        req.destroy();
      });
      res.on('error', reject);
    });
    req.on('error', (err: NodeJS.ErrnoException) => {
      // the gateway may close the connection after answering an upload it refused
      if (err.code !== 'EPIPE' && err.code !== 'ECONNRESET') reject(err);
    });
    if (Buffer.isBuffer(body)) req.end(body);
    else {
      void (async () => {
        try {
          for await (const c of body) if (!req.write(c)) await new Promise((r) => req.once('drain', r));
          req.end();
        } catch {
          req.destroy();
        }
      })();
    }
  });
}

export function formPost(url: string, headers: Record<string, string>, boundary: string, parts: RawPart[]): Promise<RawResponse> {
  return rawPost(url, { ...headers, 'content-type': `multipart/form-data; boundary=${boundary}` }, multipart(boundary, parts));
}

export interface FetchResult {
  status: number;
  headers: Headers;
  text: string;
  body: Record<string, unknown>;
}

/** POST a FormData with undici's fetch: fields as strings, the file as a Blob with a filename. */
export async function postForm(url: string, fields: Record<string, string>, file?: { data: Buffer; filename: string; type?: string }, headers: Record<string, string> = AUTH): Promise<FetchResult> {
  const form = new FormData();
  if (file) form.append('file', new Blob([file.data], { type: file.type ?? 'application/octet-stream' }), file.filename);
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  const res = await fetch(`${url}${PATH}`, { method: 'POST', headers, body: form });
  const text = await res.text();
  let body: Record<string, unknown> = {};
  try {
    body = JSON.parse(text) as Record<string, unknown>;
  } catch {
    /* text/plain answers */
  }
  return { status: res.status, headers: res.headers, text, body };
}

export function errorCode(body: Record<string, unknown>): unknown {
  return (body.error as Record<string, unknown> | undefined)?.code;
}
