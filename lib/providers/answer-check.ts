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
// path pays nothing per chunk), and of the chunk that brought the first content frame only the
// frames up to it are decoded (the rest is validated as UTF-8: it was held too). A preamble past
// MAX_PREAMBLE bytes goes on unchecked. What it decoded goes on with the `upstream` note
// (`handOff`, checked-answer.ts), so that the stages after dispatch do not decode it again; the
// chunks it held then go on as they came (`held`): sse-decode skips the start they begin with, so
// they are neither read twice nor copied into one piece.
import { isAscii, isUtf8 } from 'node:buffer';
import { createParser, type EventSourceParser } from 'eventsource-parser';
import type { CanonicalEvent } from '../chunks.js';
import { upstreamDecoders, upstreamDialect, type UpstreamDecoder } from '../dialects/index.js';
import { errors } from '../errors/index.js';
import type { Upstream } from '../notes.js';
import { Utf8Stream } from '../utf8-stream.js';
import type { CheckedAnswer, CheckedJson, CheckedStart } from './checked-answer.js';
import { ChunkQueue } from '../chunk-queue.js';
import { isReady } from '../fused-drive.js';

/** a stream's preamble is a few hundred bytes; past this it goes on without a check */
export const MAX_PREAMBLE = 1024 * 1024;
/** the largest non-streaming answer read (sse-decode's bound for a JSON body) */
export const MAX_JSON_ANSWER = 16 * 1024 * 1024;

export interface AnswerCheck {
  /** One more chunk of the answer: true once the answer is known to have begun well. Throws the failure. */
  feed(chunk: Buffer): boolean;
  /** The answer ended while held (a JSON answer always does): throws when it is not a good answer. */
  end(): void;
  /**
   * Once the answer began well: what the check decoded that the stages after dispatch can take
   * instead of decoding it again (the `upstream` note carries it); undefined for nothing.
   */
  handOff(): CheckedAnswer | undefined;
  /**
   * Once the answer began well: the bytes read, as they go on (empty for none): the chunks as they
   * came after a start handed off (sse-decode skips it and outputs nothing before its end, so that
   * each costs a step through the chain but no write to the client), else in one piece.
   */
  held(): Buffer[];
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

/** LF LF: where a frame ends in the layout every provider sends (other line ends are read a chunk at a time) */
const FRAME_END = Buffer.from('\n\n');

/**
 * Where the bytes from `from` on stop being whole UTF-8 sequences: the start of a lead byte at the
 * very end whose sequence the chunk cuts short (it goes on in the next chunk), else the end.
 */
function wholeSequencesEnd(chunk: Buffer, from: number): number {
  const end = chunk.length;
  for (let i = end - 1; i >= from && i >= end - 3; i--) {
    const b = chunk[i]!;
    if ((b & 0xc0) === 0x80) continue; // a continuation byte: its lead is further back
    const needs = b >= 0xf0 && b <= 0xf4 ? 4 : b >= 0xe0 && b <= 0xef ? 3 : b >= 0xc2 && b <= 0xdf ? 2 : 1;
    return end - i < needs ? i : end;
  }
  return end;
}

class StreamCheck implements AnswerCheck {
  private readonly utf8 = new Utf8Stream();
  private readonly parser: EventSourceParser;
  private content = false;
  private size = 0;
  /** the events decoded so far (handed on with the bytes they came from) */
  private readonly events: CanonicalEvent[] = [];
  /** the parser read a frame after the first content frame, in the same piece: no clean cut */
  private past = false;
  /** the start decoded, once the first content frame ended a piece (a clean cut) */
  private start: CheckedStart | undefined = undefined;
  /** the chunks read */
  private readonly chunks: Buffer[] = [];

  constructor(private readonly decoder: UpstreamDecoder) {
    this.parser = createParser({
      onEvent: (m) => {
        if (this.content) {
          this.past = true;
          return;
        }
        const events = decoder.sse({ event: m.event, data: m.data });
        for (const ev of events) this.events.push(ev);
        this.content = contentIn(events);
      },
    });
  }

  /**
   * Only the frames up to the first content frame are decoded and parsed (sse-decode reads the rest
   * once the answer goes on): the chunk is fed a frame at a time, cut after each blank line
   * (LF LF; text cut there is whole characters, and the parser reads text cut anywhere the same).
   * The rest of the chunk is held too, so it must be UTF-8 as well: it is validated, not decoded.
   */
  feed(chunk: Buffer): boolean {
    const before = this.size;
    this.chunks.push(chunk);
    this.size += chunk.length;
    let from = 0;
    let blank = -1;
    while (from < chunk.length && !this.content) {
      blank = chunk.indexOf(FRAME_END, from);
      const to = blank === -1 ? chunk.length : blank + 2;
      this.parser.feed(this.decode(from === 0 && to === chunk.length ? chunk : chunk.subarray(from, to)));
      from = to;
    }
    if (this.content && blank !== -1 && !this.past) {
      this.start = { kind: 'start', bytes: before + from, events: this.events, decoder: this.decoder };
    }
    if (from < chunk.length) this.validate(chunk, from);
    return this.content || this.size > MAX_PREAMBLE;
  }

  private decode(bytes: Buffer): string {
    try {
      return this.utf8.decode(bytes);
    } catch (err) {
      throw errors.integrity('the event stream is not valid UTF-8', err);
    }
  }

  /**
   * The rest of the chunk after the first content frame (which ended in LF: no character is cut
   * there) is UTF-8 as the streaming decoder would have found it: whole sequences, then at most a
   * sequence the next chunk finishes, which the decoder itself reads (it refuses a wrong start).
   */
  private validate(chunk: Buffer, from: number): void {
    const whole = wholeSequencesEnd(chunk, from);
    if (!isUtf8(chunk.subarray(from, whole))) throw errors.integrity('the event stream is not valid UTF-8', undefined);
    if (whole < chunk.length) this.decode(chunk.subarray(whole));
  }

  handOff(): CheckedStart | undefined {
    return this.start;
  }

  /**
   * After a start handed off, the chunks as they came (no copy: sse-decode outputs nothing before
   * the chunk the start ends in); else in one piece, since each chunk sse-decode reads costs a write
   * to the client, more than the copy of a preamble.
   */
  held(): Buffer[] {
    return this.start !== undefined || this.chunks.length <= 1 ? this.chunks : [Buffer.concat(this.chunks, this.size)];
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
 * A JSON answer is read whole: its chunks are joined once, here, and that Buffer is what the failover
 * loop hands on (`holdBack`), so that sse-decode knows it for the very bytes decoded here and takes
 * their text and events (`handOff`) instead of joining and decoding them again.
 */
class JsonCheck implements AnswerCheck {
  private readonly chunks: Buffer[] = [];
  private size = 0;
  private decoded: CheckedJson | undefined = undefined;

  constructor(private readonly decoder: UpstreamDecoder) {}

  feed(chunk: Buffer): boolean {
    this.size += chunk.length;
    if (this.size > MAX_JSON_ANSWER) throw errors.integrity(`the response body exceeds ${MAX_JSON_ANSWER} bytes`, undefined);
    this.chunks.push(chunk);
    return false;
  }

  end(): void {
    const bytes = this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks, this.size);
    let body: string;
    // an ASCII body is the same text read as latin1, and has nothing for the UTF-8 check to refuse
    if (isAscii(bytes)) body = bytes.toString('latin1');
    else {
      try {
        body = UTF8.decode(bytes);
      } catch (err) {
        throw errors.integrity('the response body is not valid UTF-8', err);
      }
    }
    const events = this.decoder.json(body);
    contentIn(events);
    this.decoded = { kind: 'json', bytes, body, events };
  }

  handOff(): CheckedJson | undefined {
    return this.decoded;
  }

  /** the chunks as the check joined them (sse-decode takes their text from the check) */
  held(): Buffer[] {
    return [this.decoded!.bytes];
  }
}

/** The check for the answer of `upstream` (its dialect's decoder, fresh); undefined when it has none. */
export function answerCheck(upstream: Upstream): AnswerCheck | undefined {
  const dialect = upstreamDialect(upstream);
  const factory = dialect === undefined ? undefined : upstreamDecoders[dialect];
  if (factory === undefined) return undefined;
  return upstream.stream ? new StreamCheck(factory()) : new JsonCheck(factory());
}

/**
 * Read `body` until `check` says the answer began well, or until it ended: what was read, as it goes
 * on (`held`; empty for nothing). Throws the body's failure (a reset, the idle timeout, an abort) or
 * the check's, after stopping the call.
 */
export async function holdBack(body: AsyncIterableIterator<Buffer>, check: AnswerCheck): Promise<Buffer[]> {
  try {
    for (;;) {
      // the chunks the body queued already are taken as they are (fused-drive.ts `Pulled`), not one turn each
      const pulled = body instanceof ChunkQueue ? body.pull() : body.next();
      const r = isReady(pulled) ? pulled : await pulled;
      if (r.done === true) {
        check.end();
        break;
      }
      if (check.feed(r.value)) break;
    }
  } catch (err) {
    body.return?.().catch(() => undefined);
    throw err;
  }
  return check.held();
}
