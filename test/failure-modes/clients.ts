// Client-side helpers for the failure-mode tests: one call per client dialect against bin/gateway,
// and the stream checks a strict client applies (Anthropic's SDK / Claude Code, the OpenAI SDKs and
// the AI SDK, Codex), so each test states only what its failure mode is about.
import type { Test } from 'tap';
import { messagesHeaders, TEST_KEY, type RunningGateway } from '../helpers/gateway.js';
import { parseSse, type SseFrame } from '../helpers/messages.js';

export interface Answer {
  status: number;
  headers: Headers;
  text: string;
  frames: SseFrame[];
  /** the JSON body, or undefined for a stream / non-JSON */
  json: any;
  /** each SSE frame's data parsed (undefined where not JSON, e.g. [DONE]) */
  data: any[];
}

export type Endpoint = 'messages' | 'chat' | 'responses';

const PATHS: Record<Endpoint, string> = { messages: '/v1/messages', chat: '/v1/chat/completions', responses: '/v1/responses' };

export function clientHeaders(ep: Endpoint, extra: Record<string, string> = {}): Record<string, string> {
  return ep === 'messages' ? messagesHeaders(extra) : { 'content-type': 'application/json', authorization: `Bearer ${TEST_KEY}`, ...extra };
}

export async function send(gw: RunningGateway, ep: Endpoint, body: unknown, opts: { headers?: Record<string, string>; rawHeaders?: Record<string, string>; path?: string; raw?: string | Buffer } = {}): Promise<Answer> {
  const res = await fetch(`${gw.url}${opts.path ?? PATHS[ep]}`, {
    method: 'POST',
    headers: opts.rawHeaders ?? clientHeaders(ep, opts.headers),
    body: opts.raw ?? JSON.stringify(body),
  });
  const text = await res.text();
  return answerOf(res.status, res.headers, text);
}

export function answerOf(status: number, headers: Headers, text: string): Answer {
  let json: any;
  if ((headers.get('content-type') ?? '').includes('json')) {
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
  }
  const frames = (headers.get('content-type') ?? '').includes('event-stream') ? parseSse(text) : [];
  const data = frames.map((f) => {
    try {
      return JSON.parse(f.data);
    } catch {
      return undefined;
    }
  });
  return { status, headers, text, frames, json, data };
}

/** What the Anthropic SDK's stream accumulator needs: event lines, one message_start first, blocks opened before use, closed, one terminal. */
export function checkMessagesStream(t: Test, a: Answer, { terminal = 'message_stop' }: { terminal?: 'message_stop' | 'error' } = {}): void {
  t.equal(a.status, 200, `stream status: ${a.text.slice(0, 300)}`);
  const open = new Set<number>();
  let next = 0;
  let starts = 0;
  const problems: string[] = [];
  a.frames.forEach((f, i) => {
    const d = a.data[i];
    if (f.event === undefined) problems.push(`frame ${i} has no event: line`);
    else if (d?.type !== f.event) problems.push(`frame ${i}: event ${f.event} but data.type ${d?.type}`);
    if (f.event === 'message_start') starts++;
    if (f.event === 'content_block_start') {
      if (d.index !== next) problems.push(`block started at index ${d.index}, expected ${next}`);
      open.add(d.index);
      next++;
    }
    if (f.event === 'content_block_delta' && !open.has(d.index)) problems.push(`delta for block ${d.index} that is not open`);
    if (f.event === 'content_block_stop') {
      if (!open.has(d.index)) problems.push(`stop for block ${d.index} that is not open`);
      open.delete(d.index);
    }
  });
  t.same(problems, [], 'stream well-formed');
  t.equal(starts, 1, 'exactly one message_start');
  if (terminal === 'message_stop') {
    t.equal(a.frames[0]?.event, 'message_start', 'message_start first');
    t.equal(open.size, 0, 'every block closed');
  }
  t.equal(a.frames.at(-1)?.event, terminal, `ends with ${terminal}`);
}

/** Blocks of a Messages stream, accumulated as the Anthropic SDK does. */
export function accumulateMessages(a: Answer): { blocks: any[]; stop_reason: string | null; usage: any; start: any } {
  const blocks: any[] = [];
  let stop_reason: string | null = null;
  let usage: any = {};
  let start: any;
  for (const d of a.data) {
    if (d?.type === 'message_start') {
      start = d.message;
      usage = { ...d.message.usage };
    } else if (d?.type === 'content_block_start') blocks[d.index] = { ...d.content_block, _json: '' };
    else if (d?.type === 'content_block_delta') {
      const b = blocks[d.index];
      if (d.delta.type === 'text_delta') b.text += d.delta.text;
      else if (d.delta.type === 'input_json_delta') b._json += d.delta.partial_json;
      else if (d.delta.type === 'thinking_delta') b.thinking += d.delta.thinking;
      else if (d.delta.type === 'signature_delta') b.signature = (b.signature ?? '') + d.delta.signature;
    } else if (d?.type === 'message_delta') {
      stop_reason = d.delta.stop_reason;
      usage = { ...usage, ...d.usage };
    }
  }
  for (const b of blocks) {
    if (b.type === 'tool_use') b.input = b._json === '' ? b.input : JSON.parse(b._json);
    delete b._json;
  }
  return { blocks, stop_reason, usage, start };
}

/** The OpenAI SDK's / AI SDK's view of a Chat stream: every chunk has `choices` (with `index`), [DONE] last. */
export function checkChatStream(t: Test, a: Answer): void {
  t.equal(a.status, 200, `stream status: ${a.text.slice(0, 300)}`);
  t.equal(a.frames.at(-1)?.data, '[DONE]', 'ends with [DONE]');
  const chunks = a.data.slice(0, -1);
  const problems: string[] = [];
  chunks.forEach((c, i) => {
    if (!Array.isArray(c?.choices)) problems.push(`chunk ${i} has no choices array`);
    else for (const ch of c.choices) if (typeof ch.index !== 'number') problems.push(`chunk ${i} choice without index`);
    if (c?.usage != null && typeof c.usage.prompt_tokens !== 'number') problems.push(`chunk ${i} has a partial usage`);
  });
  t.same(problems, [], 'chunks well-formed');
}

/** A Chat stream accumulated as the openai SDK's ChatCompletionStream does. */
export function accumulateChat(a: Answer): { content: string; reasoning: any[]; tool_calls: any[]; finish_reason: string | null; usage: any; chunks: any[] } {
  let content = '';
  const reasoning: any[] = [];
  const tool_calls: any[] = [];
  let finish_reason: string | null = null;
  let usage: any;
  const chunks = a.data.filter((d) => d !== undefined);
  for (const c of chunks) {
    if (c.usage) usage = c.usage;
    for (const ch of c.choices ?? []) {
      const d = ch.delta ?? {};
      if (typeof d.content === 'string') content += d.content;
      if (Array.isArray(d.reasoning_details)) reasoning.push(...d.reasoning_details);
      for (const tc of d.tool_calls ?? []) {
        const cur = (tool_calls[tc.index] ??= { id: undefined, type: undefined, function: { name: undefined, arguments: '' } });
        if (tc.id !== undefined) cur.id = tc.id;
        if (tc.type !== undefined) cur.type = tc.type;
        if (tc.function?.name !== undefined) cur.function.name = tc.function.name;
        if (typeof tc.function?.arguments === 'string') cur.function.arguments += tc.function.arguments;
      }
      if (ch.finish_reason) finish_reason = ch.finish_reason;
    }
  }
  return { content, reasoning, tool_calls, finish_reason, usage, chunks };
}

/** What Codex and the openai SDK need from a Responses stream (F15, F17, F78). */
export function checkResponsesStream(t: Test, a: Answer, terminal: 'response.completed' | 'response.incomplete' | 'response.failed' = 'response.completed'): any {
  t.equal(a.status, 200, `stream status: ${a.text.slice(0, 300)}`);
  const problems: string[] = [];
  const added = new Map<number, any>();
  const done = new Map<number, any>();
  a.frames.forEach((f, i) => {
    const d = a.data[i];
    if (d?.type !== f.event) problems.push(`frame ${i}: event ${f.event}, type ${d?.type}`);
    if (d?.sequence_number !== i) problems.push(`frame ${i}: sequence_number ${d?.sequence_number}`);
    if (f.event === 'response.output_item.added') {
      if (d.output_index !== added.size) problems.push(`item added at output_index ${d.output_index}, expected ${added.size}`);
      added.set(d.output_index, d.item);
    } else if (f.event === 'response.output_item.done') {
      if (!added.has(d.output_index)) problems.push(`done for item ${d.output_index} never added`);
      done.set(d.output_index, d.item);
    } else if (typeof d?.output_index === 'number' && (!added.has(d.output_index) || done.has(d.output_index))) {
      problems.push(`${f.event} for output_index ${d.output_index} outside its item`);
    }
  });
  t.same(problems, [], 'events ordered and numbered');
  t.equal(a.frames.at(-1)?.event, terminal, `ends with ${terminal}`);
  const final = a.data.at(-1)?.response;
  if (terminal !== 'response.failed') {
    t.equal(done.size, added.size, 'every added item is done');
    t.ok(Array.isArray(final?.output), 'terminal response carries output');
    t.same(
      (final?.output ?? []).map((o: any) => o.type),
      [...done.keys()].sort((x, y) => x - y).map((k) => done.get(k).type),
      'output order = output_index order',
    );
    t.ok(final?.usage && typeof final.usage.input_tokens === 'number', 'terminal response carries usage');
  }
  return final;
}

/**
 * A Responses stream of a turn cut at the token limit: 200, `response.incomplete` with
 * `max_output_tokens`, and only the whole calls (their `command` arguments, `whole`) done and in output.
 */
export function checkResponsesCut(t: Test, a: Answer, whole: string[]): void {
  t.equal(a.status, 200, a.text.slice(0, 300));
  t.equal(a.frames.at(-1)?.event, 'response.incomplete');
  const final = a.data.at(-1).response;
  t.same(final.incomplete_details, { reason: 'max_output_tokens' });
  const done = a.data.filter((d) => d?.type === 'response.output_item.done' && d.item.type === 'function_call').map((d) => JSON.parse(d.item.arguments).command);
  t.same(done, whole, 'only whole calls are done');
  t.same(final.output.filter((o: any) => o.type === 'function_call').map((o: any) => JSON.parse(o.arguments).command), whole, 'output: whole calls only');
}
