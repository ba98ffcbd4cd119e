// The integrity stage's rules, one check per canonical event type, and the per-request state they
// keep (which blocks are open, the usage so far, a cut or held tool call): see integrity.ts for
// what the stage promises. A check throws GW_ERR_INTEGRITY on a broken rule, or returns `false` to
// hold the event back.
import type { CanonicalBlock, CanonicalEvent, CanonicalEventType, StopReason, Usage } from '../lib/chunks.js';
import type { RequestContext } from '../lib/context.js';
import type { GatewayError } from '../lib/errors.js';
import { errors } from '../lib/errors/index.js';
import type { Upstream } from '../lib/notes.js';
import { toolInputError } from './tool-input.js';

export interface IntegrityOptions {
  /** the model the request was dispatched with; default the `upstream` note's `upstreamModel`; undefined skips the check */
  expectedModel?: (ctx: RequestContext, upstream: Upstream | null) => string | undefined;
  /** default: `sameModel` */
  modelMatches?: (expected: string, actual: string) => boolean;
}

/**
 * The answered model is the dispatched one: equal, or the dated snapshot an alias resolves to
 * (`vendor-haiku-4-5` answered as `vendor-haiku-4-5-20251001`).
 */
export function sameModel(expected: string, actual: string): boolean {
  if (actual === expected) return true;
  if (!actual.startsWith(expected)) return false;
  // Anthropic answers an alias with its dated snapshot (-20251001), OpenAI with -2024-08-06
  return /^-(\d{8}|\d{4}-\d{2}-\d{2})$/.test(actual.slice(expected.length));
}

/** GW_ERR_INTEGRITY: the provider's answer broke a rule (inference had begun) */
export const fail = (detail: string, cause?: unknown): GatewayError => errors.integrity(detail, cause);

type Kind = CanonicalBlock['kind'];
type Phase = 'before' | 'blocks' | 'ending' | 'done' | 'errored';
export type BlockStop = Extract<CanonicalEvent, { type: 'block-stop' }>;

interface Block {
  kind: Kind;
  open: boolean;
  /** concatenated tool-input deltas */
  json: string;
  signature: string;
}

export class State {
  phase: Phase = 'before';
  readonly blocks: Block[] = [];
  openCount = 0;
  /** made at the first tool call (most answers have none) */
  toolIds: Set<string> | undefined = undefined;
  usage: Usage | null = null;
  /** the deployment that answered (dispatch's `upstream` note) */
  upstream: Upstream | null = null;
  /** a tool-call block whose input ended before its JSON did, at its stop: why, until the next event says the turn was cut */
  cut: GatewayError | undefined = undefined;
  /** the stop of a whole tool call, the last block and the only one open: held until the next event says whether the limit cut it */
  held: BlockStop | undefined = undefined;
  constructor(readonly opts: IntegrityOptions) {}
}

/** returns `false` when the event is held back (a tool call's block-stop); any other value is ignored */
type Check<T extends CanonicalEventType> = (s: State, ev: Extract<CanonicalEvent, { type: T }>, ctx: RequestContext) => unknown;
type DeltaType = 'text-delta' | 'thinking-delta' | 'signature-delta' | 'tool-input-delta' | 'citation-delta' | 'url-citation' | 'opaque-delta';

function inMessage(s: State, what: string): void {
  if (s.phase === 'before') throw fail(`${what} before message_start`);
  if (s.phase === 'done') throw fail(`${what} after message_stop`);
}

function openBlock(s: State, index: number, what: string): Block {
  inMessage(s, what);
  const block = s.blocks[index];
  if (block === undefined || !block.open) throw fail(`${what} for block ${index}, which is not open`);
  return block;
}

function checkUsage(usage: Partial<Usage>, where: string): void {
  for (const key of Object.keys(usage) as (keyof Usage)[]) {
    const value = usage[key];
    if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) {
      throw fail(`${where} usage.${key} is ${String(value)}, not a non-negative integer`);
    }
  }
}

/** Which block kinds each delta may touch (opaque deltas: any open block). */
const DELTA_TARGETS: Record<DeltaType, readonly Kind[] | null> = {
  'text-delta': ['text'],
  'citation-delta': ['text'],
  'url-citation': ['text'],
  'thinking-delta': ['thinking'],
  'signature-delta': ['thinking'],
  // server-side tool calls are opaque blocks that stream their input the same way
  'tool-input-delta': ['tool-call', 'opaque'],
  'opaque-delta': null,
};

type DeltaEvent = Extract<CanonicalEvent, { type: DeltaType }>;

/** The open block a delta applies to, after checking the delta kind fits the block kind. */
function deltaBlock(s: State, ev: DeltaEvent): Block {
  const block = openBlock(s, ev.index, ev.type);
  const targets = DELTA_TARGETS[ev.type];
  if (targets !== null && !targets.includes(block.kind)) throw fail(`${ev.type} on block ${ev.index}, a ${block.kind} block`);
  return block;
}

/** The turn was cut by the token limit (vLLM says `tool_calls` of a turn cut at max_tokens). */
export const cutByLimit = (stop: StopReason | null): boolean => stop !== null && (stop.kind === 'length' || stop.kind === 'tool-calls');

/**
 * message-delta with blocks open: allowed only for a turn cut by the token limit whose open blocks
 * are all tool calls (Anthropic's shape of a cut call); they stay unclosed, cut.
 */
function cutOpenCalls(s: State, stop: StopReason | null): void {
  const open = s.blocks.findIndex((b) => b.open && b.kind !== 'tool-call');
  if (stop?.kind !== 'length' || open !== -1) throw fail(`message_delta while block ${open === -1 ? s.blocks.findIndex((b) => b.open) : open} is open`);
  for (const b of s.blocks) b.open = false;
  s.openCount = 0;
}

export const CHECKS: { [T in CanonicalEventType]: Check<T> } = {
  'message-start': (s, ev, ctx) => {
    if (s.phase !== 'before') throw fail(s.phase === 'done' ? 'message_start after message_stop' : 'a second message_start');
    if (ev.id === '') throw fail('message_start without a message id');
    const expected = s.opts.expectedModel ? s.opts.expectedModel(ctx, s.upstream) : s.upstream?.upstreamModel;
    if (expected !== undefined && !(s.opts.modelMatches ?? sameModel)(expected, ev.model)) {
      throw fail(`the provider answered with model "${ev.model}", but "${expected}" was dispatched`);
    }
    checkUsage(ev.usage, 'message_start');
    s.usage = { ...ev.usage };
    s.phase = 'blocks';
  },
  'block-start': (s, ev) => {
    inMessage(s, 'block-start');
    if (s.phase === 'ending') throw fail(`block ${ev.index} started after message_delta`);
    if (ev.index !== s.blocks.length) throw fail(`block ${ev.index} started, but the next index is ${s.blocks.length}`);
    const b = ev.block;
    if (b.kind === 'tool-call') {
      if (b.id === '') throw fail(`tool call in block ${ev.index} has no id`);
      if (b.name === '') throw fail(`tool call in block ${ev.index} has no name`);
      s.toolIds ??= new Set();
      if (s.toolIds.has(b.id)) throw fail(`tool call id ${b.id} is used twice`);
      s.toolIds.add(b.id);
    }
    s.blocks.push({ kind: b.kind, open: true, json: '', signature: b.kind === 'thinking' ? b.signature : '' });
    s.openCount++;
  },
  'text-delta': deltaBlock,
  'citation-delta': deltaBlock,
  'url-citation': deltaBlock,
  'thinking-delta': deltaBlock,
  'opaque-delta': deltaBlock,
  'signature-delta': (s, ev) => {
    deltaBlock(s, ev).signature = ev.signature;
  },
  'tool-input-delta': (s, ev) => {
    deltaBlock(s, ev).json += ev.json;
  },
  'block-stop': (s, ev) => {
    const block = openBlock(s, ev.index, 'block-stop');
    if (block.kind === 'tool-call' || block.kind === 'opaque') {
      const bad = toolInputError(block.json, ev.index);
      if (bad !== undefined) {
        if (block.kind === 'opaque' || !bad.cut) throw bad.error;
        // held: the message-delta says whether the token limit cut it; the block takes nothing more
        s.cut ??= bad.error;
        block.open = false;
        s.openCount--;
        return false;
      }
      // Anthropic's sign of a cut call, whose JSON may well be whole: the last block a tool call at the limit
      // (Chat's too, which has no other); a stop marked `complete` is one the upstream itself said was done
      // (a Responses item's done event), whatever the turn's end says
      if (block.kind === 'tool-call' && ev.complete !== true && s.openCount === 1 && ev.index === s.blocks.length - 1 && s.cut === undefined) {
        s.held = ev;
        return false;
      }
    }
    if (block.kind === 'thinking' && block.signature === '') throw fail(`thinking block ${ev.index} closed without a signature`);
    block.open = false;
    block.json = '';
    s.openCount--;
  },
  'message-delta': (s, ev, ctx) => {
    inMessage(s, 'message_delta');
    if (s.openCount > 0) cutOpenCalls(s, ev.stop);
    checkUsage(ev.usage, 'message_delta');
    const usage = s.usage!;
    if (ev.usage.output !== undefined && ev.usage.output < usage.output) {
      throw fail(`output usage went down from ${usage.output} to ${ev.usage.output}`);
    }
    s.usage = { ...usage, ...ev.usage };
    s.phase = 'ending';
  },
  'message-stop': (s) => {
    inMessage(s, 'message_stop');
    if (s.openCount > 0) throw fail(`message_stop while block ${s.blocks.findIndex((b) => b.open)} is open`);
    if (s.phase !== 'ending') throw fail('message_stop without message_delta');
    s.phase = 'done';
  },
  ping: (s) => {
    if (s.phase === 'done') throw fail('ping after message_stop');
  },
  'opaque-event': (s, ev) => inMessage(s, `event ${ev.name}`),
  error: (s) => {
    s.phase = 'errored';
  },
};
