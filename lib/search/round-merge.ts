// The search loop's rounds as ONE answer (decisions §11): the client sees one message-start (the
// first round's), each round's blocks with their indexes renumbered so they follow one another, a
// `web-search` block per search where it ran, and one final message-delta whose usage is the sum over
// the rounds. The model's `web_search` calls are the gateway's business: their blocks never reach the
// client, they are collected for the search loop instead. Stream-free: events in, events out.
import type { CanonicalEvent, StopReason, Usage, WebSearchCall } from '../chunks.js';
import { emptyUsage } from '../chunks.js';

/** A `web_search` call the model made in the current round. */
export interface SearchCallRequest {
  /** the model's tool-call id (the next round's request answers it) */
  id: string;
  argsJson: string;
}

/** How a round ended, once its message-stop came. */
export interface RoundEnd {
  stop: StopReason | null;
  /** the round's usage (message-start's, updated by message-delta's) */
  usage: Usage;
  calls: SearchCallRequest[];
  /** the round also called a client tool: the answer ends with the client's calls */
  clientCalls: boolean;
  /** the round's visible text and signed thinking, replayed in the next round's request */
  text: string;
  thinking: { thinking: string; signature: string }[];
}

export function addUsage(a: Usage, b: Usage): Usage {
  return {
    input: a.input + b.input,
    output: a.output + b.output,
    cacheRead: a.cacheRead + b.cacheRead,
    cacheWrite: a.cacheWrite + b.cacheWrite,
    reasoning: a.reasoning + b.reasoning,
    webSearches: a.webSearches + b.webSearches,
  };
}

/** The event without its native frame: a renumbered or merged event is no upstream's frame any more. */
function plain<E extends CanonicalEvent>(ev: E): E {
  if (ev.native === undefined) return ev;
  const { native: _native, ...rest } = ev;
  return rest as E;
}

export class RoundMerger {
  /** the next block index the client sees */
  private next = 0;
  /** this round's block indexes → the client's */
  private indexes = new Map<number, number>();
  /** this round's search-call blocks, by their index */
  private searchBlocks = new Map<number, SearchCallRequest>();
  private thinkingBlocks = new Map<number, { thinking: string; signature: string }>();
  private textParts: string[] = [];
  private textBlocks = new Set<number>();
  private usage: Usage = emptyUsage();
  private stop: StopReason | null = null;
  private clientCalls = false;
  private rounds = 0;
  /** set by the round's message-stop */
  ended: RoundEnd | null = null;

  constructor(private readonly searchName: string) {}

  /** The next round's events follow (its own message-start is not shown). */
  beginRound(): void {
    this.indexes.clear();
    this.searchBlocks.clear();
    this.thinkingBlocks.clear();
    this.textParts = [];
    this.textBlocks.clear();
    this.usage = emptyUsage();
    this.stop = null;
    this.clientCalls = false;
    this.ended = null;
  }

  /** One upstream event of the current round: what the client sees of it. */
  push(ev: CanonicalEvent): CanonicalEvent[] {
    switch (ev.type) {
      case 'message-start':
        this.usage = { ...ev.usage };
        return this.rounds++ === 0 ? [plain(ev)] : [];
      case 'block-start': {
        const b = ev.block;
        if (b.kind === 'tool-call' && b.name === this.searchName) {
          this.searchBlocks.set(ev.index, { id: b.id, argsJson: b.input !== null && Object.keys(b.input).length > 0 ? JSON.stringify(b.input) : '' });
          return [];
        }
        if (b.kind === 'tool-call') this.clientCalls = true;
        if (b.kind === 'thinking') this.thinkingBlocks.set(ev.index, { thinking: b.thinking, signature: b.signature });
        if (b.kind === 'text') {
          this.textBlocks.add(ev.index);
          this.textParts.push(b.text);
        }
        const index = this.next++;
        this.indexes.set(ev.index, index);
        // a whole answer (a JSON body) brings its text with the block: as a delta, the citation
        // rewriter reads it as it reads streamed text
        if (b.kind === 'text' && b.text !== '') return [{ ...plain(ev), index, block: { ...b, text: '' } }, { type: 'text-delta', index, text: b.text }];
        return [{ ...plain(ev), index }];
      }
      case 'tool-input-delta': {
        const call = this.searchBlocks.get(ev.index);
        if (call !== undefined) {
          call.argsJson += ev.json;
          return [];
        }
        return this.moved(ev);
      }
      case 'text-delta':
        if (this.textBlocks.has(ev.index)) this.textParts.push(ev.text);
        return this.moved(ev);
      case 'thinking-delta': {
        const t = this.thinkingBlocks.get(ev.index);
        if (t !== undefined) t.thinking += ev.text;
        return this.moved(ev);
      }
      case 'signature-delta': {
        const t = this.thinkingBlocks.get(ev.index);
        if (t !== undefined) t.signature = ev.signature;
        return this.moved(ev);
      }
      case 'citation-delta':
      case 'url-citation':
      case 'opaque-delta':
      case 'block-stop':
        return this.moved(ev);
      case 'message-delta':
        this.usage = { ...this.usage, ...ev.usage };
        if (ev.stop !== null) this.stop = ev.stop;
        return [];
      case 'message-stop':
        this.ended = {
          stop: this.stop,
          usage: this.usage,
          calls: [...this.searchBlocks.values()],
          clientCalls: this.clientCalls,
          text: this.textParts.join(''),
          thinking: [...this.thinkingBlocks.values()].filter((t) => t.signature !== ''),
        };
        return [];
      default:
        return [plain(ev)];
    }
  }

  private moved<E extends Extract<CanonicalEvent, { index: number }>>(ev: E): CanonicalEvent[] {
    if (this.searchBlocks.has(ev.index)) return [];
    const index = this.indexes.get(ev.index);
    return [index === undefined ? plain(ev) : { ...plain(ev), index }];
  }

  /** A search the gateway ran (or refused): its block, opened and closed at once. */
  searchBlock(call: WebSearchCall): CanonicalEvent[] {
    const index = this.next++;
    return [{ type: 'block-start', index, block: { kind: 'web-search', call } }, { type: 'block-stop', index }];
  }

  /** The answer's end: one message-delta with the whole request's usage, then message-stop. */
  finish(stop: StopReason | null, usage: Usage): CanonicalEvent[] {
    return [{ type: 'message-delta', stop, usage: { ...usage } }, { type: 'message-stop' }];
  }
}
