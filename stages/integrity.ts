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
// block a tool_use at max_tokens, whatever its JSON), unless the stop is marked `complete` (the
// upstream said the item was done: a Responses item's done event; one it never said done, closed at
// `response.incomplete`, is held as any other). When the next event is the message-delta of a
// turn cut by the limit (`length`; for broken JSON also vLLM's `tool-calls`, rewritten to `length`),
// the stop is dropped and the block stays unclosed; the pieces of other calls may come first (an
// earlier one cut, a later one whole). Otherwise a whole call's stop goes out before that event, and
// broken JSON fails with the held error. A `length` message-delta while tool-call blocks are open
// (Anthropic's own shape) leaves them unclosed too. Encoders never show an unclosed block as a whole
// call (Messages leaves it open with max_tokens; Chat ends with length; Responses never sends its done
// events nor lists it; JSON answers leave it out).
import type { CanonicalEvent } from '../lib/chunks.js';
import type { RequestContext } from '../lib/context.js';
import type { ChainNote, FailedNote, UsageNote } from '../lib/notes.js';
import type { Stage } from '../lib/stage.js';
import { CHECKS, cutByLimit, fail, State, type BlockStop, type IntegrityOptions } from './integrity-checks.js';

export { sameModel, type IntegrityOptions } from './integrity-checks.js';

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
