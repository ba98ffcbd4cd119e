// A scripted loopback upstream for the failure-mode tests (FAILURE-MODES.md): each upstream model name
// maps to one canned answer (status, headers, body as one piece or as timed pieces), so a test can
// reproduce exactly what a misbehaving provider sent, and the requests it received are kept for
// assertions. One server and one gateway serve a whole test file.
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { baseConfig, startGateway, type RunningGateway } from '../helpers/gateway.js';
import { ROOT } from '../helpers/paths.js';

export interface Canned {
  status?: number;
  headers?: Record<string, string>;
  /** the body: one string, or pieces written `gapMs` apart (a Buffer piece may cut a UTF-8 character) */
  body: string | (string | Buffer)[];
  gapMs?: number;
  /** wait this long before the head (a slow upstream) */
  delayMs?: number;
  /** gzip the body and say so in content-encoding */
  gzip?: boolean;
  /** close the socket after the body without a clean end (a cut stream) */
  cut?: boolean;
}

export interface Received {
  path: string;
  headers: IncomingMessage['headers'];
  body: Record<string, any>;
  raw: Buffer;
}

export interface Upstream {
  url: string;
  requests: Received[];
  /** requests whose body named this upstream model */
  calls(model: string): Received[];
  close(): Promise<void>;
}

export type Script = Record<string, Canned | ((req: Received) => Canned)>;

/** recorded provider traffic shared by the project (../shared/fixtures/upstream; a copy lives in fixtures/upstream) */
const SHARED_FIXTURES = join(ROOT, 'fixtures', 'upstream');

export const SSE = { 'content-type': 'text/event-stream' };
export const JSON_HEAD = { 'content-type': 'application/json' };

export async function scriptedUpstream(script: Script): Promise<Upstream> {
  const requests: Received[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      let body: Record<string, any> = {};
      try {
        body = JSON.parse(raw.toString('utf8')) as Record<string, any>;
      } catch {
        /* multipart or empty */
      }
      const rec: Received = { path: req.url ?? '/', headers: req.headers, body, raw };
      requests.push(rec);
      const entry = script[String(body.model)];
      if (entry === undefined) {
        res.writeHead(404, JSON_HEAD);
        res.end(JSON.stringify({ error: { message: `scripted upstream: no script for ${String(body.model)}`, type: 'not_found_error' } }));
        return;
      }
      const c = typeof entry === 'function' ? entry(rec) : entry;
      void answer(res, c);
    });
  });
  async function answer(res: import('node:http').ServerResponse, c: Canned): Promise<void> {
    if (c.delayMs) await sleep(c.delayMs);
    const pieces = typeof c.body === 'string' ? [c.body] : c.body;
    const headers: Record<string, string> = { ...(c.headers ?? SSE) };
    if (c.gzip) {
      const z = gzipSync(Buffer.concat(pieces.map((p) => (typeof p === 'string' ? Buffer.from(p, 'utf8') : p))));
      res.writeHead(c.status ?? 200, { ...headers, 'content-encoding': 'gzip', 'content-length': String(z.length) });
      res.end(z);
      return;
    }
    res.writeHead(c.status ?? 200, headers);
    for (let i = 0; i < pieces.length; i++) {
      if (i > 0 && c.gapMs) await sleep(c.gapMs);
      if (res.destroyed) return;
      res.write(pieces[i]);
    }
    if (c.cut) res.socket?.destroy();
    else res.end();
  }
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    calls: (model) => requests.filter((r) => r.body.model === model),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** One SSE frame; `event` omitted for OpenAI-style streams. */
export function frame(data: unknown, event?: string): string {
  return `${event ? `event: ${event}\n` : ''}data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`;
}

/** Anthropic SSE: each value's `type` is its event name. */
export function anthropicSse(...evs: Record<string, unknown>[]): string {
  return evs.map((e) => frame(e, String(e.type))).join('');
}

/** OpenAI Chat SSE from chunk deltas, then [DONE]. */
export function chatSse(model: string, chunks: Record<string, unknown>[], done = true): string {
  return chunks.map((c) => frame({ id: 'chatcmpl-up', object: 'chat.completion.chunk', created: 1, model, ...c })).join('') + (done ? frame('[DONE]') : '');
}

/** One Chat chunk with a single choice. */
export function delta(d: Record<string, unknown>, finish: string | null = null): Record<string, unknown> {
  return { choices: [{ index: 0, delta: d, finish_reason: finish }] };
}

/** The final usage chunk of a Chat stream. */
export function usageChunk(prompt: number, completion: number, cached = 0): Record<string, unknown> {
  return { choices: [], usage: { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion, prompt_tokens_details: { cached_tokens: cached } } };
}

/** A whole Chat completion (non-streaming). */
export function chatJson(model: string, message: Record<string, unknown>, finish: string, usage = { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 }): string {
  return JSON.stringify({ id: 'chatcmpl-up', object: 'chat.completion', created: 1, model, choices: [{ index: 0, message: { role: 'assistant', content: null, ...message }, finish_reason: finish }], usage });
}

/** The Anthropic message_start event. */
export function messageStart(model: string, usage: Record<string, unknown> = { input_tokens: 10, output_tokens: 1 }): Record<string, unknown> {
  return { type: 'message_start', message: { id: 'msg_up', type: 'message', role: 'assistant', model, content: [], stop_reason: null, stop_sequence: null, usage } };
}

/** A whole Anthropic stream: message_start, the given blocks (each opened, streamed, closed), message_delta, message_stop. */
export function anthropicStream(model: string, blocks: Record<string, unknown>[], stop: string, usage: Record<string, unknown> = { input_tokens: 10, output_tokens: 5 }): string {
  const evs: Record<string, unknown>[] = [messageStart(model, { ...usage, output_tokens: 1 })];
  blocks.forEach((b, index) => {
    if (b.type === 'text') {
      evs.push({ type: 'content_block_start', index, content_block: { type: 'text', text: '' } });
      evs.push({ type: 'content_block_delta', index, delta: { type: 'text_delta', text: b.text } });
    } else if (b.type === 'thinking') {
      evs.push({ type: 'content_block_start', index, content_block: { type: 'thinking', thinking: '', signature: '' } });
      evs.push({ type: 'content_block_delta', index, delta: { type: 'thinking_delta', thinking: b.thinking } });
      evs.push({ type: 'content_block_delta', index, delta: { type: 'signature_delta', signature: b.signature } });
    } else if (b.type === 'tool_use') {
      evs.push({ type: 'content_block_start', index, content_block: { type: 'tool_use', id: b.id, name: b.name, input: {} } });
      const json = b.json as string | undefined;
      if (json !== undefined) evs.push({ type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: json } });
    }
    evs.push({ type: 'content_block_stop', index });
  });
  evs.push({ type: 'message_delta', delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: usage.output_tokens } });
  evs.push({ type: 'message_stop' });
  return anthropicSse(...evs);
}

/** A whole Anthropic message (non-streaming). */
export function anthropicJson(model: string, content: Record<string, unknown>[], stop: string, usage: Record<string, unknown> = { input_tokens: 10, output_tokens: 5 }): string {
  return JSON.stringify({ id: 'msg_up', type: 'message', role: 'assistant', model, content, stop_reason: stop, stop_sequence: null, usage });
}

/** A Responses upstream stream from output items (message text / function_call), with usage. */
export function responsesStream(model: string, items: Record<string, unknown>[], opts: { status?: string; usage?: Record<string, unknown>; incomplete?: string } = {}): string {
  const usage = opts.usage ?? { input_tokens: 10, output_tokens: 5, total_tokens: 15, input_tokens_details: { cached_tokens: 0 }, output_tokens_details: { reasoning_tokens: 0 } };
  const base = { id: 'resp_up', object: 'response', created_at: 1, model, status: 'in_progress', output: [] as unknown[], usage: null as unknown };
  const evs: Record<string, unknown>[] = [{ type: 'response.created', response: base }, { type: 'response.in_progress', response: base }];
  const done: Record<string, unknown>[] = [];
  items.forEach((it, output_index) => {
    if (it.type === 'message') {
      const id = `msg_up_${output_index}`;
      evs.push({ type: 'response.output_item.added', output_index, item: { id, type: 'message', role: 'assistant', status: 'in_progress', content: [] } });
      evs.push({ type: 'response.content_part.added', item_id: id, output_index, content_index: 0, part: { type: 'output_text', text: '', annotations: [] } });
      evs.push({ type: 'response.output_text.delta', item_id: id, output_index, content_index: 0, delta: it.text });
      evs.push({ type: 'response.output_text.done', item_id: id, output_index, content_index: 0, text: it.text });
      const part = { type: 'output_text', text: it.text, annotations: [] };
      evs.push({ type: 'response.content_part.done', item_id: id, output_index, content_index: 0, part });
      const item = { id, type: 'message', role: 'assistant', status: 'completed', content: [part] };
      evs.push({ type: 'response.output_item.done', output_index, item });
      done.push(item);
    } else if (it.type === 'function_call') {
      const id = `fc_up_${output_index}`;
      const pieces = (it.pieces as string[] | undefined) ?? [String(it.arguments)];
      evs.push({ type: 'response.output_item.added', output_index, item: { id, type: 'function_call', status: 'in_progress', call_id: it.call_id, name: it.name, arguments: '' } });
      for (const p of pieces) evs.push({ type: 'response.function_call_arguments.delta', item_id: id, output_index, delta: p });
      const args = pieces.join('');
      evs.push({ type: 'response.function_call_arguments.done', item_id: id, output_index, arguments: args });
      const item = { id, type: 'function_call', status: 'completed', call_id: it.call_id, name: it.name, arguments: args };
      evs.push({ type: 'response.output_item.done', output_index, item });
      done.push(item);
    }
  });
  const status = opts.status ?? 'completed';
  const terminal = status === 'incomplete' ? 'response.incomplete' : 'response.completed';
  evs.push({ type: terminal, response: { ...base, status, output: done, usage, incomplete_details: opts.incomplete ? { reason: opts.incomplete } : null } });
  return responsesSse(...evs);
}

/** Responses SSE: each value's `type` is its event name; sequence numbers added. */
export function responsesSse(...evs: Record<string, unknown>[]): string {
  return evs.map((e, i) => frame({ ...e, sequence_number: i }, String(e.type))).join('');
}

export type Api = 'messages' | 'chat' | 'responses';

/** A catalog model served by the scripted upstream under upstream name `name`. */
export interface FmModel {
  name: string;
  api: Api;
  family?: string;
  extra?: Record<string, unknown>;
}

export const modelId = (m: FmModel | string): string => `fm/${typeof m === 'string' ? m : m.name}`;

/** The base config plus one provider per protocol pointing at the scripted upstream and a model per entry. */
export function fmConfig(upUrl: string, models: FmModel[], extra: Record<string, unknown> = {}): Record<string, unknown> {
  const base = baseConfig();
  return {
    ...base,
    providers: [
      ...(base.providers as Record<string, unknown>[]),
      { id: 'up-anthropic', protocol: 'anthropic', baseUrl: upUrl, apiKey: 'sk-up-anthropic', timeoutMs: 4000, idleTimeoutMs: 4000 },
      { id: 'up-openai', protocol: 'openai', baseUrl: `${upUrl}/v1`, apiKey: 'sk-up-openai', timeoutMs: 4000, idleTimeoutMs: 4000 },
    ],
    models: [
      ...(base.models as Record<string, unknown>[]),
      ...models.map((m) => ({
        id: modelId(m),
        family: m.family ?? (m.api === 'messages' ? 'anthropic' : 'openai'),
        deployments: [{ provider: m.api === 'messages' ? 'up-anthropic' : 'up-openai', model: m.name, ...(m.api === 'messages' ? {} : { api: m.api }) }],
        pricing: { input: 1, output: 2, cacheRead: 0.1, cacheWrite: 1.25 },
        input: ['text', 'image'],
        maxOutputTokens: 8192,
        contextWindow: 200000,
        ...m.extra,
      })),
    ],
    ...extra,
  };
}

/** Scripted upstream + gateway for one test file; both closed at teardown. */
export async function startFm(
  t: { teardown(fn: () => unknown): void },
  script: Script,
  models: FmModel[],
  extra: Record<string, unknown> = {},
): Promise<{ up: Upstream; gw: RunningGateway }> {
  const up = await scriptedUpstream(script);
  const gw = await startGateway(fmConfig(up.url, models, extra));
  t.teardown(async () => {
    await gw.stop();
    await up.close();
  });
  return { up, gw };
}

/** A recorded upstream error from the shared fixtures (`errors/<name>.json`: status, headers, body). */
export function recordedError(name: string): Canned {
  const rec = JSON.parse(readFileSync(join(SHARED_FIXTURES, 'errors', `${name}.json`), 'utf8')) as { status: number; headers: Record<string, string> | null; body: string };
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  for (const [k, v] of Object.entries(rec.headers ?? {})) if (/^(retry-after|x-should-retry|anthropic-ratelimit-.*|x-ratelimit-.*)$/.test(k)) headers[k] = v;
  return { status: rec.status, headers, body: rec.body };
}

/** A recorded upstream stream from the shared fixtures (`<dialect>/<name>.sse`). */
export function recordedStream(path: string): string {
  return readFileSync(join(SHARED_FIXTURES, path), 'utf8');
}
