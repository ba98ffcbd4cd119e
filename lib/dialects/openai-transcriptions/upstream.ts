// The upstream side of a transcription: the multipart request body (generated here, streamed from
// the spooled upload, so each failover attempt re-reads it instead of holding it in memory), and
// the upstream's answer read back into text and usage.
//
// The gateway always asks the upstream for `response_format=json` (the only format that carries
// usage) and renders the client's format itself.
import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import type { JsonObject, JsonValue } from '../../chunks.js';
import { errors } from '../../errors/index.js';
import { parseStrict } from '../../json/strict-parse.js';

export interface UpstreamFile {
  filename: string;
  mimeType: string;
  bytes: number;
  /** the file's bytes from the start, read anew for each attempt */
  open(): AsyncIterable<Buffer>;
}

export interface MultipartBody {
  contentType: string;
  /** exact byte length (sent as content-length) */
  length: number;
  /** a fresh stream of the whole body: call once per attempt */
  open(): Readable;
}

/**
 * The filename sent upstream: characters outside printable ASCII, quotes and backslashes become `_`.
 * A provider needs only the extension (it names the format); plain ASCII leaves no doubt about the
 * part header's charset.
 */
export function upstreamFilename(name: string): string {
  return name.replace(/[^\x20-\x7e]|["\\]/gu, '_');
}

/** A content type safe to put on a header line (busboy gives `type/subtype`; anything odd becomes octet-stream). */
function safeMime(mime: string): string {
  return /^[\w.+-]+\/[\w.+-]+$/.test(mime) ? mime : 'application/octet-stream';
}

export function multipartBody(fields: readonly (readonly [string, string])[], file: UpstreamFile): MultipartBody {
  const boundary = `----gateway-${randomBytes(16).toString('hex')}`;
  let head = '';
  for (const [name, value] of fields) head += `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;
  head += `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${upstreamFilename(file.filename)}"\r\nContent-Type: ${safeMime(file.mimeType)}\r\n\r\n`;
  const headBytes = Buffer.from(head, 'utf8');
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`, 'latin1');
  async function* parts(): AsyncGenerator<Buffer> {
    yield headBytes;
    yield* file.open();
    yield tail;
  }
  return {
    contentType: `multipart/form-data; boundary=${boundary}`,
    length: headBytes.length + file.bytes + tail.length,
    open: () => Readable.from(parts(), { objectMode: false }),
  };
}

export interface UpstreamTranscript {
  text: string;
  /** token usage, when the upstream reported it */
  tokens: { input: number; output: number } | null;
  /** audio duration the upstream reported (`usage.type: duration`, or verbose `duration`) */
  seconds: number | null;
}

function isObject(v: JsonValue | undefined): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function tokenCount(usage: JsonObject, key: string): number {
  const v = usage[key];
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0) throw errors.transcriptionAnswerInvalid(`has an invalid usage.${key} (${JSON.stringify(v)}).`);
  return v;
}

function duration(v: JsonValue | undefined, path: string): number | null {
  if (v === undefined || v === null) return null;
  if (typeof v !== 'number' || !(v >= 0)) throw errors.transcriptionAnswerInvalid(`has an invalid ${path} (${JSON.stringify(v)}).`);
  return v;
}

/** The upstream's 2xx answer: JSON `{text, usage?}` (or plain text when it answered text/plain). */
export function parseUpstreamTranscript(body: string, contentType: string | undefined): UpstreamTranscript {
  if (contentType !== undefined && /^text\/plain\b/i.test(contentType)) return { text: body, tokens: null, seconds: null };
  let value: JsonValue;
  try {
    value = parseStrict(body);
  } catch (err) {
    throw errors.transcriptionAnswerInvalid(`is not valid JSON: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (!isObject(value)) throw errors.transcriptionAnswerInvalid('is not a JSON object.');
  if (typeof value.text !== 'string') throw errors.transcriptionAnswerInvalid('has no "text" string.');
  let tokens: UpstreamTranscript['tokens'] = null;
  let seconds = duration(value.duration, 'duration');
  const usage = value.usage;
  if (usage !== undefined && usage !== null) {
    if (!isObject(usage)) throw errors.transcriptionAnswerInvalid('has a "usage" that is not an object.');
    if (usage.type === 'duration') seconds = duration(usage.seconds, 'usage.seconds') ?? seconds;
    else if (usage.type === 'tokens' || usage.input_tokens !== undefined || usage.output_tokens !== undefined) {
      tokens = { input: tokenCount(usage, 'input_tokens'), output: tokenCount(usage, 'output_tokens') };
    }
  }
  return { text: value.text, tokens, seconds };
}
