// The frame that makes up nearly all of a Chat Completions stream, recognised by its exact layout and
// decoded without the general parser (as the Messages `text_delta` frame is: ../anthropic/text-delta.ts):
//
//   {"id":<s>,"object":"chat.completion.chunk","created":<digits>,"model":<s>,["service_tier":<s>,]
//    ["system_fingerprint":<s>|null,]"choices":[{"index":0,"delta":{"content":<s>},["logprobs":null,]
//    "finish_reason":null}][,"usage":null][,"obfuscation":<s>]}
//
// (OpenAI's own layout, and that of the servers that copy it), with no whitespace and nothing else.
// Such a frame has no duplicate key and no number out of range, so the object built here is the one
// the strict parser would build (same keys, same order, same values). Anything else, a near miss
// included, returns null and takes the general path. The span of the `model` value comes with it,
// so a same-dialect client's copy can get its model name without re-serialising the frame.
import type { JsonObject, NativeFrame } from '../../chunks.js';

/**
 * a JSON string's body: characters other than a quote, a backslash or a control character, and valid
 * escapes, written as an unrolled loop (runs of plain characters between escapes), which V8 matches
 * several times faster than an alternation tried at every character
 */
const S = '([^"\\\\\\u0000-\\u001f]*(?:\\\\(?:["\\\\/bfnrt]|u[0-9a-fA-F]{4})[^"\\\\\\u0000-\\u001f]*)*)';

/** the end of the frame, from just after its content string's opening quote */
const TAIL_SOURCE = `${S}"\\},("logprobs":null,)?"finish_reason":null\\}\\](,"usage":null)?(?:,"obfuscation":"${S}")?\\}$`;

const FRAME = new RegExp(
  `^\\{"id":"${S}","object":"chat\\.completion\\.chunk","created":(0|[1-9]\\d{0,14}),"model":"${S}",` +
    `(?:"service_tier":"${S}",)?(?:"system_fingerprint":(?:"${S}"|(null)),)?` +
    `"choices":\\[\\{"index":0,"delta":\\{"content":"${TAIL_SOURCE}`,
);

/** the frame's end alone, matched from where its content string begins (sticky: no slice) */
const TAIL = new RegExp(TAIL_SOURCE, 'y');

/** longer frames take the general path (keeps the expression's backtracking stack small) */
const MAX_FRAME = 64 * 1024;

const MODEL_AT = '{"id":"'.length;
const MODEL_AFTER_ID = '","object":"chat.completion.chunk","created":'.length;
const MODEL_KEY = ',"model":'.length;
const TIER = '"service_tier":"",'.length;
const FINGERPRINT = '"system_fingerprint":"",'.length;
const FINGERPRINT_NULL = '"system_fingerprint":null,'.length;


/** A content frame in its recognised layout (ContentChunk). */
export interface ChunkLayout {
  readonly parsed: JsonObject;
  /** where the `model` value (with its quotes) lies in the frame */
  readonly modelSpan: [number, number];
  /** the delta's content (as in `parsed`) */
  readonly content: string;
}

function text(raw: string): string {
  // escapes are decoded by JSON.parse, as the strict parser decodes them
  return raw.indexOf('\\') < 0 ? raw : (JSON.parse(`"${raw}"`) as string);
}

/** The members before `choices` of a recognised frame, decoded, and the text they were read from. */
export interface ChunkHead {
  /** the frame's text up to its content string's opening quote */
  prefix: string;
  id: string;
  created: number;
  model: string;
  tier: string | undefined;
  /** undefined: no member; null: `null` */
  fingerprint: string | null | undefined;
  modelSpan: [number, number];
}

/**
 * The object the strict parser builds, member by member in the frame's order. OpenAI's own layouts
 * (a service tier and a fingerprint, `usage: null` as the gateway asks for usage; with or without
 * `obfuscation`) are one literal each: all members in the object itself, not added one by one
 * (which grows a separate property store per frame).
 */
function build(h: ChunkHead, content: string, logprobs: boolean, usage: boolean, obfuscation: string | undefined): JsonObject {
  const choice: JsonObject = logprobs ? { index: 0, delta: { content }, logprobs: null, finish_reason: null } : { index: 0, delta: { content }, finish_reason: null };
  const choices = [choice];
  if (usage && h.tier !== undefined && h.fingerprint !== undefined) {
    return obfuscation === undefined
      ? { id: h.id, object: 'chat.completion.chunk', created: h.created, model: h.model, service_tier: h.tier, system_fingerprint: h.fingerprint, choices, usage: null }
      : { id: h.id, object: 'chat.completion.chunk', created: h.created, model: h.model, service_tier: h.tier, system_fingerprint: h.fingerprint, choices, usage: null, obfuscation };
  }
  const parsed: JsonObject = { id: h.id, object: 'chat.completion.chunk', created: h.created, model: h.model };
  if (h.tier !== undefined) parsed.service_tier = h.tier;
  if (h.fingerprint !== undefined) parsed.system_fingerprint = h.fingerprint;
  parsed.choices = choices;
  if (usage) parsed.usage = null;
  if (obfuscation !== undefined) parsed.obfuscation = obfuscation;
  return parsed;
}

/**
 * A recognised content frame: what it says, and the native frame of its events (lib/chunks.ts) in
 * one object. The object the strict parser builds (`parsed`) is built the first time it is read:
 * a stream's content frames go through to a Chat client, or are translated, from `content` and the
 * head alone, so most are never asked for it (four objects a frame fewer). Nothing reads it from a
 * copy: a spread copy (replay's re-encoding) has no `parsed` and is re-encoded from its events.
 */
export class ContentChunk implements NativeFrame, ChunkLayout {
  readonly dialect = 'openai-chat' as const;
  readonly event = 'chunk';
  readonly modelSpan: [number, number];
  through: 'frame' | 'usage' | undefined = undefined;
  private built: JsonObject | undefined = undefined;

  constructor(
    readonly data: string,
    readonly head: ChunkHead,
    readonly content: string,
    private readonly withLogprobs: boolean,
    private readonly withUsage: boolean,
    private readonly obfuscation: string | undefined,
  ) {
    this.modelSpan = head.modelSpan;
  }

  get parsed(): JsonObject {
    return (this.built ??= build(this.head, this.content, this.withLogprobs, this.withUsage, this.obfuscation));
  }

  /** the top-level `model` value (as in `parsed`) */
  get model(): string {
    return this.head.model;
  }
}

/**
 * the text FRAME requires between the head and the content string: a frame without it (a stream's
 * first, finish and usage frames) cannot match, and is told so by one search, not by the expression
 * failing after matching the whole head
 */
const CONTENT_KEY = '"choices":[{"index":0,"delta":{"content":"';

/** The frame in full, or null. */
function readFrame(data: string): ContentChunk | null {
  if (data.length > MAX_FRAME || data.indexOf(CONTENT_KEY) < 0) return null;
  const m = FRAME.exec(data);
  if (m === null) return null;
  const id = m[1]!;
  const created = m[2]!;
  const model = m[3]!;
  const tier = m[4];
  const fingerprint = m[5];
  const fingerprintNull = m[6];
  const obfuscation = m[10];
  const start = MODEL_AT + id.length + MODEL_AFTER_ID + created.length + MODEL_KEY;
  const modelSpan: [number, number] = [start, start + model.length + 2];
  const prefixLength =
    modelSpan[1] + 1 + (tier === undefined ? 0 : TIER + tier.length) +
    (fingerprint !== undefined ? FINGERPRINT + fingerprint.length : fingerprintNull !== undefined ? FINGERPRINT_NULL : 0) + CONTENT_KEY.length;
  const head: ChunkHead = {
    prefix: data.slice(0, prefixLength),
    id: text(id),
    created: Number(created),
    model: text(model),
    tier: tier === undefined ? undefined : text(tier),
    fingerprint: fingerprint !== undefined ? text(fingerprint) : fingerprintNull !== undefined ? null : undefined,
    modelSpan,
  };
  return new ContentChunk(data, head, text(m[7]!), m[8] !== undefined, m[9] !== undefined, obfuscation === undefined ? undefined : text(obfuscation));
}

export function parseChunkLayout(data: string): ContentChunk | null {
  return readFrame(data);
}

/**
 * The content frames of one stream (one reader per upstream response). Every chunk of a stream
 * begins with the same members (id, created, model, service tier, fingerprint), so once a frame was
 * recognised in full, a frame that begins with the very same text up to its content string needs
 * only the rest matched (TAIL, the expression's end) and its head is the one already decoded.
 * Exactly as strict as parseChunkLayout: the expression is that text's part followed by TAIL's, so
 * a frame that begins with text the first part matched is recognised when, and only when, the rest
 * matches TAIL (the head's strings end at their first unescaped quote: no other split of that text
 * exists); any other frame takes the whole expression (and then the general path), as before.
 */
export class ChunkLayoutReader {
  private head: ChunkHead | undefined = undefined;

  read(data: string): ContentChunk | null {
    const h = this.head;
    // (a slice compared is several times faster than startsWith on the sliced strings a stream's frames are)
    if (h !== undefined && data.length <= MAX_FRAME && data.slice(0, h.prefix.length) === h.prefix) {
      TAIL.lastIndex = h.prefix.length;
      // FRAME is that head's text then TAIL: it would fail too
      return TAIL.test(data) ? tailFrame(data, h) : null;
    }
    const r = readFrame(data);
    if (r === null) return null;
    this.head = r.head;
    return r;
  }
}

const OBFUSCATION_KEY = ',"obfuscation":"';
const USAGE_NULL = ',"usage":null'.length;
const FINISH = '"finish_reason":null}]'.length;
const LOGPROBS = '"logprobs":null,'.length;
const CONTENT_END = '"},'.length;

/**
 * A frame TAIL matched after its head (`test`, not `exec`: no match array and capture strings per
 * frame): its optional members are told apart from its end, where TAIL leaves them distinct. The
 * last character before the closing brace is a quote only after `obfuscation`'s string (whose key,
 * quotes and all, cannot lie inside a JSON string's body: the last one found is the member's), the
 * `l` of `null` only after `"usage":null`, and a `l` just before `"finish_reason"`'s comma only
 * after `"logprobs":null`; what is left before `"},` is the content string's body.
 */
function tailFrame(data: string, head: ChunkHead): ContentChunk {
  let end = data.length - 1;
  let obfuscation: string | undefined;
  if (data.charCodeAt(end - 1) === 0x22) {
    const at = data.lastIndexOf(OBFUSCATION_KEY, end);
    obfuscation = text(data.slice(at + OBFUSCATION_KEY.length, end - 1));
    end = at;
  }
  const usage = data.charCodeAt(end - 1) === 0x6c;
  if (usage) end -= USAGE_NULL;
  end -= FINISH;
  const logprobs = data.charCodeAt(end - 2) === 0x6c;
  if (logprobs) end -= LOGPROBS;
  return new ContentChunk(data, head, text(data.slice(head.prefix.length, end - CONTENT_END)), logprobs, usage, obfuscation);
}
