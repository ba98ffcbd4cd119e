// The output items of a Responses response being written (client-encode-writer.ts): one item per
// canonical block, kept for the final Response object and announced as named SSE events.
//
// - text block → a `message` item: output_item.added, content_part.added, output_text.delta…,
//   output_text.done, content_part.done, output_item.done. From a Responses upstream, the deltas keep
//   their `delta` bytes, and the three done events (and the item in the final Response) the text
//   bytes of the upstream's own done item, when it says the same (client-encode-through.ts).
// - tool-call block → a `function_call` item (function_call_arguments.delta… / .done), with the
//   `namespace` of a namespace member. Served through a Chat or Messages deployment, the call's
//   name is looked up among the request's tools (client-tools.ts): a `custom` tool (declared as a
//   function taking `{input}`) → a `custom_tool_call` item (with its `namespace`) whose `input` is
//   that string (custom_tool_call_input.delta / .done); the `shell` tool → a `shell_call` item
//   whose `action` is the arguments (shell_call_command.added / .delta / .done per command); the
//   `apply_patch` tool → an `apply_patch_call` item whose `operation` is the arguments
//   (apply_patch_call_operation_diff.delta / .done). These three are written when the call is
//   complete (their arguments must be whole to be read; client-encode-calls.ts); shell and
//   apply_patch calls are announced (output_item.added) only then, and a stream cut before leaves
//   no half item in `output`.
// - thinking block → a `reasoning` item: reasoning_summary_part.added,
//   reasoning_summary_text.delta…, .done, reasoning_summary_part.done. Its `encrypted_content`
//   (only when `include` has `reasoning.encrypted_content`): the original encrypted_content for a
//   Responses signature (`oai-rs:`, whose item id and summary parts are restored too), else
//   `anthropic-thinking:<base64url JSON of the block>` (client-state.ts). Redacted thinking → a
//   reasoning item with an empty summary and the encoded block.
// - web-search block (a search the gateway ran) → a completed `web_search_call` item when billed
//   (client-encode-search.ts); url-citation → a `url_citation` annotation of the message's text.
// - opaque block from a Responses upstream (hosted tool calls, custom_tool_call, shell_call, …) →
//   that item as the provider sent it (output_item.added + done); other opaque blocks are dropped.
// - a call whose block never stopped was cut by the token limit (stages/integrity.ts): no done event,
//   and it is left out of the Response's `output`, so no client runs it (`cutCalls`); its arguments show.
import type { CanonicalBlock, JsonObject, NativeFrame, UrlCitation } from '../../chunks.js';
import { asArray, isObject } from '../../json/values.js';
import { toolArguments } from '../../openai/client.js';
import { emitWebSearch, urlCitationAnnotation } from './client-encode-search.js';
import { doneFrames, throughText } from './client-encode-through.js';
import { DeltaFrame } from './delta-layout.js';
import { encodeAnthropicThinking, summaryOf } from './client-state.js';
import type { ResponsesFacts } from './client-validate.js';
import type { ClientTool } from './client-tools.js';
import { closeCall, ID_PREFIX, withNamespace, type ItemWriter } from './client-encode-calls.js';
import { decodeReasoningSignature, isResponsesSignature, reasoningInputItem } from '../../translate/reasoning-state.js';
import { flat } from './flat-string.js';

type Block =
  /**
   * `idJson`: the id as JSON text; `at`: the members of its events after the sequence number (item
   * id, output index, content index) as JSON text, with the comma after them; both made when first
   * needed (at once when streaming: not at all for most JSON answers)
   */
  | { kind: 'message'; out: number; id: string; text: string; annotations: JsonObject[]; idJson: string | undefined; at: string | undefined }
  | { kind: 'call'; out: number; id: string; callId: string; target: ClientTool; json: string; streamed: boolean; input: JsonObject | null }
  | { kind: 'reasoning'; out: number; id: string; text: string; signature: string; partOpen: boolean }
  | { kind: 'redacted'; out: number; id: string; data: string };

/**
 * Writes one named SSE event (a no-op when not streaming). `fields` as a string: the members after
 * the sequence number, as JSON text up to and with the closing brace. Either way `type` is written as
 * it is (it must need no escaping) and `fields` has no `type` or `sequence_number` member.
 */
export type EmitEvent = (type: string, fields: JsonObject | string) => void;

type MessageBlock = Extract<Block, { kind: 'message' }>;

/** A message's `at` (Block), made at the first event that needs it (one flat string: every delta frame has it). */
function atOf(b: MessageBlock): string {
  return (b.at ??= flat(`"item_id":${(b.idJson ??= JSON.stringify(b.id))},"output_index":${b.out},"content_index":0,`));
}

/** Also the ItemWriter the call items (client-encode-calls.ts) are written through. */
export class OutputItems implements ItemWriter {
  private readonly facts: ResponsesFacts;
  private readonly base: string;
  readonly emit: EmitEvent;
  /** the items in output order, as they are now */
  readonly output: JsonObject[] = [];
  /** an item's JSON text, when its done event was written with upstream bytes (that item's JSON value) */
  readonly outputJson: (string | undefined)[] = [];
  private readonly blocks: (Block | undefined)[] = [];
  private nextItem = 0;

  /**
   * `streaming`: the events are written (else `emit` is a no-op, and what only it reads is not made);
   * `textDelta(at, rest)` writes an output_text.delta event as `emit` would with fields `${at}${rest}}`
   */
  constructor(
    facts: ResponsesFacts,
    base: string,
    emit: EmitEvent,
    private readonly streaming: boolean,
    private readonly textDelta: (at: string, rest: string) => void,
  ) {
    this.facts = facts;
    this.base = base;
    this.emit = emit;
  }

  private itemId(prefix: string): string {
    return `${prefix}_${this.base}_${this.nextItem++}`;
  }

  added(out: number, item: JsonObject): void {
    this.output[out] = item;
    this.emit('response.output_item.added', { output_index: out, item });
  }

  done(out: number, item: JsonObject): void {
    this.output[out] = item;
    this.emit('response.output_item.done', { output_index: out, item });
  }

  openBlock(index: number, b: CanonicalBlock, native: NativeFrame | undefined): void {
    const out = this.output.length;
    switch (b.kind) {
      case 'text': {
        // the two events as JSON text (JSON.stringify of the objects, members in their order): an object
        // spread into each event and serialised cost more than the rest of the response's events
        const id = this.itemId('msg');
        const m: MessageBlock = { kind: 'message', out, id, text: '', annotations: [], idJson: undefined, at: undefined };
        this.blocks[index] = m;
        this.output[out] = { id, type: 'message', status: 'in_progress', content: [], role: 'assistant' };
        if (this.streaming) {
          const idJson = (m.idJson = JSON.stringify(id));
          this.emit('response.output_item.added', `"output_index":${out},"item":{"id":${idJson},"type":"message","status":"in_progress","content":[],"role":"assistant"}}`);
          this.emit('response.content_part.added', `${atOf(m)}"part":{"type":"output_text","annotations":[],"logprobs":[],"text":""}}`);
        }
        this.text(index, b.text);
        return;
      }
      case 'tool-call': {
        const target = this.callTarget(b.name, b.id, native);
        const id = this.itemId(ID_PREFIX[target.kind]);
        this.blocks[index] = { kind: 'call', out, id, callId: b.id, target, json: '', streamed: false, input: b.input };
        if (target.kind === 'custom') this.added(out, withNamespace({ id, type: 'custom_tool_call', status: 'in_progress', call_id: b.id, name: target.name, input: '' }, target));
        else if (target.kind === 'function') this.added(out, withNamespace({ id, type: 'function_call', status: 'in_progress', arguments: '', call_id: b.id, name: target.name }, target));
        else this.output.length = out + 1; // its place: a shell / apply_patch call is announced once its arguments are whole
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
      case 'web-search': {
        this.blocks[index] = undefined;
        const item = emitWebSearch(this.emit, out, this.itemId('ws'), b.call);
        if (item !== undefined) this.output[out] = item;
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

  text(index: number, text: string, native?: NativeFrame): void {
    const b = this.blocks[index];
    if (b?.kind !== 'message' || text === '') return;
    b.text += text;
    if (!this.streaming) return;
    // a Responses upstream's delta frame: its `delta` and `logprobs` go as they came
    // (only a recognised delta frame is marked through: delta-layout.ts, events.ts)
    const through = native instanceof DeltaFrame && native.through !== undefined;
    this.textDelta(atOf(b), through ? native.data.slice(native.keptFrom, native.keptEnd) : `"delta":${JSON.stringify(text)},"logprobs":[]`);
  }

  annotate(index: number, citation: UrlCitation): void {
    const b = this.blocks[index];
    if (b?.kind !== 'message') return;
    const annotation = urlCitationAnnotation(citation);
    this.emit('response.output_text.annotation.added', { item_id: b.id, output_index: b.out, content_index: 0, annotation_index: b.annotations.length, annotation });
    b.annotations.push(annotation);
  }

  thinking(index: number, text: string): void {
    const b = this.blocks[index];
    if (b?.kind !== 'reasoning' || text === '') return;
    if (!b.partOpen) {
      b.partOpen = true;
      this.emit('response.reasoning_summary_part.added', { item_id: b.id, output_index: b.out, summary_index: 0, part: { type: 'summary_text', text: '' } });
    }
    b.text += text;
    this.emit('response.reasoning_summary_text.delta', { item_id: b.id, output_index: b.out, summary_index: 0, delta: text });
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
    if (b.target.kind === 'function') this.emit('response.function_call_arguments.delta', { item_id: b.id, output_index: b.out, delta: json });
  }

  closeBlock(index: number, native?: NativeFrame): void {
    const b = this.blocks[index];
    if (b === undefined) return;
    this.blocks[index] = undefined;
    switch (b.kind) {
      case 'message': {
        const part = { type: 'output_text', annotations: b.annotations, logprobs: [], text: b.text };
        const text = throughText(b.text, b.annotations, native);
        if (text !== undefined) {
          // the upstream's text bytes (client-encode-through.ts); the item's JSON kept for the final Response
          const f = doneFrames((b.idJson ??= JSON.stringify(b.id)), b.out, text);
          this.emit('response.output_text.done', f.textDone);
          this.emit('response.content_part.done', f.partDone);
          this.output[b.out] = { id: b.id, type: 'message', status: 'completed', content: [part], role: 'assistant' };
          this.outputJson[b.out] = flat(f.item); // in output_item.done and the final Response
          this.emit('response.output_item.done', `"output_index":${b.out},"item":${f.item}}`);
          return;
        }
        this.emit('response.output_text.done', { item_id: b.id, output_index: b.out, content_index: 0, text: b.text, logprobs: [] });
        this.emit('response.content_part.done', { item_id: b.id, output_index: b.out, content_index: 0, part });
        this.done(b.out, { id: b.id, type: 'message', status: 'completed', content: [part], role: 'assistant' });
        return;
      }
      case 'call':
        closeCall(this, b, toolArguments(b.json, b.input));
        return;
      case 'reasoning': {
        if (b.partOpen) {
          this.emit('response.reasoning_summary_text.done', { item_id: b.id, output_index: b.out, summary_index: 0, text: b.text });
          this.emit('response.reasoning_summary_part.done', { item_id: b.id, output_index: b.out, summary_index: 0, part: { type: 'summary_text', text: b.text } });
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

  /**
   * At message-delta: the calls still open were cut by the token limit; their items leave `output`. A function
   * call that opened with its whole input (non-streamed upstream) shows it as argument deltas (no done).
   */
  cutCalls(): void {
    for (let i = 0; i < this.blocks.length; i++) {
      const b = this.blocks[i];
      if (b?.kind !== 'call') continue;
      this.blocks[i] = undefined;
      if (b.target.kind === 'function' && !b.streamed && b.input !== null) this.emit('response.function_call_arguments.delta', { item_id: b.id, output_index: b.out, delta: toolArguments('', b.input) });
      delete this.output[b.out];
    }
  }

  /** Whom a tool call is for: a native Responses function_call names itself (and its namespace); a translated one is looked up. */
  private callTarget(name: string, callId: string, native: NativeFrame | undefined): ClientTool {
    if (native?.dialect !== 'openai-responses') return this.facts.callable.get(name) ?? { kind: 'function', name };
    // streamed: the output_item.added frame; JSON: the whole response
    const item = isObject(native.parsed.item) ? native.parsed.item : asArray(native.parsed.output).find((o) => isObject(o) && o.call_id === callId);
    const namespace = isObject(item) ? item.namespace : undefined;
    return typeof namespace === 'string' ? { kind: 'function', name, namespace } : { kind: 'function', name };
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
}
