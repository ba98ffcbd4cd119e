// CanonicalEvent → CanonicalEvent, unchanged, failing closed (GW_ERR_INTEGRITY) on anything a
// faithful provider would never send: events outside message-start … message-stop, block indexes
// out of order, deltas for closed blocks or of the wrong kind, blocks left open, missing or
// duplicate tool-call ids, tool input that is not a JSON object, unsigned thinking, bad usage
// accounting, a model other than the one dispatched, and a stream that ends early. Dialect-neutral:
// only canonical fields are read. Validated usage goes on as a `usage` note (before the event that
// brought it) as it arrives, so settle charges what was really incurred even when the stream fails
// later, and the encoders report the same figure. An upstream `error` event goes on (the encoder
// writes the dialect's error frame) after a `failed` note, so settle records the request as failed.
//
// One thing it does change: a tool call cut by the token limit (FAILURE-MODES F5). A tool-call
// block whose input ends before its JSON does is held at its stop, and so is the stop of a whole one
// that is the last block and the only one open (Anthropic's documented sign of a cut call: the last
// block a tool_use at max_tokens, whatever its JSON). When the next event is the message-delta of a
// turn cut by the limit (`length`; for broken JSON also vLLM's `tool-calls`, rewritten to `length`),
// the stop is dropped and the block stays unclosed; the pieces of other calls may come first (an
// earlier one cut, a later one whole). Otherwise a whole call's stop goes out before that event, and
// broken JSON fails with the held error. A `length` message-delta while tool-call blocks are open
// (Anthropic's own shape) leaves them unclosed too. Encoders never show an unclosed block as a whole
// call (Messages leaves it open with max_tokens; Chat ends with length; Responses never sends its done
// events nor lists it; JSON answers leave it out).
import type { CanonicalBlock, CanonicalEvent, CanonicalEventType, StopReason, Usage } from '../lib/chunks.js';
import type { RequestContext } from '../lib/context.js';
import type { GatewayError } from '../lib/errors.js';
import { errors } from '../lib/errors/index.js';
import type { ChainNote, FailedNote, Upstream, UsageNote } from '../lib/notes.js';
import type { Stage } from '../lib/stage.js';
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
const fail = (detail: string, cause?: unknown): GatewayError => errors.integrity(detail, cause);

type Kind = CanonicalBlock['kind'];
type Phase = 'before' | 'blocks' | 'ending' | 'done' | 'errored';
type BlockStop = Extract<CanonicalEvent, { type: 'block-stop' }>;

interface Block {
  kind: Kind;
  open: boolean;
  /** concatenated tool-input deltas */
  json: string;
  signature: string;
}

class State {
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
const cutByLimit = (stop: StopReason | null): boolean => stop !== null && (stop.kind === 'length' || stop.kind === 'tool-calls');

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

const CHECKS: { [T in CanonicalEventType]: Check<T> } = {
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
      // (Chat's too, which has no other; a Responses item says itself whether it completed)
      if (block.kind === 'tool-call' && s.openCount === 1 && ev.index === s.blocks.length - 1 && s.cut === undefined && s.upstream?.api !== 'responses') {
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

/** One request's integrity stage: a class instance that is its own state (no closure per hook beside a state object). */
class IntegrityStage extends State implements Stage<CanonicalEvent, CanonicalEvent | UsageNote | FailedNote> {
  readonly name = 'integrity';

  note(n: ChainNote): void {
    if (n.note === 'upstream') this.upstream = n.upstream;
  }

  /** Most of a stream: text for the open text block, inside the message, nothing held back (what deltaBlock checks). */
  private passes(ev: CanonicalEvent): boolean {
    if (ev.type !== 'text-delta') return false;
    const block = this.blocks[ev.index];
    return block !== undefined && block.open && block.kind === 'text' && this.cut === undefined && (this.phase === 'blocks' || this.phase === 'ending');
  }

  steps(evs: readonly CanonicalEvent[], from: number, to: number, out: unknown[], ctx: RequestContext): number {
    for (let k = from; k < to; k++) {
      const ev = evs[k]!;
      if (this.passes(ev)) {
        out.push(ev);
        continue;
      }
      // after an upstream error each event is logged as dropped: one at a time, as before
      if (this.phase === 'errored') return k;
      const got = this.checked(ev, ctx);
      if (got !== undefined) for (let j = 0; j < got.length; j++) out.push(got[j]);
    }
    return to;
  }

  step(ev: CanonicalEvent, ctx: RequestContext): (CanonicalEvent | UsageNote | FailedNote)[] | undefined {
    return this.passes(ev) ? [ev] : this.checked(ev, ctx);
  }

  /** the general path */
  private checked(ev: CanonicalEvent, ctx: RequestContext): (CanonicalEvent | UsageNote | FailedNote)[] | undefined {
    if (this.phase === 'errored') {
      // an upstream error is terminal: nothing after it reaches the client
      ctx.log.warn({ event: ev.type }, 'integrity: event after an upstream error dropped');
      return undefined;
    }
    if (this.cut !== undefined) ev = this.afterCut(ev);
    if (this.held !== undefined && ev.type !== 'ping') return this.afterHeld(this.held, ev, ctx);
    if ((CHECKS[ev.type] as (s: State, ev: CanonicalEvent, ctx: RequestContext) => unknown)(this, ev, ctx) === false) return undefined;
    // the usage so far, validated (a copy: the note's reader keeps it), before the event itself
    if (ev.type === 'message-start' || ev.type === 'message-delta') return [{ note: 'usage', usage: { ...this.usage! } }, ev];
    // the stream ends in the provider's error: the client gets its error frame, settle a failure
    if (ev.type === 'error') return [{ note: 'failed', error: ev.error }, ev];
    return [ev];
  }

  /**
   * The event after a whole call's held stop: a turn the limit cut leaves the call open (message-delta's
   * rule); anything else says it was whole, and its stop goes out first.
   */
  private afterHeld(stop: BlockStop, ev: CanonicalEvent, ctx: RequestContext): (CanonicalEvent | UsageNote | FailedNote)[] | undefined {
    this.held = undefined;
    if (ev.type === 'message-delta' && ev.stop?.kind === 'length') return this.step(ev, ctx);
    const block = this.blocks[stop.index]!;
    block.open = false;
    block.json = '';
    this.openCount--;
    return [stop, ...(this.step(ev, ctx) ?? [])];
  }

  /**
   * An event after a held block-stop: the pieces of other tool calls still in flight (parallel
   * calls whose pieces interleave, or listed after the cut one), then the message-delta of a turn
   * cut by the token limit (as `length`); an error or keep-alive too. Anything else makes the held
   * error the answer's.
   */
  private afterCut(ev: CanonicalEvent): CanonicalEvent {
    if (ev.type === 'ping' || ev.type === 'error' || this.otherCall(ev)) return ev;
    if (ev.type !== 'message-delta' || !cutByLimit(ev.stop)) throw this.cut!;
    this.cut = undefined;
    // a rewritten stop is encoded from canonical fields, not from the upstream's frame
    return ev.stop!.kind === 'length' ? ev : { type: 'message-delta', stop: { kind: 'length' }, usage: ev.usage };
  }

  /** A piece of a tool call other than the cut one (whose block no longer takes any). */
  private otherCall(ev: CanonicalEvent): boolean {
    if (ev.type === 'block-start') return ev.block.kind === 'tool-call';
    if (ev.type !== 'tool-input-delta' && ev.type !== 'block-stop') return false;
    return this.blocks[ev.index]?.kind === 'tool-call';
  }

  flush(): undefined {
    if (this.phase === 'errored') return undefined;
    if (this.cut !== undefined) throw this.cut;
    if (this.phase !== 'done') throw fail('stream ended before message_stop');
    return undefined;
  }
}

export function integrity(opts: IntegrityOptions = {}): Stage<CanonicalEvent, CanonicalEvent | UsageNote | FailedNote> {
  return new IntegrityStage(opts);
}
