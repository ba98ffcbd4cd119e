// Replays recorded upstream responses (`fixture:<path>` model names) byte for byte from
// fixtures/upstream/. Options: chunk=N (write in N-byte pieces), delay=MS (between pieces).
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join, normalize, sep } from 'node:path';
import type { Out } from './io.js';
import { isObj } from './json.js';
import { fixturesDir, optInt, type SimSpec } from './spec.js';

export function upstreamDir(): string {
  return join(fixturesDir(), 'upstream');
}

/** The file a `fixture:` argument names, or undefined. Prefers .sse when streaming, else .json. */
export function resolveFixture(arg: string, stream: boolean): string | undefined {
  const root = upstreamDir();
  const rel = normalize(arg);
  if (arg === '' || arg.includes('\0') || rel.startsWith('..') || rel.startsWith(sep)) return undefined;
  const base = join(root, rel);
  if (!base.startsWith(root + sep)) return undefined;
  const exts = /\.(sse|json)$/.test(rel) ? [''] : stream ? ['.sse', '.json'] : ['.json', '.sse'];
  for (const ext of exts) {
    const p = base + ext;
    if (existsSync(p) && statSync(p).isFile()) return p;
  }
  return undefined;
}

/** Response headers of a recorded error worth replaying. */
const KEEP_HEADER = /^(retry-after|retry-after-ms|request-id|x-request-id|content-type|x-should-retry|anthropic-ratelimit-.*|x-ratelimit-.*)$/;

interface Recorded {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

function recordedError(file: Buffer): Recorded | undefined {
  let rec: unknown;
  try {
    rec = JSON.parse(file.toString('utf8'));
  } catch {
    return undefined;
  }
  if (!isObj(rec) || typeof rec.status !== 'number' || typeof rec.body !== 'string') return undefined;
  const headers: Record<string, string> = {};
  if (isObj(rec.headers)) {
    for (const [k, v] of Object.entries(rec.headers)) {
      if (typeof v === 'string' && KEEP_HEADER.test(k.toLowerCase())) headers[k.toLowerCase()] = v;
    }
  }
  if (headers['content-type'] === undefined) headers['content-type'] = 'application/json';
  return { status: rec.status, headers, body: Buffer.from(rec.body, 'utf8') };
}

async function writePieces(out: Out, body: Buffer, spec: SimSpec): Promise<void> {
  const chunk = optInt(spec, 'chunk', 0);
  const delay = optInt(spec, 'delay', 0);
  const size = chunk > 0 ? chunk : body.length || 1;
  for (let i = 0; i < body.length; i += size) {
    if (i > 0 && delay > 0 && !(await out.sleep(delay))) return;
    if (!out.write(body.subarray(i, i + size))) return;
  }
  out.end();
}

export async function replayFixture(out: Out, spec: SimSpec, stream: boolean): Promise<void> {
  const file = resolveFixture(spec.arg, stream);
  if (file === undefined) {
    out.error(404, `sim: no fixture "${spec.arg}" (looked for fixtures/upstream/${spec.arg}.sse and .json)`, {
      type: out.proto === 'anthropic' ? 'not_found_error' : 'invalid_request_error',
      code: out.proto === 'anthropic' ? undefined : 'model_not_found',
    });
    return;
  }
  const bytes = readFileSync(file);
  const rel = file.slice(upstreamDir().length + 1).split(sep).join('/');
  if (rel.startsWith('errors/') && rel.endsWith('.json')) {
    const rec = recordedError(bytes);
    if (!rec) {
      out.error(500, `sim: fixture ${rel} is not a recorded error ({status, headers, body})`);
      return;
    }
    if (out.begin(rec.status, { ...rec.headers, 'content-length': String(rec.body.length) })) {
      await writePieces(out, rec.body, spec);
    }
    return;
  }
  if (file.endsWith('.sse')) {
    if (out.startSse()) await writePieces(out, bytes, spec);
    return;
  }
  if (out.begin(200, { 'content-type': 'application/json', 'content-length': String(bytes.length) })) {
    await writePieces(out, bytes, spec);
  }
}
