// What a Messages request served by Anthropic's own hosted web search is charged (decisions §11, the
// API's rule "a web search is charged only when a successful correlated result is reported"): one
// search per `web_search_tool_result` that holds at least one `web_search_result` and answers a
// `server_tool_use` named `web_search` of the same response (matched by id). An error result, a
// result that answers no call, or a call the stream paused before answering costs nothing. The
// reported `usage.server_tool_use.web_search_requests` caps the count (the gateway never charges more
// searches than Anthropic billed); without a report the count stands. The client still receives
// Anthropic's frames byte for byte: only the canonical usage, which settle charges, is corrected.
import type { CanonicalEvent, JsonObject, Usage } from '../../chunks.js';
import type { UpstreamDecoder } from '../dialect.js';
import { decodeAnthropicFrame, decodeAnthropicSse, textDeltaEvent, type SseMessage } from './events.js';
import { decodeAnthropicMessage } from './message.js';
import { isObject } from './wire.js';

export class HostedSearchTally {
  /** made at the first search call (most answers have none) */
  private calls: Set<string> | undefined = undefined;
  private answered: Set<string> | undefined = undefined;

  /** One content block as it opened (a result block opens whole). */
  block(block: JsonObject): void {
    if (block.type === 'server_tool_use' && block.name === 'web_search' && typeof block.id === 'string') {
      (this.calls ??= new Set()).add(block.id);
    } else if (block.type === 'web_search_tool_result' && typeof block.tool_use_id === 'string' && this.calls?.has(block.tool_use_id) === true) {
      const content = block.content;
      if (Array.isArray(content) && content.some((r) => isObject(r) && r.type === 'web_search_result')) (this.answered ??= new Set()).add(block.tool_use_id);
    }
  }

  /** successful correlated searches so far */
  get count(): number {
    return this.answered?.size ?? 0;
  }

  /** The final usage with the searches to charge: the correlated count, capped by a reported figure. */
  usage(usage: Partial<Usage>): Partial<Usage> {
    const reported = usage.webSearches;
    if (reported === undefined && this.count === 0) return usage;
    return { ...usage, webSearches: reported === undefined ? this.count : Math.min(reported, this.count) };
  }

  /**
   * The event with its usage corrected: the message delta carries the final figure (a stream's
   * message start reports no search yet; a whole message's is superseded by its delta).
   */
  apply(ev: CanonicalEvent): CanonicalEvent {
    if (ev.type === 'block-start') {
      const wire = ev.native?.parsed.content_block;
      if (isObject(wire)) this.block(wire);
      return ev;
    }
    return ev.type === 'message-delta' ? { ...ev, usage: this.usage(ev.usage) } : ev;
  }
}

/** The events with their usage corrected, in the (fresh) array the decoder returned: no copy per frame. */
function applyAll(tally: HostedSearchTally, events: CanonicalEvent[]): CanonicalEvent[] {
  for (let i = 0; i < events.length; i++) events[i] = tally.apply(events[i]!);
  return events;
}

/** The upstream decoder of one response: Anthropic's events, with hosted searches charged as above. */
class AnthropicDecoder implements UpstreamDecoder {
  private readonly tally = new HostedSearchTally();

  sse(msg: SseMessage): CanonicalEvent[] {
    return applyAll(this.tally, decodeAnthropicSse(msg));
  }

  /** `sse`, the events pushed onto `out` (a text delta, which the tally leaves as it is, with no array of its own) */
  sseInto(msg: SseMessage, out: unknown[]): void {
    const text = msg.event === 'content_block_delta' ? textDeltaEvent(msg.data) : null;
    if (text !== null) {
      out.push(text);
      return;
    }
    const events = applyAll(this.tally, decodeAnthropicFrame(msg));
    for (let i = 0; i < events.length; i++) out.push(events[i]);
  }

  json(body: string): CanonicalEvent[] {
    return applyAll(this.tally, decodeAnthropicMessage(body));
  }
}

export function anthropicDecoder(): UpstreamDecoder {
  return new AnthropicDecoder();
}
