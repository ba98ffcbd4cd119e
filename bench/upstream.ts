// Benchmark upstream: a minimal, fast mock of the Anthropic Messages, OpenAI Chat Completions and
// OpenAI Responses APIs (JSON and SSE), so that the upstream is never what limits a run. Answers are built once per
// (protocol, model, stream, input size) and cached as bytes; the request body is read whole but not
// parsed (the model and the stream flag are found by byte search).
//
// Model-name options, as in the simulated provider (`lib/sim/spec.ts`): `<name>[;deltas=N][;delay=MS]`
//   deltas  text deltas in a stream (default 5); each is `chars` characters (default 8)
//   delay   milliseconds between deltas (default 0: the head frames are written, then after one
//           event-loop turn all deltas and the tail at once)
// The answer echoes the model string, as the gateway's integrity check requires.
//
// Run alone: node dist/bench/upstream.js [--port 0]; prints {"msg":"listening","url":...}.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { pathToFileURL } from 'node:url';
import { closeNow, listen } from '../lib/listen.js';

export interface MockSpec {
  model: string;
  deltas: number;
  delay: number;
  chars: number;
}

type Proto = 'anthropic' | 'chat' | 'responses';

interface Prepared {
  /** non-streaming: the whole JSON body */
  json?: Buffer;
  /** streaming: frames before the first delta, each delta, frames after the last */
  head?: Buffer;
  deltas?: Buffer[];
  /** all deltas in one buffer (delay 0) */
  body?: Buffer;
  tail?: Buffer;
}

const MODEL_KEY = Buffer.from('"model":"');
const STREAM_TRUE = Buffer.from('"stream":true');
const INCLUDE_USAGE = Buffer.from('"include_usage":true');
const QUOTE = 0x22;

export function parseSpec(model: string): MockSpec {
  const spec: MockSpec = { model, deltas: 5, delay: 0, chars: 8 };
  const parts = model.split(';');
  for (let i = 1; i < parts.length; i++) {
    const [k, v] = (parts[i] ?? '').split('=');
    const n = Number(v);
    if (!Number.isFinite(n) || n < 0) continue;
    if (k === 'deltas') spec.deltas = Math.max(1, Math.floor(n));
    else if (k === 'delay') spec.delay = Math.floor(n);
    else if (k === 'chars') spec.chars = Math.max(1, Math.floor(n));
  }
  return spec;
}

/** `"model":"…"` of a serialised JSON body (top-level keys come first in every body we send). */
export function findModel(body: Buffer): string {
  const at = body.indexOf(MODEL_KEY);
  if (at < 0) return 'bench';
  const start = at + MODEL_KEY.length;
  const end = body.indexOf(QUOTE, start);
  return end < 0 ? 'bench' : body.toString('utf8', start, end);
}

const sse = (event: string | null, data: unknown): string => `${event ? `event: ${event}\n` : ''}data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`;

function deltaText(i: number, chars: number): string {
  const word = `tok${i} `;
  return word.length >= chars ? word.slice(0, chars) : word + 'x'.repeat(chars - word.length);
}

function anthropic(spec: MockSpec, stream: boolean, inputTokens: number): Prepared {
  const id = 'msg_bench_0001';
  const usage = (output: number): Record<string, number> => ({ input_tokens: inputTokens, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: output });
  const texts = Array.from({ length: spec.deltas }, (_, i) => deltaText(i, spec.chars));
  if (!stream) {
    const body = { id, type: 'message', role: 'assistant', model: spec.model, content: [{ type: 'text', text: texts.join('') }], stop_reason: 'end_turn', stop_sequence: null, usage: usage(spec.deltas) };
    return { json: Buffer.from(JSON.stringify(body)) };
  }
  const head =
    sse('message_start', { type: 'message_start', message: { id, type: 'message', role: 'assistant', model: spec.model, content: [], stop_reason: null, stop_sequence: null, usage: usage(1) } }) +
    sse('content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }) +
    sse('ping', { type: 'ping' });
  const deltas = texts.map((text) => Buffer.from(sse('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } })));
  const tail =
    sse('content_block_stop', { type: 'content_block_stop', index: 0 }) +
    sse('message_delta', { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: usage(spec.deltas) }) +
    sse('message_stop', { type: 'message_stop' });
  return { head: Buffer.from(head), deltas, body: Buffer.concat(deltas), tail: Buffer.from(tail) };
}

function chat(spec: MockSpec, stream: boolean, inputTokens: number, includeUsage: boolean): Prepared {
  const id = 'chatcmpl-bench-0001';
  const created = 1_767_225_600;
  const usage = { prompt_tokens: inputTokens, completion_tokens: spec.deltas, total_tokens: inputTokens + spec.deltas, prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 }, completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 } };
  const texts = Array.from({ length: spec.deltas }, (_, i) => deltaText(i, spec.chars));
  if (!stream) {
    const body = {
      id, object: 'chat.completion', created, model: spec.model,
      choices: [{ index: 0, message: { role: 'assistant', content: texts.join(''), refusal: null, annotations: [] }, logprobs: null, finish_reason: 'stop' }],
      usage, service_tier: 'default', system_fingerprint: 'fp_bench',
    };
    return { json: Buffer.from(JSON.stringify(body)) };
  }
  const chunk = (choices: unknown[], u?: unknown): string => {
    const c: Record<string, unknown> = { id, object: 'chat.completion.chunk', created, model: spec.model, service_tier: 'default', system_fingerprint: 'fp_bench', choices };
    if (includeUsage) c.usage = u ?? null;
    return sse(null, c);
  };
  const choice = (delta: unknown, finish: string | null = null): unknown[] => [{ index: 0, delta, logprobs: null, finish_reason: finish }];
  const head = chunk(choice({ role: 'assistant', content: '', refusal: null }));
  const deltas = texts.map((content) => Buffer.from(chunk(choice({ content }))));
  const tail = chunk(choice({}, 'stop')) + (includeUsage ? chunk([], usage) : '') + sse(null, '[DONE]');
  return { head: Buffer.from(head), deltas, body: Buffer.concat(deltas), tail: Buffer.from(tail) };
}

/** The Responses layout the simulated provider streams (lib/sim/responses.ts), one text item. */
function responses(spec: MockSpec, stream: boolean, inputTokens: number): Prepared {
  const id = 'resp_bench_0001';
  const itemId = 'msg_bench_0001';
  const texts = Array.from({ length: spec.deltas }, (_, i) => deltaText(i, spec.chars));
  const text = texts.join('');
  const usage = { input_tokens: inputTokens, input_tokens_details: { cached_tokens: 0 }, output_tokens: spec.deltas, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: inputTokens + spec.deltas };
  const item = { id: itemId, type: 'message', status: 'completed', content: [{ type: 'output_text', annotations: [], logprobs: [], text }], role: 'assistant' };
  const response = (status: string, output: unknown[], u: unknown): Record<string, unknown> => ({
    id, object: 'response', created_at: 1_767_225_600, status, background: false, error: null, incomplete_details: null,
    instructions: null, max_output_tokens: null, model: spec.model, output, parallel_tool_calls: true, previous_response_id: null,
    reasoning: { effort: null, summary: null }, service_tier: 'default', store: false, temperature: 1,
    text: { format: { type: 'text' }, verbosity: 'medium' }, tool_choice: 'auto', tools: [], top_p: 1, truncation: 'disabled', usage: u, metadata: {},
  });
  if (!stream) return { json: Buffer.from(JSON.stringify(response('completed', [item], usage))) };
  let seq = 0;
  const ev = (type: string, fields: Record<string, unknown>): string => sse(type, { type, sequence_number: seq++, ...fields });
  const at = { item_id: itemId, output_index: 0, content_index: 0 };
  const head =
    ev('response.created', { response: response('in_progress', [], null) }) +
    ev('response.in_progress', { response: response('in_progress', [], null) }) +
    ev('response.output_item.added', { output_index: 0, item: { ...item, status: 'in_progress', content: [] } }) +
    ev('response.content_part.added', { ...at, part: { type: 'output_text', annotations: [], logprobs: [], text: '' } });
  const deltas = texts.map((delta) => Buffer.from(ev('response.output_text.delta', { ...at, delta, logprobs: [] })));
  const tail =
    ev('response.output_text.done', { ...at, text, logprobs: [] }) +
    ev('response.content_part.done', { ...at, part: { type: 'output_text', annotations: [], logprobs: [], text } }) +
    ev('response.output_item.done', { output_index: 0, item }) +
    ev('response.completed', { response: response('completed', [item], usage) });
  return { head: Buffer.from(head), deltas, body: Buffer.concat(deltas), tail: Buffer.from(tail) };
}

/** The non-streaming Chat answer this upstream writes for a request body `body` (for in-process benches). */
export function chatCompletionFor(body: Buffer): string {
  return chat(parseSpec(findModel(body)), false, Math.ceil(body.length / 4), false).json!.toString();
}

const SSE_HEADERS = { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' };
const MAX_CACHE = 512;

export interface Upstream {
  url: string;
  server: Server;
  close(): Promise<void>;
}

export async function startUpstream(opts: { host?: string; port?: number } = {}): Promise<Upstream> {
  const cache = new Map<string, Prepared>();
  let seq = 0;

  function prepared(proto: Proto, body: Buffer, stream: boolean): Prepared {
    const model = findModel(body);
    const inputTokens = Math.ceil(body.length / 4);
    const includeUsage = proto === 'chat' && stream && body.indexOf(INCLUDE_USAGE) >= 0;
    const key = `${proto}|${stream ? 1 : 0}|${includeUsage ? 1 : 0}|${inputTokens}|${model}`;
    let p = cache.get(key);
    if (p === undefined) {
      const spec = parseSpec(model);
      p = proto === 'anthropic' ? anthropic(spec, stream, inputTokens) : proto === 'responses' ? responses(spec, stream, inputTokens) : chat(spec, stream, inputTokens, includeUsage);
      if (cache.size >= MAX_CACHE) cache.clear();
      cache.set(key, p);
    }
    return p;
  }

  function streamAnswer(res: ServerResponse, p: Prepared, delay: number, idHeader: string): void {
    res.writeHead(200, { ...SSE_HEADERS, [idHeader]: `req_bench_${++seq}` });
    res.write(p.head!);
    let timer: NodeJS.Timeout | undefined;
    let immediate: NodeJS.Immediate | undefined;
    res.once('close', () => {
      if (timer) clearTimeout(timer);
      if (immediate) clearImmediate(immediate);
    });
    if (delay <= 0) {
      // one loop turn between the head and the rest: the head leaves in its own TCP segment
      immediate = setImmediate(() => {
        if (res.destroyed) return;
        res.write(p.body!);
        res.end(p.tail!);
      });
      return;
    }
    const deltas = p.deltas!;
    let i = 0;
    const next = (): void => {
      if (res.destroyed) return;
      res.write(deltas[i++]!);
      if (i < deltas.length) timer = setTimeout(next, delay);
      else res.end(p.tail!);
    };
    timer = setTimeout(next, delay);
  }

  function transcription(req: IncomingMessage, res: ServerResponse): void {
    // streamed and discarded: a large upload costs the upstream no memory
    let bytes = 0;
    req.on('data', (c: Buffer) => {
      bytes += c.length;
    });
    req.on('end', () => {
      const audio = Math.ceil(bytes / 1000);
      const text = `Transcribed ${bytes} bytes`;
      const body = JSON.stringify({ text, usage: { type: 'tokens', input_tokens: audio, input_token_details: { text_tokens: 0, audio_tokens: audio }, output_tokens: 3, total_tokens: audio + 3 } });
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)), 'x-request-id': `req_bench_${++seq}` });
      res.end(body);
    });
  }

  function answer(req: IncomingMessage, res: ServerResponse, proto: Proto, body: Buffer): void {
    const stream = body.indexOf(STREAM_TRUE) >= 0;
    const p = prepared(proto, body, stream);
    const idHeader = proto === 'anthropic' ? 'request-id' : 'x-request-id';
    if (!stream) {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(p.json!.length), [idHeader]: `req_bench_${++seq}` });
      res.end(p.json!);
      return;
    }
    streamAnswer(res, p, parseSpec(findModel(body)).delay, idHeader);
  }

  const server = createServer({ keepAliveTimeout: 65_000, requestTimeout: 0 }, (req, res) => {
    const path = req.url ?? '/';
    let proto: Proto | null = null;
    if (path.startsWith('/v1/messages')) proto = 'anthropic';
    else if (path.startsWith('/v1/chat/completions')) proto = 'chat';
    else if (path.startsWith('/v1/responses')) proto = 'responses';
    else if (path.startsWith('/v1/audio/transcriptions')) return transcription(req, res);
    if (proto === null || req.method !== 'POST') {
      req.resume();
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"message":"bench upstream: no such route","type":"not_found_error"}}');
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => answer(req, res, proto, chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)));
  });
  server.on('clientError', (_err, socket) => socket.destroy());
  return { url: await listen(server, opts.port ?? 0, opts.host ?? '127.0.0.1'), server, close: () => closeNow(server) };
}

export function portArg(argv: string[]): number {
  const i = argv.indexOf('--port');
  const v = i >= 0 ? Number(argv[i + 1]) : 0;
  return Number.isInteger(v) && v >= 0 && v <= 65535 ? v : 0;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const up = await startUpstream({ port: portArg(process.argv.slice(2)) });
  process.stdout.write(`${JSON.stringify({ msg: 'listening', url: up.url })}\n`);
  const stop = (): void => {
    up.close().then(() => process.exit(0), () => process.exit(1));
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}
