// Fault injection (`fault:<kind>` model names) and the final delivery of an answer: status faults
// answer at once in the protocol's error envelope; stream and body faults rewrite what the demo
// model produced before it is written.
import type { ErrorOpts, Frame, Out, Outcome, Proto } from './io.js';
import { writeFrames } from './io.js';
import { cutMode, cutTool, cutToolJson } from './cut-tool.js';
import { deliverHeadJson, headStreamPlan, isHeadFault } from './head-faults.js';
import { duplicateKey, isObj, rawToken, toJson, type Obj } from './json.js';
import { optInt, type FaultKind, type SimSpec } from './spec.js';

export const STATUS_FAULTS = ['429', '500', '502', '503', '529', '400', '401'] as const;

const isStatusFault = (k: string): boolean => (STATUS_FAULTS as readonly string[]).includes(k);

interface Canned {
  anthropic: [string, string];
  openai: [string, string, string | null];
}
const CANNED: Record<string, Canned> = {
  '429': {
    anthropic: ['rate_limit_error', "This request would exceed your account's rate limit. Please try again later."],
    openai: ['requests', 'Rate limit reached for requests (simulated). Please try again in 1s.', 'rate_limit_exceeded'],
  },
  '500': {
    anthropic: ['api_error', 'Internal server error'],
    openai: ['server_error', 'The server had an error while processing your request. Sorry about that!', null],
  },
  '502': { anthropic: ['api_error', 'Bad gateway'], openai: ['server_error', 'Bad gateway.', null] },
  '503': {
    anthropic: ['api_error', 'Service unavailable'],
    openai: ['server_error', 'The server is overloaded or not ready yet.', null],
  },
  '529': { anthropic: ['overloaded_error', 'Overloaded'], openai: ['server_error', 'Overloaded', 'overloaded'] },
  '400': {
    anthropic: ['invalid_request_error', 'sim fault 400: this request is invalid and must not be retried'],
    openai: ['invalid_request_error', 'sim fault 400: this request is invalid and must not be retried', null],
  },
  '401': {
    anthropic: ['authentication_error', 'invalid x-api-key'],
    openai: ['invalid_request_error', 'Incorrect API key provided: sim-fault. You can find your API key at https://platform.openai.com/account/api-keys.', 'invalid_api_key'],
  },
};

/** Answers a status fault (`fault:429` ...); false when `kind` is not one. */
export function sendStatusFault(out: Out, kind: string, spec: SimSpec): boolean {
  const c = CANNED[kind];
  if (!isStatusFault(kind) || !c) return false;
  const headers: Record<string, string> = {};
  const ra = spec.opts.get('retry-after');
  if (kind === '429') headers['retry-after'] = ra ?? '1';
  else if (ra !== undefined) headers['retry-after'] = ra;
  const o: ErrorOpts = { headers };
  let message: string;
  if (out.proto === 'anthropic') [o.type, message] = c.anthropic;
  else [o.type, message, o.code] = c.openai;
  out.error(Number(kind), message, o);
  return true;
}

const typeOf = (f: Frame): string => (isObj(f.data) && typeof f.data.type === 'string' ? f.data.type : '');

function isDelta(proto: Proto, f: Frame): boolean {
  const t = typeOf(f);
  if (proto === 'anthropic') return t === 'content_block_delta';
  if (proto === 'responses') return t.endsWith('.delta');
  if (proto === 'transcription') return t === 'transcript.text.delta';
  const ch = isObj(f.data) && Array.isArray(f.data.choices) ? f.data.choices[0] : undefined;
  const d = isObj(ch) && isObj(ch.delta) ? ch.delta : {};
  return (typeof d.content === 'string' && d.content !== '') || Array.isArray(d.tool_calls);
}

function firstDelta(proto: Proto, frames: Frame[]): number {
  const i = frames.findIndex((f) => isDelta(proto, f));
  return i >= 0 ? i : Math.min(2, frames.length - 1);
}

const clone = (frames: Frame[]): Frame[] => frames.map((f) => ({ ...f, data: structuredClone(f.data) }));
const WRONG_MODEL = 'sim-wrong-model';

function lastIndexWhere(frames: Frame[], pred: (f: Frame) => boolean): number {
  for (let i = frames.length - 1; i >= 0; i--) if (pred(frames[i] as Frame)) return i;
  return -1;
}

function chatFinishes(f: Frame): boolean {
  const ch = isObj(f.data) && Array.isArray(f.data.choices) ? f.data.choices[0] : undefined;
  return isObj(ch) && ch.finish_reason !== null && ch.finish_reason !== undefined;
}

export interface StreamPlan {
  frames: Frame[];
  cut?: 'reset' | 'stall';
}

export function streamFault(kind: FaultKind | undefined, proto: Proto, input: Frame[]): StreamPlan {
  if (kind === undefined) return { frames: input };
  const frames = clone(input);
  const fd = firstDelta(proto, frames);
  if (isHeadFault(kind)) return headStreamPlan(kind, proto, frames, fd);
  const drop = (i: number): void => {
    if (i >= 0) frames.splice(i, 1);
  };
  switch (kind) {
    case 'reset-mid':
    case 'stall-mid':
      return { frames: frames.slice(0, Math.max(1, Math.min(fd + 2, frames.length - 1))), cut: kind === 'reset-mid' ? 'reset' : 'stall' };
    case 'malformed-sse': {
      const f = frames[fd] as Frame;
      frames.splice(fd + 1, 0, { event: f.event, text: toJson(f.data).slice(0, -3) });
      return { frames };
    }
    case 'wrong-model':
      for (const f of frames) {
        const d = f.data;
        if (!isObj(d)) continue;
        if ('model' in d) d.model = WRONG_MODEL;
        for (const k of ['message', 'response']) {
          const inner = d[k];
          if (isObj(inner) && 'model' in inner) inner.model = WRONG_MODEL;
        }
      }
      return { frames };
    case 'duplicate-keys': {
      const f = frames[0] as Frame;
      f.text = duplicateKey(toJson(f.data), proto === 'chat' ? 'object' : 'type');
      return { frames };
    }
    case 'non-finite':
      return { frames: nonFiniteStream(proto, frames) };
    case 'bad-index':
      return { frames: renumber(proto, badIndex(proto, frames, fd)) };
    case 'no-stop':
      if (proto === 'anthropic') drop(lastIndexWhere(frames, (f) => typeOf(f) === 'message_stop'));
      else if (proto === 'responses') drop(lastIndexWhere(frames, (f) => typeOf(f) === 'response.completed'));
      else drop(lastIndexWhere(frames, (f) => f.text === '[DONE]'));
      return { frames };
    case 'unclosed-block':
      if (proto === 'anthropic') drop(lastIndexWhere(frames, (f) => typeOf(f) === 'content_block_stop'));
      else if (proto === 'responses') drop(lastIndexWhere(frames, (f) => typeOf(f) === 'response.output_item.done'));
      else if (proto === 'chat') drop(lastIndexWhere(frames, chatFinishes));
      else drop(lastIndexWhere(frames, (f) => typeOf(f) === 'transcript.text.done'));
      return { frames: renumber(proto, frames) };
    default:
      return { frames };
  }
}

function nonFiniteStream(proto: Proto, frames: Frame[]): Frame[] {
  const nan = rawToken('NaN');
  for (const f of frames) {
    const d = f.data;
    if (!isObj(d)) continue;
    if (proto === 'anthropic' && d.type === 'message_delta' && isObj(d.usage)) d.usage.output_tokens = nan;
    if (proto === 'responses' && d.type === 'response.completed' && isObj(d.response) && isObj(d.response.usage)) {
      d.response.usage.output_tokens = nan;
    }
    if (proto === 'transcription' && isObj(d.usage)) d.usage.output_tokens = nan;
    if (proto === 'chat' && isObj(d.usage)) {
      d.usage.completion_tokens = nan;
      return frames;
    }
  }
  if (proto === 'chat') {
    // No usage chunk was asked for: put a usage object on the finishing chunk.
    const f = frames[lastIndexWhere(frames, chatFinishes)];
    if (f && isObj(f.data)) f.data.usage = { prompt_tokens: 1, completion_tokens: nan, total_tokens: nan };
  }
  return frames;
}

function badIndex(proto: Proto, frames: Frame[], fd: number): Frame[] {
  const at = fd + 1;
  if (proto === 'anthropic') {
    const data = { type: 'content_block_delta', index: 7, delta: { type: 'text_delta', text: 'orphan' } };
    frames.splice(at, 0, { event: 'content_block_delta', data });
  } else if (proto === 'responses') {
    const data = {
      type: 'response.output_text.delta', sequence_number: 0, item_id: 'msg_sim_never_added', output_index: 7,
      content_index: 0, delta: 'orphan', logprobs: [],
    };
    frames.splice(at, 0, { event: data.type, data });
  } else if (proto === 'chat') {
    const base = frames[fd];
    const data: Obj = isObj(base?.data) ? { ...base.data } : {};
    data.choices = [{ index: 0, delta: { tool_calls: [{ index: 7, function: { arguments: '{}' } }] }, logprobs: null, finish_reason: null }];
    frames.splice(at, 0, { data });
  }
  return frames;
}

/** Responses events keep consecutive sequence numbers after frames were added or removed. */
function renumber(proto: Proto, frames: Frame[]): Frame[] {
  if (proto !== 'responses') return frames;
  let seq = 0;
  for (const f of frames) if (isObj(f.data) && 'sequence_number' in f.data) f.data.sequence_number = seq++;
  return frames;
}

/** The JSON body text for a non-streaming answer under a fault. */
export function jsonFault(kind: FaultKind | undefined, proto: Proto, input: Obj): string {
  if (kind === undefined) return toJson(input);
  const body = structuredClone(input);
  const nan = rawToken('NaN');
  const usage = isObj(body.usage) ? body.usage : undefined;
  switch (kind) {
    case 'malformed-sse':
      return toJson(body).slice(0, -3);
    case 'wrong-model':
      if ('model' in body) body.model = WRONG_MODEL;
      break;
    case 'duplicate-keys':
      return duplicateKey(toJson(body), { anthropic: 'type', chat: 'object', responses: 'object', transcription: 'text' }[proto]);
    case 'non-finite':
      if (usage) usage[proto === 'chat' ? 'completion_tokens' : 'output_tokens'] = nan;
      break;
    case 'no-stop':
      if (proto === 'anthropic') body.stop_reason = null;
      if (proto === 'responses') body.status = 'in_progress';
      if (proto === 'chat' && Array.isArray(body.choices) && isObj(body.choices[0])) body.choices[0].finish_reason = null;
      break;
    default:
      break;
  }
  return toJson(body);
}

/** Writes what a protocol module decided, with the requested fault applied. */
export async function deliver(out: Out, outcome: Outcome, spec: SimSpec, kind?: FaultKind): Promise<void> {
  const delay = optInt(spec, 'delay', 0);
  switch (outcome.kind) {
    case 'error':
      out.error(outcome.status, outcome.message, outcome.opts);
      return;
    case 'text':
      out.send(200, outcome.body, outcome.contentType);
      return;
    case 'json': {
      const body = spec.opts.has('cut-tool') ? cutToolJson(out.proto, outcome.body, cutMode(spec.opts.get('cut-tool'))) : outcome.body;
      const text = Buffer.from(jsonFault(kind, out.proto, body));
      if (isHeadFault(kind)) return deliverHeadJson(out, kind, text);
      if (kind !== 'reset-mid' && kind !== 'stall-mid') {
        out.send(200, text, 'application/json');
        return;
      }
      out.begin(200, { 'content-type': 'application/json', 'content-length': String(text.length) });
      out.write(text.subarray(0, Math.floor(text.length / 2)));
      if (kind === 'reset-mid') await out.destroy();
      else await out.waitClose();
      return;
    }
    case 'stream': {
      const frames = spec.opts.has('cut-tool') ? cutTool(out.proto, outcome.frames, cutMode(spec.opts.get('cut-tool'))) : outcome.frames;
      const plan = streamFault(kind, out.proto, frames);
      if (!out.startSse()) return;
      const nl = spec.opts.has('crlf') ? '\r\n' : '\n';
      const ok = await writeFrames(out, plan.frames, delay, nl);
      if (!ok) return;
      if (plan.cut === 'reset') await out.destroy();
      else if (plan.cut === 'stall') await out.waitClose();
      else out.end();
    }
  }
}
