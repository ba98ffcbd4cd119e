// CanonicalEvent → the Responses wire, for Responses CLIENTS: the named SSE events of a streamed
// response (`ResponsesSseEncoder`) and the Response object of a non-streamed one
// (`responsesJsonEncode`). One writer (`ResponseWriter`) keeps the output items for both; only
// canonical fields are read, so events from any upstream (Anthropic, Chat, Responses) encode the
// same way.
//
// - message-start → `response.created` (status in_progress, output [], usage null) and
//   `response.in_progress`.
// - text block → a `message` item: output_item.added, content_part.added, output_text.delta…,
//   output_text.done, content_part.done, output_item.done.
// - tool-call block → a `function_call` item (function_call_arguments.delta… / .done); when the
//   name is a `custom` tool of the request (served through a Chat or Messages deployment, where it
//   was declared as a function taking `{input}`), a `custom_tool_call` item whose `input` is that
//   string (custom_tool_call_input.delta / .done at the block's end).
// - thinking block → a `reasoning` item: reasoning_summary_part.added,
//   reasoning_summary_text.delta…, .done, reasoning_summary_part.done. Its `encrypted_content`
//   (only when `include` has `reasoning.encrypted_content`): the original encrypted_content for a
//   Responses signature (`oai-rs:`, whose item id and summary parts are restored too), else
//   `anthropic-thinking:<base64url JSON of the block>` (client-state.ts). Redacted thinking → a
//   reasoning item with an empty summary and the encoded block.
// - opaque block from a Responses upstream (hosted tool calls, custom_tool_call, shell_call, …) →
//   that item as the provider sent it (output_item.added + done); other opaque blocks are dropped.
// - message-stop → `response.completed`, or `response.incomplete` (length → max_output_tokens,
//   content filter → content_filter) with the full response: usage (input_tokens counts cached
//   tokens too) and `gateway` with `cost` (USD, what settle charges). Usage is only on that event.
// - an error before any frame is thrown (the client gets a JSON error body); after it, and on
//   `fail`, `response.failed` with `error: {code, message}` ends the stream.
import { emptyUsage, type CanonicalBlock, type CanonicalEvent, type JsonObject, type JsonValue, type NativeFrame, type StopReason, type Usage } from '../../chunks.js';
import type { RequestContext } from '../../context.js';
import type { GatewayError } from '../../errors.js';
import { unitsToUsd } from '../../pricing.js';
import type { Stage } from '../../stage.js';
import { costOfUsage } from '../../../stages/settle.js';
import type { JsonEncodeOptions, SseEncoderOptions } from '../encoders.js';
import { openAiError } from '../openai/errors.js';
import { chatGateway, mergeUsage, toolArguments } from '../openai-chat/client.js';
import { integrityError } from '../openai-chat/wire.js';
import { encodeAnthropicThinking, summaryOf } from './client-state.js';
import { responsesFacts, type ResponsesFacts } from './client-validate.js';
import { decodeReasoningSignature, isResponsesSignature, reasoningInputItem } from './reasoning-state.js';

export const RESPONSES_KEEPALIVE = ': keep-alive\n\n';

type Block =
  | { kind: 'message'; out: number; id: string; text: string }
  | { kind: 'call'; out: number; id: string; callId: string; name: string; json: string; streamed: boolean; input: JsonObject | null; custom: boolean }
  | { kind: 'reasoning'; out: number; id: string; text: string; signature: string; partOpen: boolean }
  | { kind: 'redacted'; out: number; id: string; data: string };

const EMPTY_FACTS: ResponsesFacts = {
  effort: undefined, effortDefaulted: false, reasoningGiven: false, summary: undefined, includeEncrypted: false,
  functions: [], customTools: new Set(), clientTools: { shell: false, applyPatch: false }, webSearch: [],
};

function factsFor(ctx: RequestContext): ResponsesFacts {
  const req = ctx.routed?.request;
  return req !== undefined && req.source === 'openai-responses' ? responsesFacts(req.body) : EMPTY_FACTS;
}

/** `resp_…` from the request id (`req_<hex>`). */
function baseId(requestId: string): string {
  return requestId.replace(/^req_/, '').replace(/[^A-Za-z0-9]/g, '');
}

export class ResponseWriter {
  private readonly ctx: RequestContext;
  private readonly facts: ResponsesFacts;
  private readonly streaming: boolean;
  private readonly base: string;
  readonly id: string;
  private readonly createdAt = Math.floor(Date.now() / 1000);
  private seq = 0;
  private frames: string[] = [];
  private upstreamModel = '';
  private readonly output: JsonObject[] = [];
  private readonly blocks: (Block | undefined)[] = [];
  private nextItem = 0;
  private stop: StopReason | null = null;
  readonly seen: Usage = emptyUsage();
  started = false;
  ended = false;

  constructor(ctx: RequestContext, requestId: string, streaming: boolean) {
    this.ctx = ctx;
    this.facts = factsFor(ctx);
    this.streaming = streaming;
    this.base = baseId(requestId);
    this.id = `resp_${this.base}`;
  }

  /** SSE frames produced since the last call. */
  take(): string {
    const out = this.frames.join('');
    this.frames = [];
    return out;
  }

  private ev(type: string, fields: JsonObject): void {
    if (!this.streaming) return;
    this.frames.push(`event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: this.seq++, ...fields })}\n\n`);
  }

  private itemId(prefix: string): string {
    return `${prefix}_${this.base}_${this.nextItem++}`;
  }

  private model(): string {
    return this.ctx.routed?.modelId ?? this.upstreamModel;
  }

  /** The Response object. */
  response(status: string, usage: JsonValue, extra: { error?: JsonValue; incomplete?: JsonValue; gateway?: boolean } = {}): JsonObject {
    const body = this.ctx.routed?.request.body ?? {};
    const text = body.text;
    const out: JsonObject = {
      id: this.id,
      object: 'response',
      created_at: this.createdAt,
      status,
      error: extra.error ?? null,
      incomplete_details: extra.incomplete ?? null,
      instructions: body.instructions ?? null,
      max_output_tokens: body.max_output_tokens ?? null,
      model: this.model(),
      output: status === 'in_progress' ? [] : this.output.filter((o) => o !== undefined),
      parallel_tool_calls: body.parallel_tool_calls ?? true,
      previous_response_id: null,
      reasoning: { effort: this.facts.effort ?? null, summary: this.facts.summary ?? null },
      service_tier: null,
      store: false,
      temperature: body.temperature ?? 1,
      text: typeof text === 'object' && text !== null && !Array.isArray(text) ? { format: { type: 'text' }, ...text } : { format: { type: 'text' } },
      tool_choice: body.tool_choice ?? 'auto',
      tools: body.tools ?? [],
      top_p: body.top_p ?? 1,
      truncation: 'disabled',
      usage,
      user: body.user ?? null,
      metadata: body.metadata ?? {},
    };
    if (extra.gateway) out.gateway = this.gateway();
    return out;
  }

  private gateway(): JsonObject {
    return { ...chatGateway(this.ctx), cost: unitsToUsd(this.ctx.usage === null ? 0 : costOfUsage(this.ctx)) };
  }

  usage(): JsonObject {
    const u = this.ctx.usage ?? this.seen;
    const input = u.input + u.cacheRead + u.cacheWrite;
    return {
      input_tokens: input,
      input_tokens_details: { cached_tokens: u.cacheRead },
      output_tokens: u.output,
      output_tokens_details: { reasoning_tokens: u.reasoning },
      total_tokens: input + u.output,
    };
  }

  start(model: string, usage: Usage): void {
    if (this.started) return;
    this.started = true;
    this.upstreamModel = model;
    mergeUsage(this.seen, usage);
    const r = this.response('in_progress', null);
    this.ev('response.created', { response: r });
    this.ev('response.in_progress', { response: r });
  }

  private added(out: number, item: JsonObject): void {
    this.output[out] = item;
    this.ev('response.output_item.added', { output_index: out, item });
  }

  private done(out: number, item: JsonObject): void {
    this.output[out] = item;
    this.ev('response.output_item.done', { output_index: out, item });
  }

  openBlock(index: number, b: CanonicalBlock, native: NativeFrame | undefined): void {
    const out = this.output.length;
    switch (b.kind) {
      case 'text': {
        const id = this.itemId('msg');
        this.blocks[index] = { kind: 'message', out, id, text: '' };
        this.added(out, { id, type: 'message', status: 'in_progress', content: [], role: 'assistant' });
        this.ev('response.content_part.added', { item_id: id, output_index: out, content_index: 0, part: { type: 'output_text', annotations: [], text: '' } });
        this.text(index, b.text);
        return;
      }
      case 'tool-call': {
        const custom = this.facts.customTools.has(b.name);
        const id = this.itemId(custom ? 'ctc' : 'fc');
        this.blocks[index] = { kind: 'call', out, id, callId: b.id, name: b.name, json: '', streamed: false, input: b.input, custom };
        this.added(
          out,
          custom
            ? { id, type: 'custom_tool_call', status: 'in_progress', call_id: b.id, name: b.name, input: '' }
            : { id, type: 'function_call', status: 'in_progress', arguments: '', call_id: b.id, name: b.name },
        );
        return;
      }
      case 'thinking': {
        const nativeItem = native?.dialect === 'openai-responses' ? native.parsed.item : undefined;
        const nativeId = typeof nativeItem === 'object' && nativeItem !== null && !Array.isArray(nativeItem) && typeof nativeItem.id === 'string' ? nativeItem.id : undefined;
        const stateId = isResponsesSignature(b.signature) ? decodeReasoningSignature(b.signature)?.id : undefined;
        const id = stateId ?? nativeId ?? this.itemId('rs');
        this.blocks[index] = { kind: 'reasoning', out, id, text: '', signature: b.signature, partOpen: false };
        this.added(out, { id, type: 'reasoning', summary: [] });
        this.thinking(index, b.thinking);
        return;
      }
      case 'redacted-thinking': {
        const id = this.itemId('rs');
        this.blocks[index] = { kind: 'redacted', out, id, data: b.data };
        this.added(out, { id, type: 'reasoning', summary: [] });
        return;
      }
      case 'opaque': {
        this.blocks[index] = undefined;
        const item = b.value;
        if (native?.dialect !== 'openai-responses' || typeof item.type !== 'string') return;
        this.added(out, item);
        this.done(out, item);
      }
    }
  }

  text(index: number, text: string): void {
    const b = this.blocks[index];
    if (b?.kind !== 'message' || text === '') return;
    b.text += text;
    this.ev('response.output_text.delta', { item_id: b.id, output_index: b.out, content_index: 0, delta: text, logprobs: [] });
  }

  thinking(index: number, text: string): void {
    const b = this.blocks[index];
    if (b?.kind !== 'reasoning' || text === '') return;
    if (!b.partOpen) {
      b.partOpen = true;
      this.ev('response.reasoning_summary_part.added', { item_id: b.id, output_index: b.out, summary_index: 0, part: { type: 'summary_text', text: '' } });
    }
    b.text += text;
    this.ev('response.reasoning_summary_text.delta', { item_id: b.id, output_index: b.out, summary_index: 0, delta: text });
  }

  signature(index: number, signature: string): void {
    const b = this.blocks[index];
    if (b?.kind === 'reasoning') b.signature = signature;
  }

  toolInput(index: number, json: string): void {
    const b = this.blocks[index];
    if (b?.kind !== 'call' || json === '') return;
    b.json += json;
    b.streamed = true;
    if (!b.custom) this.ev('response.function_call_arguments.delta', { item_id: b.id, output_index: b.out, delta: json });
  }

  closeBlock(index: number): void {
    const b = this.blocks[index];
    if (b === undefined) return;
    this.blocks[index] = undefined;
    switch (b.kind) {
      case 'message': {
        const part = { type: 'output_text', annotations: [], text: b.text };
        this.ev('response.output_text.done', { item_id: b.id, output_index: b.out, content_index: 0, text: b.text, logprobs: [] });
        this.ev('response.content_part.done', { item_id: b.id, output_index: b.out, content_index: 0, part });
        this.done(b.out, { id: b.id, type: 'message', status: 'completed', content: [part], role: 'assistant' });
        return;
      }
      case 'call': {
        const args = toolArguments(b.json, b.input);
        if (b.custom) {
          const input = customInput(args);
          this.ev('response.custom_tool_call_input.delta', { item_id: b.id, output_index: b.out, delta: input });
          this.ev('response.custom_tool_call_input.done', { item_id: b.id, output_index: b.out, input });
          this.done(b.out, { id: b.id, type: 'custom_tool_call', status: 'completed', call_id: b.callId, name: b.name, input });
          return;
        }
        if (!b.streamed && args !== '') this.ev('response.function_call_arguments.delta', { item_id: b.id, output_index: b.out, delta: args });
        this.ev('response.function_call_arguments.done', { item_id: b.id, output_index: b.out, arguments: args });
        this.done(b.out, { id: b.id, type: 'function_call', status: 'completed', arguments: args, call_id: b.callId, name: b.name });
        return;
      }
      case 'reasoning': {
        if (b.partOpen) {
          this.ev('response.reasoning_summary_text.done', { item_id: b.id, output_index: b.out, summary_index: 0, text: b.text });
          this.ev('response.reasoning_summary_part.done', { item_id: b.id, output_index: b.out, summary_index: 0, part: { type: 'summary_text', text: b.text } });
        }
        this.done(b.out, this.reasoningItem(b));
        return;
      }
      case 'redacted': {
        const item: JsonObject = { id: b.id, type: 'reasoning', status: 'completed', summary: [] };
        if (this.facts.includeEncrypted) item.encrypted_content = encodeAnthropicThinking({ type: 'redacted_thinking', data: b.data });
        this.done(b.out, item);
      }
    }
  }

  private reasoningItem(b: Extract<Block, { kind: 'reasoning' }>): JsonObject {
    const item: JsonObject = { id: b.id, type: 'reasoning', status: 'completed', summary: summaryOf([b.text]) };
    let encrypted: string | undefined;
    if (isResponsesSignature(b.signature)) {
      const restored = reasoningInputItem(b.text, b.signature);
      if (restored !== null) {
        item.summary = restored.summary ?? [];
        encrypted = restored.encrypted_content as string;
      }
    } else if (b.signature !== '') {
      encrypted = encodeAnthropicThinking({ type: 'thinking', thinking: b.text, signature: b.signature });
    }
    if (encrypted !== undefined && encrypted !== '' && this.facts.includeEncrypted) item.encrypted_content = encrypted;
    return item;
  }

  finish(stop: StopReason | null, usage: Partial<Usage>): void {
    this.stop = stop;
    mergeUsage(this.seen, usage);
  }

  /** The final Response object (completed or incomplete). */
  final(): JsonObject {
    const stop = this.stop;
    const reason = stop?.kind === 'length' ? 'max_output_tokens' : stop?.kind === 'content-filter' ? 'content_filter' : undefined;
    return reason === undefined
      ? this.response('completed', this.usage(), { gateway: true })
      : this.response('incomplete', this.usage(), { incomplete: { reason }, gateway: true });
  }

  end(): void {
    this.ended = true;
    const r = this.final();
    this.ev(r.status === 'completed' ? 'response.completed' : 'response.incomplete', { response: r });
  }

  failed(err: GatewayError): void {
    this.ended = true;
    const { code, message } = openAiError(err);
    if (!this.started) this.start('', emptyUsage());
    this.ev('response.failed', { response: this.response('failed', null, { error: { code, message }, gateway: true }) });
  }

  /** Applies one event (SSE frames collect in the writer). */
  apply(ev: CanonicalEvent): void {
    if (this.ended) return;
    switch (ev.type) {
      case 'message-start':
        this.start(ev.model, ev.usage);
        return;
      case 'block-start':
        this.openBlock(ev.index, ev.block, ev.native);
        return;
      case 'text-delta':
        this.text(ev.index, ev.text);
        return;
      case 'thinking-delta':
        this.thinking(ev.index, ev.text);
        return;
      case 'signature-delta':
        this.signature(ev.index, ev.signature);
        return;
      case 'tool-input-delta':
        this.toolInput(ev.index, ev.json);
        return;
      case 'block-stop':
        this.closeBlock(ev.index);
        return;
      case 'message-delta':
        this.finish(ev.stop, ev.usage);
        return;
      case 'message-stop':
        this.end();
        return;
      case 'error':
        if (!this.streaming || this.seq === 0) throw ev.error; // nothing written: a JSON error body
        this.failed(ev.error);
        return;
      default:
        return; // citations, opaque deltas and events, pings (the SSE encoder writes the keep-alive)
    }
  }
}

/** The `input` string of a custom tool called through a function declared as `{input: string}`. */
function customInput(args: string): string {
  try {
    const parsed: unknown = JSON.parse(args);
    if (typeof parsed === 'object' && parsed !== null && typeof (parsed as Record<string, unknown>).input === 'string') {
      return (parsed as Record<string, string>).input!;
    }
  } catch {
    // not JSON: the model wrote the raw input
  }
  return args;
}

/** The streaming encoder (lib/dialects/encoders.ts `sseEncoders['openai-responses']`). */
export class ResponsesSseEncoder {
  readonly keepalive = RESPONSES_KEEPALIVE;
  private readonly writer: ResponseWriter;

  constructor(opts: SseEncoderOptions) {
    this.writer = new ResponseWriter(opts.ctx, opts.requestId, true);
  }

  encode(ev: CanonicalEvent): string {
    if (ev.type === 'ping') return this.writer.ended ? '' : RESPONSES_KEEPALIVE;
    this.writer.apply(ev);
    return this.writer.take();
  }

  fail(err: GatewayError): string {
    if (this.writer.ended) return '';
    this.writer.failed(err);
    return this.writer.take();
  }
}

/** The non-streaming encoder (lib/dialects/encoders.ts `jsonEncoders['openai-responses']`). */
export function responsesJsonEncode(_opts: JsonEncodeOptions = {}): Stage<CanonicalEvent, string> {
  let writer: ResponseWriter | undefined;
  return {
    name: 'openai-responses-json-encode',
    step(ev, ctx) {
      (writer ??= new ResponseWriter(ctx, ctx.reqId, false)).apply(ev);
      return undefined;
    },
    flush(ctx) {
      const w = (writer ??= new ResponseWriter(ctx, ctx.reqId, false));
      if (!w.started) throw integrityError('the response has no message');
      if (!w.ended) throw integrityError('the response ended before it was complete');
      return [JSON.stringify(w.final())];
    },
  };
}
