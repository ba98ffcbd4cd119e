// The non-streaming Chat Completions encoder: collects CanonicalEvents and writes one
// `chat.completion` at the end: `message.content` (every text block, concatenated; null when the
// answer is only tool calls), `tool_calls` (arguments = the streamed JSON, or the whole input a
// block opened with), `reasoning` (thinking text unless `reasoning.exclude`), `reasoning_details`
// (one entry per thinking / redacted thinking block, with its signature), `finish_reason`, `usage`
// with the billed cost, and the `gateway` object. Canonical fields only, so any upstream works. An
// upstream `error` event is thrown: nothing was written yet, the server answers with the error.
// A plain answer of a Chat upstream (every event from its one `chat.completion`) is written as the
// upstream's text with only the gateway's members changed instead (through-json.ts).
import type { CanonicalEvent, CanonicalEventType, JsonObject, NativeFrame, StopReason, Usage } from '../../chunks.js';
import { emptyUsage } from '../../chunks.js';
import type { EncoderInput } from '../../encoder-input.js';
import type { Stage } from '../../stage.js';
import type { JsonEncodeOptions } from '../dialect.js';
import { redactedDetail, thinkingDetail, type ReasoningDetail } from '../../translate/reasoning-details.js';
import { chatGateway, chatUsage, excludeReasoning, finishReason, mergeUsage, servedModel, toolArguments } from './client.js';
import { throughCompletion } from './through-json.js';
import { integrityError } from './wire.js';

interface ToolCall {
  id: string;
  name: string;
  json: string;
  input: JsonObject | null;
  extra?: JsonObject;
  /** its block stopped (one that never did was cut by the token limit) */
  stopped: boolean;
}

type Block =
  | { kind: 'text' }
  | { kind: 'thinking'; text: string; signature: string }
  | { kind: 'redacted'; data: string }
  | { kind: 'tool'; call: ToolCall };

class Completion {
  id = '';
  model = '';
  started = false;
  done = false;
  content = '';
  hasText = false;
  reasoning = '';
  readonly details: ReasoningDetail[] = [];
  readonly calls: ToolCall[] = [];
  readonly blocks: (Block | undefined)[] = [];
  stop: StopReason | null = null;
  readonly seen: Usage = emptyUsage();
  /** the upstream `chat.completion` every event came from; null once one came from elsewhere */
  from: NativeFrame | null | undefined = undefined;
}

/** The Chat answer every event so far came from (one frame: the upstream's whole answer), or null. */
function sameAnswer(from: NativeFrame | null | undefined, ev: CanonicalEvent): NativeFrame | null {
  const native = ev.native;
  if (from === undefined) return native !== undefined && native.dialect === 'openai-chat' && native.event === 'chat.completion' ? native : null;
  return from === native ? from : null;
}

type Apply<T extends CanonicalEventType> = (c: Completion, ev: Extract<CanonicalEvent, { type: T }>) => void;

const APPLY: { [T in CanonicalEventType]: Apply<T> } = {
  'message-start': (c, ev) => {
    c.started = true;
    c.id = ev.id;
    c.model = ev.model;
    mergeUsage(c.seen, ev.usage);
  },
  'block-start': (c, ev) => {
    const b = ev.block;
    switch (b.kind) {
      case 'text':
        c.blocks[ev.index] = { kind: 'text' };
        c.content += b.text;
        c.hasText = true;
        return;
      case 'thinking':
        c.blocks[ev.index] = { kind: 'thinking', text: b.thinking, signature: b.signature };
        return;
      case 'redacted-thinking':
        c.blocks[ev.index] = { kind: 'redacted', data: b.data };
        return;
      case 'tool-call': {
        const call: ToolCall = { id: b.id, name: b.name, json: '', input: b.input, extra: b.extra, stopped: false };
        c.calls.push(call);
        c.blocks[ev.index] = { kind: 'tool', call };
        return;
      }
      case 'opaque':
      case 'web-search':
        c.blocks[ev.index] = undefined;
    }
  },
  'text-delta': (c, ev) => {
    if (c.blocks[ev.index]?.kind === 'text') c.content += ev.text;
  },
  'thinking-delta': (c, ev) => {
    const b = c.blocks[ev.index];
    if (b?.kind === 'thinking') b.text += ev.text;
  },
  'signature-delta': (c, ev) => {
    const b = c.blocks[ev.index];
    if (b?.kind === 'thinking') b.signature = ev.signature;
  },
  'tool-input-delta': (c, ev) => {
    const b = c.blocks[ev.index];
    if (b?.kind === 'tool') b.call.json += ev.json;
  },
  'citation-delta': () => undefined,
  'url-citation': () => undefined,
  'opaque-delta': () => undefined,
  'block-stop': (c, ev) => {
    const b = c.blocks[ev.index];
    if (b?.kind === 'thinking') {
      c.reasoning += b.text;
      c.details.push(thinkingDetail(b.text, b.signature, c.details.length));
    } else if (b?.kind === 'redacted') {
      c.details.push(redactedDetail(b.data, c.details.length));
    } else if (b?.kind === 'tool') {
      b.call.stopped = true;
    }
  },
  'message-delta': (c, ev) => {
    c.stop = ev.stop;
    mergeUsage(c.seen, ev.usage);
  },
  'message-stop': (c) => {
    c.done = true;
  },
  ping: () => undefined,
  'opaque-event': () => undefined,
  error: (_c, ev) => {
    throw ev.error;
  },
};

function message(c: Completion, exclude: boolean): object {
  // a call whose block never stopped was cut by the token limit (stages/integrity.ts): left out, so
  // the answer (finish_reason length) holds no call a client could run with arguments that are not JSON
  const calls = c.calls.filter((call) => call.stopped).map((call) => ({
    id: call.id, type: 'function', function: { name: call.name, arguments: toolArguments(call.json, call.input) },
    ...(call.extra === undefined ? {} : { extra_content: call.extra }),
  }));
  return {
    role: 'assistant',
    content: c.hasText || calls.length === 0 ? c.content : null,
    refusal: null,
    tool_calls: calls.length > 0 ? calls : null,
    reasoning: c.reasoning !== '' && !exclude ? c.reasoning : null,
    reasoning_details: c.details.length > 0 ? c.details : null,
  };
}

export function chatJsonEncode(input: EncoderInput, opts: JsonEncodeOptions = {}): Stage<CanonicalEvent, string> {
  const c = new Completion();
  return {
    name: 'openai-chat-json-encode',
    step(ev) {
      if (c.from !== null) c.from = sameAnswer(c.from, ev);
      (APPLY[ev.type] as (c: Completion, ev: CanonicalEvent) => void)(c, ev);
      return undefined;
    },
    flush() {
      if (!c.started) throw integrityError('the response has no message');
      if (!c.done) throw integrityError('the response ended before message_stop');
      const model = servedModel(input, c.model);
      const usage = chatUsage(input, c.seen);
      const gateway = opts.gatewayInfo?.(input) ?? chatGateway(input);
      const created = Math.floor(Date.now() / 1000);
      const through = c.from == null ? null : throughCompletion(c.from, c.stop, { created, model, usage, gateway });
      if (through !== null) return [through];
      const out = {
        id: c.id,
        object: 'chat.completion',
        created,
        model,
        choices: [{ index: 0, message: message(c, excludeReasoning(input)), logprobs: null, finish_reason: finishReason(c.stop) }],
        usage,
        gateway,
      };
      return [JSON.stringify(out)];
    },
  };
}
