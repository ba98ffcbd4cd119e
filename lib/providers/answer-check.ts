// What the start of a 2xx answer must show before any of it is handed on to the client, so that a
// provider failing after its headers can still be failed over (nothing of its answer reached anyone):
//
// - an event stream is held back only until its first frame that carries generated content (a
//   delta, a finish): its preamble (message_start, an empty first block, ping; Chat's role chunk;
//   response.created, response.in_progress, output_item.added) is read with the upstream dialect's
//   own decoder. A frame the decoder rejects (malformed), an in-band `error` event, or an end before
//   any content is a failed answer. A native Messages pass-through writes upstream frames through
//   nearly as-is, and a translated stream writes the client's message_start as soon as it sees the
//   upstream's: holding the bytes here, before sse-decode, keeps both from reaching the client.
// - a JSON answer is read whole (bounded) and must decode before anything is answered.
//
// The check is thrown away once the answer is good: the chunks after it go on untouched (the hot
// path pays nothing per chunk). A preamble past MAX_PREAMBLE bytes goes on unchecked.
import { createParser, type EventSourceParser } from 'eventsource-parser';
import type { CanonicalEvent } from '../chunks.js';
import { upstreamDecoders, upstreamDialect, type UpstreamDecoder } from '../dialects/index.js';
import { errors } from '../errors/index.js';
import type { Upstream } from '../notes.js';

/** a stream's preamble is a few hundred bytes; past this it goes on without a check */
export const MAX_PREAMBLE = 1024 * 1024;
/** the largest non-streaming answer read (sse-decode's bound for a JSON body) */
export const MAX_JSON_ANSWER = 16 * 1024 * 1024;

export interface AnswerCheck {
  /** One more chunk of the answer: true once the answer is known to have begun well. Throws the failure. */
  feed(chunk: Buffer): boolean;
  /** The answer ended while held (a JSON answer always does): throws when it is not a good answer. */
  end(): void;
}

/** Events that carry nothing generated yet: the answer is still in its preamble. */
const PREAMBLE: ReadonlySet<CanonicalEvent['type']> = new Set(['message-start', 'ping', 'block-start']);

/** true once `events` show content; throws an in-band error before it (its GatewayError has `upstream`). */
function contentIn(events: readonly CanonicalEvent[]): boolean {
  for (const ev of events) {
    if (ev.type === 'error') throw ev.error;
    if (!PREAMBLE.has(ev.type)) return true;
  }
  return false;
}

class StreamCheck implements AnswerCheck {
  private readonly text = new TextDecoder('utf-8', { fatal: true });
  private readonly parser: EventSourceParser;
  private content = false;
  private size = 0;

  constructor(private readonly decoder: UpstreamDecoder) {
    this.parser = createParser({
      onEvent: (m) => {
        // after the first content frame the rest of the chunk is not looked at (it goes on as is)
        if (!this.content) this.content = contentIn(decoder.sse({ event: m.event, data: m.data }));
      },
    });
  }

  feed(chunk: Buffer): boolean {
    this.size += chunk.length;
    let text: string;
    try {
      text = this.text.decode(chunk, { stream: true });
    } catch (err) {
      throw errors.integrity('the event stream is not valid UTF-8', err);
    }
    this.parser.feed(text);
    return this.content || this.size > MAX_PREAMBLE;
  }

  end(): void {
    if (this.content) return;
    if (contentIn(this.decoder.end?.() ?? [])) return;
    throw errors.integrity('the stream ended before any content', undefined);
  }
}

/** a whole body at once: no state between calls, so one decoder serves every answer */
const UTF8 = new TextDecoder('utf-8', { fatal: true });

/**
 * A JSON answer the check decoded: its text and its events, kept until the provider-decode stage
 * takes them (`checkedAnswer`), so that the answer is parsed once.
 */
interface Decoded {
  body: string;
  events: CanonicalEvent[];
}

/** keyed by the `upstream` note of the answer (one object per answer, dropped with it) */
const decodedAnswers = new WeakMap<Upstream, Decoded>();

/**
 * The events the check decoded the JSON answer of `upstream` to, when `body` is that answer's text
 * (taken once: a decoder's events are handed on once); undefined otherwise (the caller decodes).
 */
export function checkedAnswer(upstream: Upstream, body: string): CanonicalEvent[] | undefined {
  const decoded = decodedAnswers.get(upstream);
  if (decoded === undefined) return undefined;
  decodedAnswers.delete(upstream);
  return decoded.body === body ? decoded.events : undefined;
}

class JsonCheck implements AnswerCheck {
  private readonly chunks: Buffer[] = [];
  private size = 0;

  constructor(
    private readonly decoder: UpstreamDecoder,
    private readonly upstream: Upstream,
  ) {}

  feed(chunk: Buffer): boolean {
    this.size += chunk.length;
    if (this.size > MAX_JSON_ANSWER) throw errors.integrity(`the response body exceeds ${MAX_JSON_ANSWER} bytes`, undefined);
    this.chunks.push(chunk);
    return false;
  }

  end(): void {
    let body: string;
    try {
      body = UTF8.decode(this.chunks.length === 1 ? this.chunks[0] : Buffer.concat(this.chunks, this.size));
    } catch (err) {
      throw errors.integrity('the response body is not valid UTF-8', err);
    }
    const events = this.decoder.json(body);
    contentIn(events);
    decodedAnswers.set(this.upstream, { body, events });
  }
}

/** The check for the answer of `upstream` (its dialect's decoder, fresh); undefined when it has none. */
export function answerCheck(upstream: Upstream): AnswerCheck | undefined {
  const dialect = upstreamDialect(upstream);
  const factory = dialect === undefined ? undefined : upstreamDecoders[dialect];
  if (factory === undefined) return undefined;
  return upstream.stream ? new StreamCheck(factory()) : new JsonCheck(factory(), upstream);
}

/**
 * Read `body` until `check` says the answer began well, or until it ended: what was read, in one
 * piece (null for none). Throws the body's failure (a reset, the idle timeout, an abort) or the
 * check's, after stopping the call.
 */
export async function holdBack(body: AsyncIterableIterator<Buffer>, check: AnswerCheck): Promise<Buffer | null> {
  const held: Buffer[] = [];
  let size = 0;
  try {
    for (;;) {
      const r = await body.next();
      if (r.done === true) {
        check.end();
        break;
      }
      held.push(r.value);
      size += r.value.length;
      if (check.feed(r.value)) break;
    }
  } catch (err) {
    body.return?.().catch(() => undefined);
    throw err;
  }
  return held.length === 0 ? null : held.length === 1 ? held[0]! : Buffer.concat(held, size);
}
