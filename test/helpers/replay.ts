// Helpers for replay tests: chunkings of a byte stream, the offline decode/encode chains, an SSE
// frame splitter, and an independent Message accumulator written from the official SDK's rules
// (its `#accumulateMessage`), used to check what the gateway's encoders produce.
import { createParser } from 'eventsource-parser';
import type { CanonicalEvent, DialectName, Usage } from '../../lib/chunks.js';
import type { RequestContext } from '../../lib/context.js';
import { anthropicJsonEncode } from '../../lib/dialects/anthropic/encode-json.js';
import { offlineContext, type OfflineContextOptions } from '../../lib/offline-context.js';
import { EncoderState } from '../../lib/encoder-input.js';
import { isNote, type ChainNote, type Upstream } from '../../lib/notes.js';
import type { Stage, StageOutput } from '../../lib/stage.js';
import { integrity, type IntegrityOptions } from '../../stages/integrity.js';
import { providerDecode } from '../../stages/provider-decode.js';
import { sseDecode, type SseDecodeOptions } from '../../stages/sse-decode.js';
import { sseEncode } from '../../stages/sse-encode.js';
import { chunkBytes } from '../../lib/replay/chunking.js';

export { prng } from '../../lib/replay/chunking.js';

export function seedOf(name: string): number {
  let h = 2166136261;
  for (let i = 0; i < name.length; i++) h = Math.imul(h ^ name.charCodeAt(i), 16777619);
  return h >>> 0;
}

export type Chunking = 'whole' | 'bytes' | 'random';
export const CHUNKINGS: readonly Chunking[] = ['whole', 'bytes', 'random'];

export function chunk(buf: Buffer, how: Chunking, seed = 1): Buffer[] {
  if (how === 'whole') return [buf];
  return chunkBytes(buf, how === 'bytes' ? 1 : 'random', seed);
}

export interface DecodeOptions extends IntegrityOptions, SseDecodeOptions {
  from?: DialectName;
  ctx?: RequestContext;
  context?: OfflineContextOptions;
  /** the deployment that answered, as dispatch's `upstream` note tells the decode stages */
  upstream?: Upstream;
  /** collects the notes the stages output (readable after a failure too) */
  notes?: ChainNote[];
}

type AnyStage = Stage<never, unknown>;

/** Items into stage i; a note goes to every later stage's `note` hook and into `notes`, as the runners do. */
function pump(stages: readonly AnyStage[], i: number, items: StageOutput<unknown>, ctx: RequestContext, out: unknown[], notes: ChainNote[]): void {
  if (items == null) return;
  if (Symbol.asyncIterator in items) throw new Error(`stage ${stages[i - 1]?.name} answered asynchronously`);
  for (const item of items) {
    if (isNote(item)) {
      for (let k = i; k < stages.length; k++) stages[k]!.note?.(item, ctx);
      notes.push(item);
    } else if (i === stages.length) out.push(item);
    else pump(stages, i + 1, stages[i]!.step(item as never, ctx), ctx, out, notes);
  }
}

/**
 * Run stages in order without streams or promises (the stages here answer synchronously), flushing
 * each in turn as a pipeline does. lib/stage.ts's async `chain`/`runStage` cost ~40 µs per 1-byte
 * chunk; this keeps the byte-by-byte runs of large fixtures fast. One test also runs real streams.
 */
export function runSync<O>(stages: readonly AnyStage[], inputs: Iterable<unknown>, ctx: RequestContext, notes: ChainNote[] = []): O[] {
  const out: unknown[] = [];
  for (const input of inputs) pump(stages, 0, [input], ctx, out, notes);
  for (let i = 0; i < stages.length; i++) pump(stages, i + 1, stages[i]!.flush?.(ctx), ctx, out, notes);
  return out as O[];
}

export function decodeStages(opts: DecodeOptions = {}): AnyStage[] {
  const from = opts.from ?? 'anthropic';
  return [sseDecode(opts), providerDecode({ dialect: () => from }), integrity(opts)];
}

/** The validated usage the last `usage` note carried (what settle charges), or null. */
export function lastUsage(notes: readonly ChainNote[]): Usage | null {
  let usage: Usage | null = null;
  for (const n of notes) if (n.note === 'usage') usage = n.usage;
  return usage;
}

/** sse-decode → provider-decode → integrity over the chunks: the events, and the validated usage (integrity's notes). */
export async function decode(chunks: Buffer[], opts: DecodeOptions = {}): Promise<{ events: CanonicalEvent[]; ctx: RequestContext; usage: Usage | null }> {
  const ctx = opts.ctx ?? offlineContext({ reqId: 'req_test', ...opts.context });
  const notes: ChainNote[] = opts.notes ?? [];
  const inputs: unknown[] = opts.upstream !== undefined ? [{ note: 'upstream', upstream: opts.upstream } satisfies ChainNote, ...chunks] : chunks;
  const events = runSync<CanonicalEvent>(decodeStages(opts), inputs, ctx, notes);
  return { events, ctx, usage: lastUsage(notes) };
}

export async function encodeSse(events: CanonicalEvent[], clientModel?: string, ctx = offlineContext({ reqId: 'req_test' })): Promise<string> {
  return runSync<string>([sseEncode({ clientModel })], events, ctx).join('');
}

export async function encodeJson(events: CanonicalEvent[], clientModel?: string, ctx = offlineContext({ reqId: 'req_test' })): Promise<string> {
  const out = runSync<string>([anthropicJsonEncode(new EncoderState(ctx.reqId, undefined), { clientModel })], events, ctx);
  if (out.length !== 1) throw new Error(`expected one JSON body, got ${out.length}`);
  return out[0]!;
}

export interface Frame {
  event: string | undefined;
  data: string;
}

export function frames(text: string): Frame[] {
  const out: Frame[] = [];
  const parser = createParser({ onEvent: (m) => out.push({ event: m.event, data: m.data }) });
  parser.feed(text);
  return out;
}

type Obj = Record<string, unknown>;

/**
 * The Message an SDK client accumulates from Messages SSE frames, following the official SDK's
 * rules, plus two things the SDK leaves out and a non-streaming Message has: every message_delta
 * usage field (not only the known ones) and `stop_details`.
 */
export function accumulate(list: Frame[]): Obj {
  let message: Obj | undefined;
  const json = new Map<number, string>();
  for (const f of list) {
    const ev = JSON.parse(f.data) as Obj;
    if (ev.type === 'message_start') {
      message = structuredClone(ev.message) as Obj;
      continue;
    }
    if (message === undefined) throw new Error(`${String(ev.type)} before message_start`);
    const content = message.content as Obj[];
    if (ev.type === 'content_block_start') content.push(structuredClone(ev.content_block) as Obj);
    if (ev.type === 'content_block_delta') {
      const index = ev.index as number;
      const block = content[index]!;
      const delta = ev.delta as Obj;
      if (delta.type === 'text_delta') block.text = String(block.text ?? '') + String(delta.text);
      if (delta.type === 'citations_delta') block.citations = [...((block.citations as unknown[]) ?? []), delta.citation];
      if (delta.type === 'thinking_delta') block.thinking = String(block.thinking) + String(delta.thinking);
      if (delta.type === 'signature_delta') block.signature = delta.signature;
      if (delta.type === 'compaction_delta') block.content = String(block.content ?? '') + String(delta.content);
      if (delta.type === 'input_json_delta') json.set(index, (json.get(index) ?? '') + String(delta.partial_json));
    }
    if (ev.type === 'content_block_stop') {
      // the SDK re-parses the partial JSON after every delta; once the block is closed that is the full parse
      const buf = json.get(ev.index as number);
      if (buf) content[ev.index as number]!.input = JSON.parse(buf);
    }
    if (ev.type === 'message_delta') {
      const delta = ev.delta as Obj;
      message.stop_reason = delta.stop_reason;
      message.stop_sequence = delta.stop_sequence;
      if (delta.stop_details !== undefined) message.stop_details = delta.stop_details;
      if (delta.container !== undefined) message.container = delta.container;
      if (ev.context_management !== undefined) message.context_management = ev.context_management;
      const usage = message.usage as Obj;
      for (const [k, v] of Object.entries(ev.usage as Obj)) if (v !== null) usage[k] = v;
    }
  }
  if (message === undefined) throw new Error('no message_start');
  return message;
}
