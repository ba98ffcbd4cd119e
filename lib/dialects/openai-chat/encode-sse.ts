// CanonicalEvent → Chat Completions stream: `data: <chat.completion.chunk>\n\n` frames, ended by
// the usage chunk and `data: [DONE]` (decisions §3). Written from canonical fields only, so events
// from any upstream (Anthropic, Chat, Responses) encode the same way:
// - message-start: `delta: {role: "assistant", content: ""}` plus the `gateway` object;
// - text → `delta.content`; thinking → `delta.reasoning` (unless `reasoning.exclude`) and, when the
//   block stops, `delta.reasoning_details: [entry]` with the whole block and its signature (redacted
//   thinking → an encrypted entry), so the next turn can send it back unmodified;
// - tool calls → `delta.tool_calls` with a stable 0-based index: id, name and empty arguments first,
//   then argument fragments (a block that opened with its whole input sends it at block stop);
// - opaque blocks, citations and unknown deltas are dropped;
// - message-delta → a chunk with `finish_reason`; message-stop → `choices: []` with `usage` (cost
//   in USD, the amount settle charges) and `gateway`, then `[DONE]`;
// - an error (event or `fail`) → a chunk with `finish_reason: "error"` and `error: {code, message}`,
//   then `[DONE]`. Nothing is written after the stream ended.
// The chunk envelope is built once; each frame is string concatenation around JSON.stringify of
// the new value only. Frames from a Chat upstream that the decoder marked `through` are not
// re-encoded: they are written as they came, with only the gateway's fields changed
// (encode-through.ts); the state here follows them, so re-encoded frames fit in between.
import type { CanonicalBlock, CanonicalEvent, CanonicalEventType, JsonObject, NativeFrame, StopReason, Usage } from '../../chunks.js';
import { emptyUsage } from '../../chunks.js';
import type { EncoderInput } from '../../encoder-input.js';
import type { GatewayError } from '../../errors.js';
import { openAiError } from '../../openai/errors.js';
import { redactedDetail, thinkingDetail } from '../../translate/reasoning-details.js';
import { chatGateway, chatUsage, excludeReasoning, finishReason, mergeUsage, servedModel, toolArguments } from './client.js';
import { ContentChunk } from './chunk-layout.js';
import { carriesFinish, throughContent, throughFrame, type ThroughChanges } from './encode-through.js';

export const CHAT_KEEPALIVE = ': keep-alive\n\n';
const DONE = 'data: [DONE]\n\n';
const FIRST_DELTA = '{"role":"assistant","content":""}';

export interface ChatSseOptions {
  /** the gateway request id (the chunk id until the upstream message id is known) */
  requestId: string;
  /** read for the routing object, the served model, `reasoning.exclude`, validated usage and cost */
  input: EncoderInput;
}

type Block =
  | { kind: 'text' }
  | { kind: 'thinking'; text: string; signature: string }
  | { kind: 'redacted'; data: string }
  /** streamed: its arguments were written (fragments, or the whole input at its stop) */
  | { kind: 'tool'; tool: number; streamed: boolean; input: JsonObject | null };

export class ChatSseEncoder {
  readonly keepalive = CHAT_KEEPALIVE;
  private readonly input: EncoderInput;
  private readonly exclude: boolean;
  private readonly created = Math.floor(Date.now() / 1000);
  /**
   * `data: {"id":…,"object":…,"created":…,"model":…,`, made the first time a frame is re-encoded
   * (`envelopeHead`): a stream whose frames all go through never writes one. `headId` and
   * `headModel` are what it is made of (the gateway's id and the catalog model until message-start).
   */
  private head: string | undefined = undefined;
  private headId: string;
  private headModel: string;
  /** canonical block index → state; undefined: dropped block */
  readonly blocks: (Block | undefined)[] = [];
  private tools = 0;
  private details = 0;
  private ended = false;
  readonly seen: Usage = emptyUsage();
  /** through frames: the last one written, the served model, a finish_reason already sent */
  private written: NativeFrame | undefined;
  private served: ThroughChanges = { model: '', modelJson: '""' };
  private finishSent = false;

  constructor(opts: ChatSseOptions) {
    this.input = opts.input;
    this.exclude = excludeReasoning(opts.input);
    this.headId = `chatcmpl-${opts.requestId}`;
    this.headModel = opts.input.routed?.modelId ?? '';
  }

  encode(ev: CanonicalEvent): string {
    if (this.ended) return '';
    const native = ev.native;
    if (native !== undefined && native.through !== undefined && native.dialect === 'openai-chat') return this.through(ev, native);
    return (ENCODE[ev.type] as (enc: ChatSseEncoder, ev: CanonicalEvent) => string)(this, ev);
  }

  /** An event of a through frame: the state follows it; the frame is written once, at its event. */
  private through(ev: CanonicalEvent, native: NativeFrame): string {
    // most of a stream: a content frame in its recognised layout, its one event a text delta (no
    // state to follow, no finish_reason, no usage): its text as the general path below writes it
    if (ev.type === 'text-delta' && native instanceof ContentChunk && native.through === 'frame' && native !== this.written) {
      this.written = native;
      return throughContent(native, this.served);
    }
    let start = false;
    if (ev.type === 'message-start') {
      this.begin(ev.id, ev.model, ev.usage);
      start = true;
    } else if (ev.type === 'block-start') {
      this.blocks[ev.index] = { kind: 'text' };
    } else if (ev.type === 'message-delta') {
      mergeUsage(this.seen, ev.usage);
    } else if (ev.type === 'message-stop') {
      this.ended = true;
    }
    if (native === this.written || (native.through === 'usage' && ev.type !== 'message-delta')) return '';
    this.written = native;
    if (carriesFinish(native)) this.finishSent = true;
    const { model, modelJson } = this.served;
    if (native.through === 'usage') return throughFrame(native, { model, modelJson, gateway: chatGateway(this.input), usage: chatUsage(this.input, this.seen) });
    return throughFrame(native, start ? { model, modelJson, gateway: chatGateway(this.input) } : this.served);
  }

  fail(err: GatewayError): string {
    if (this.ended) return '';
    this.ended = true;
    const { code, message } = openAiError(err);
    return this.chunk('{}', '"error"', `,"error":${JSON.stringify({ code, message })}`) + DONE;
  }

  private envelope(id: string, model: string): string {
    return `data: {"id":${JSON.stringify(id)},"object":"chat.completion.chunk","created":${this.created},"model":${JSON.stringify(model)},`;
  }

  private envelopeHead(): string {
    return (this.head ??= this.envelope(this.headId, this.headModel));
  }

  /** one frame: `delta` and `finish` are JSON text, `extra` is appended after `choices` */
  chunk(delta: string, finish = 'null', extra = ''): string {
    return `${this.envelopeHead()}"choices":[{"index":0,"delta":${delta},"finish_reason":${finish}}]${extra}}\n\n`;
  }

  /** message-start: the envelope of every later frame, re-encoded or through */
  private begin(id: string, upstreamModel: string, usage: Usage): void {
    const model = servedModel(this.input, upstreamModel);
    this.headId = id;
    this.headModel = model;
    this.head = undefined;
    this.served = { model, modelJson: JSON.stringify(model) };
    mergeUsage(this.seen, usage);
  }

  start(id: string, upstreamModel: string, usage: Usage): string {
    this.begin(id, upstreamModel, usage);
    return this.chunk(FIRST_DELTA, 'null', `,"gateway":${JSON.stringify(chatGateway(this.input))}`);
  }

  content(text: string): string {
    return text === '' ? '' : this.chunk(`{"content":${JSON.stringify(text)}}`);
  }

  reasoning(text: string): string {
    return text === '' || this.exclude ? '' : this.chunk(`{"reasoning":${JSON.stringify(text)}}`);
  }

  openBlock(index: number, b: CanonicalBlock): string {
    switch (b.kind) {
      case 'text':
        this.blocks[index] = { kind: 'text' };
        return this.content(b.text);
      case 'thinking':
        this.blocks[index] = { kind: 'thinking', text: b.thinking, signature: b.signature };
        return this.reasoning(b.thinking);
      case 'redacted-thinking':
        this.blocks[index] = { kind: 'redacted', data: b.data };
        return '';
      case 'tool-call': {
        const tool = this.tools++;
        this.blocks[index] = { kind: 'tool', tool, streamed: false, input: b.input };
        const call = { index: tool, id: b.id, type: 'function', function: { name: b.name, arguments: '' }, ...(b.extra === undefined ? {} : { extra_content: b.extra }) };
        return this.chunk(`{"tool_calls":[${JSON.stringify(call)}]}`);
      }
      case 'opaque':
      case 'web-search':
        this.blocks[index] = undefined;
        return '';
    }
  }

  arguments(tool: number, json: string): string {
    return json === '' ? '' : this.chunk(`{"tool_calls":[{"index":${tool},"function":{"arguments":${JSON.stringify(json)}}}]}`);
  }

  closeBlock(index: number): string {
    const b = this.blocks[index];
    if (b === undefined) return '';
    switch (b.kind) {
      case 'text':
        return '';
      case 'thinking':
        return this.chunk(`{"reasoning_details":[${JSON.stringify(thinkingDetail(b.text, b.signature, this.details++))}]}`);
      case 'redacted':
        return this.chunk(`{"reasoning_details":[${JSON.stringify(redactedDetail(b.data, this.details++))}]}`);
      case 'tool':
        // a block that opened with its whole input (non-streaming upstream) and had no fragments
        if (b.streamed) return '';
        b.streamed = true;
        return this.arguments(b.tool, toolArguments('', b.input));
    }
  }

  finish(stop: StopReason | null, usage: Partial<Usage>): string {
    mergeUsage(this.seen, usage);
    // a call the limit cut never stopped (stages/integrity.ts): one that opened with its whole input
    // shows it now, as a streamed cut call shows the fragments that came
    let cut = '';
    if (stop?.kind === 'length' && this.tools > 0) {
      for (let i = 0; i < this.blocks.length; i++) {
        const b = this.blocks[i];
        if (b?.kind === 'tool' && b.input !== null) cut += this.closeBlock(i);
      }
    }
    // a through frame carried the finish_reason already
    return this.finishSent ? cut : cut + this.chunk('{}', `"${finishReason(stop)}"`);
  }

  end(): string {
    this.ended = true;
    const usage = JSON.stringify(chatUsage(this.input, this.seen));
    return `${this.envelopeHead()}"choices":[],"usage":${usage},"gateway":${JSON.stringify(chatGateway(this.input))}}\n\n${DONE}`;
  }
}

type Encode<T extends CanonicalEventType> = (enc: ChatSseEncoder, ev: Extract<CanonicalEvent, { type: T }>) => string;

const ENCODE: { [T in CanonicalEventType]: Encode<T> } = {
  'message-start': (enc, ev) => enc.start(ev.id, ev.model, ev.usage),
  'block-start': (enc, ev) => enc.openBlock(ev.index, ev.block),
  'text-delta': (enc, ev) => (enc.blocks[ev.index]?.kind === 'text' ? enc.content(ev.text) : ''),
  'thinking-delta': (enc, ev) => {
    const b = enc.blocks[ev.index];
    if (b?.kind !== 'thinking') return '';
    b.text += ev.text;
    return enc.reasoning(ev.text);
  },
  'signature-delta': (enc, ev) => {
    const b = enc.blocks[ev.index];
    if (b?.kind === 'thinking') b.signature = ev.signature;
    return '';
  },
  'tool-input-delta': (enc, ev) => {
    const b = enc.blocks[ev.index];
    if (b?.kind !== 'tool') return '';
    if (ev.json === '') return '';
    b.streamed = true;
    return enc.arguments(b.tool, ev.json);
  },
  'citation-delta': () => '',
  'url-citation': () => '',
  'opaque-delta': () => '',
  'block-stop': (enc, ev) => enc.closeBlock(ev.index),
  'message-delta': (enc, ev) => enc.finish(ev.stop, ev.usage),
  'message-stop': (enc) => enc.end(),
  ping: () => CHAT_KEEPALIVE,
  'opaque-event': () => '',
  error: (enc, ev) => enc.fail(ev.error),
};
