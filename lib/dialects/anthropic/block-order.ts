// The translated events of a Messages stream in the order Anthropic writes blocks: one after the
// other, each started, streamed and stopped before the next starts. A canonical stream may have two
// blocks open at once (a Responses upstream whose parallel function calls' argument pieces
// interleave): a block that starts while another is open is held, with its deltas and its stop,
// until the open one stops; then it goes out whole as far as it came (FAILURE-MODES F6). At
// message-delta whatever is held goes out, unless it waits behind a tool call the token limit cut. A stream whose blocks never overlap (every upstream but
// that one) only has the open block's index noted at its start and stop.
import type { CanonicalEvent } from '../../chunks.js';

type Write = (ev: CanonicalEvent) => string;

export class BlockOrder {
  /** the canonical index of the block the client sees open, -1 when none */
  private open = -1;
  /** blocks that started while another was open, in order, each with its events so far */
  private held: { index: number; events: CanonicalEvent[] }[] | undefined;

  constructor(private readonly write: Write) {}

  /** The frames for `ev`, now or (held) later. */
  next(ev: CanonicalEvent): string {
    const held = this.held;
    if (held === undefined) {
      if (ev.type === 'block-start') {
        if (this.open !== -1) {
          this.held = [{ index: ev.index, events: [ev] }];
          return '';
        }
        this.open = ev.index;
      } else if (ev.type === 'block-stop' && ev.index === this.open) {
        this.open = -1;
      }
      return this.write(ev);
    }
    switch (ev.type) {
      case 'block-start':
        held.push({ index: ev.index, events: [ev] });
        return '';
      case 'message-delta':
      case 'message-stop': {
        const out = this.release();
        // what is still held waits behind a block that never stopped: a tool call the token limit
        // cut (stages/integrity.ts). Anthropic writes nothing after a block the limit cut, so it is
        // left out (a whole call among it comes again with the turn, which the client asks again on
        // max_tokens); written after the cut block, it would start while that one is open.
        this.held = undefined;
        return out + this.write(ev);
      }
      case 'ping':
      case 'opaque-event':
      case 'error':
      case 'message-start':
        return this.write(ev);
      default: {
        if (ev.index === this.open) {
          const out = this.write(ev);
          if (ev.type !== 'block-stop') return out;
          this.open = -1;
          return out + this.release();
        }
        const block = held.find((b) => b.index === ev.index);
        if (block === undefined) return this.write(ev);
        block.events.push(ev);
        return '';
      }
    }
  }

  /** The held blocks that may go out now: in order, while none is open. */
  private release(): string {
    const held = this.held!;
    let out = '';
    while (held.length > 0 && this.open === -1) {
      const block = held.shift()!;
      for (const ev of block.events) out += this.write(ev);
      this.open = block.events.at(-1)!.type === 'block-stop' ? -1 : block.index;
    }
    if (held.length === 0) this.held = undefined;
    return out;
  }
}
