// The frame that makes up nearly all of a Responses stream, recognised by its exact layout and
// decoded without the general parser (as the Messages `text_delta` frame is: ../anthropic/text-delta.ts):
//
//   {"type":"response.output_text.delta","sequence_number":<digits>,"item_id":<s>,"output_index":<digits>,
//    "content_index":<digits>,"delta":<s>,"logprobs":[][,"obfuscation":<s>]}
//
// with no whitespace and nothing else. Such a frame has no duplicate key and no number out of range,
// so the object built here is the one the strict parser would build (same keys, same order, same
// values). Anything else, a near miss included, returns null and takes the general path. Where
// `"delta":"…","logprobs":[]` lies comes with it: a Responses client's copy keeps those bytes (the
// members before them are numbered and named by the gateway: client-encode-writer.ts; OpenAI's
// `obfuscation` padding is left out, as the re-encoder always did: the gateway does not forward the
// client's `stream_options.include_obfuscation`).
import type { JsonObject, NativeFrame } from '../../chunks.js';

/**
 * a JSON string's body: characters other than a quote, a backslash or a control character, and valid
 * escapes, written as an unrolled loop (runs of plain characters between escapes), which V8 matches
 * several times faster than an alternation tried at every character
 */
const S = '([^"\\\\\\u0000-\\u001f]*(?:\\\\(?:["\\\\/bfnrt]|u[0-9a-fA-F]{4})[^"\\\\\\u0000-\\u001f]*)*)';
const N = '(0|[1-9]\\d{0,14})';

const FRAME = new RegExp(
  `^\\{"type":"response\\.output_text\\.delta","sequence_number":${N},"item_id":"${S}","output_index":${N},` +
    `"content_index":${N},"delta":"${S}","logprobs":\\[\\](?:,"obfuscation":"${S}")?\\}$`,
);

/**
 * The same layout without captures: `test` builds no match array and no substrings. A frame that
 * passes it and has no backslash has no quote inside its strings, so each member ends at the first
 * quote or comma after it, found with indexOf (`fromLayout`); a frame with a backslash is taken
 * apart by FRAME's captures.
 */
const LAYOUT = new RegExp(FRAME.source.replace(/\((?!\?)/g, '(?:'));

/**
 * The same layout with strings that hold no escape (the common frame): a frame that passes it has
 * no backslash at all, so it is taken apart at its delimiters without scanning it for one first
 */
const PLAIN = new RegExp(LAYOUT.source.replaceAll(`(?:${S.slice(1, -1)})`, '(?:[^"\\\\\\u0000-\\u001f]*)'));

/** longer frames take the general path (keeps the expression's backtracking stack small) */
const MAX_FRAME = 64 * 1024;

const BEFORE_ITEM = '{"type":"response.output_text.delta","sequence_number":'.length + ',"item_id":"'.length;
const BEFORE_DELTA = '","output_index":'.length + ',"content_index":'.length + 1;
const DELTA_KEY = '"delta":"'.length;
const AFTER_DELTA = '","logprobs":[]'.length;

function text(raw: string): string {
  // escapes are decoded by JSON.parse, as the strict parser decodes them
  return raw.indexOf('\\') < 0 ? raw : (JSON.parse(`"${raw}"`) as string);
}

const PREFIX = '{"type":"response.output_text.delta","sequence_number":'.length;
const ITEM_KEY = ',"item_id":"'.length;
const OUT_KEY = '","output_index":'.length;
const CONTENT_KEY = ',"content_index":'.length;
const OBFUSCATION_KEY = ',"obfuscation":"'.length;

/**
 * A delta frame in its recognised layout, which is also its events' native frame (events.ts): the
 * numbers and the delta text the decoder reads, and the object the strict parser would build made
 * only if something reads `parsed` (the decoder and a Responses client's encoder never do), as the
 * Chat content frame is (../openai-chat/chunk-layout.ts).
 */
export class DeltaFrame implements NativeFrame {
  readonly dialect = 'openai-responses' as const;
  readonly event = 'response.output_text.delta';
  /** 'frame' at content index 0: a Responses client gets its `kept` bytes (client-encode-items.ts) */
  readonly through: 'frame' | undefined;
  private built: JsonObject | undefined = undefined;

  constructor(
    readonly data: string,
    readonly sequenceNumber: number,
    /** where the item id's string body lies */
    private readonly itemFrom: number,
    private readonly itemEnd: number,
    readonly outputIndex: number,
    readonly contentIndex: number,
    /** the delta, decoded */
    readonly delta: string,
    /** where `"delta":"…","logprobs":[]` lies in the frame (numbers: no array made per delta) */
    readonly keptFrom: number,
    readonly keptEnd: number,
  ) {
    this.through = contentIndex === 0 ? 'frame' : undefined;
  }

  /** where `"delta":"…","logprobs":[]` lies in the frame (NativeFrame's `kept`) */
  get kept(): [number, number] {
    return [this.keptFrom, this.keptEnd];
  }

  get parsed(): JsonObject {
    return (this.built ??= this.build());
  }

  private build(): JsonObject {
    const data = this.data;
    const parsed: JsonObject = {
      type: 'response.output_text.delta',
      sequence_number: this.sequenceNumber,
      item_id: text(data.slice(this.itemFrom, this.itemEnd)),
      output_index: this.outputIndex,
      content_index: this.contentIndex,
      delta: this.delta,
      logprobs: [],
    };
    // `,"obfuscation":"…"}` after the kept members, or only the closing brace
    const end = this.keptEnd;
    if (end + 1 < data.length) parsed.obfuscation = text(data.slice(end + OBFUSCATION_KEY, data.length - 2));
    return parsed;
  }
}

/** the digits data[from, to) (at most 15: exact in a double) */
function digits(data: string, from: number, to: number): number {
  let n = 0;
  for (let i = from; i < to; i++) n = n * 10 + data.charCodeAt(i) - 48;
  return n;
}

/** where the digits from `from` end (the layout has matched: 1 to 15 of them; a short loop costs less than indexOf) */
function digitsEnd(data: string, from: number): number {
  let i = from + 1;
  while (data.charCodeAt(i) !== 0x2c /* , */) i++;
  return i;
}

/** a frame in the layout with no backslash: its members at the delimiters that follow them */
function fromLayout(data: string): DeltaFrame {
  const seqEnd = digitsEnd(data, PREFIX);
  const itemFrom = seqEnd + ITEM_KEY;
  const itemEnd = data.indexOf('"', itemFrom);
  const outFrom = itemEnd + OUT_KEY;
  const outEnd = digitsEnd(data, outFrom);
  const contentFrom = outEnd + CONTENT_KEY;
  const contentEnd = digitsEnd(data, contentFrom);
  const deltaFrom = contentEnd + 1 + DELTA_KEY;
  const deltaEnd = data.indexOf('"', deltaFrom);
  return new DeltaFrame(
    data, digits(data, PREFIX, seqEnd), itemFrom, itemEnd, digits(data, outFrom, outEnd), digits(data, contentFrom, contentEnd),
    data.slice(deltaFrom, deltaEnd), contentEnd + 1, deltaEnd + AFTER_DELTA,
  );
}

export function parseDeltaLayout(data: string): DeltaFrame | null {
  if (data.length > MAX_FRAME) return null;
  if (PLAIN.test(data)) return fromLayout(data);
  if (!LAYOUT.test(data)) return null;
  const m = FRAME.exec(data)!;
  const [, seq, item, out, content, delta] = m as unknown as string[];
  const itemFrom = PREFIX + seq!.length + ITEM_KEY;
  const from = BEFORE_ITEM + seq!.length + item!.length + BEFORE_DELTA + out!.length + content!.length;
  return new DeltaFrame(data, Number(seq), itemFrom, itemFrom + item!.length, Number(out), Number(content), text(delta!), from, from + DELTA_KEY + delta!.length + AFTER_DELTA);
}
