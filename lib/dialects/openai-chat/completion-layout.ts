// A whole (non-streamed) `chat.completion` answer recognised by its exact layout (lib/json/layout.ts),
// as the stream's frames are (frame-layouts.ts): a plain text answer written compactly in OpenAI's
// member order (what vLLM, SGLang and other OpenAI-compatible servers write, and the bench's upstream).
// It is parsed exactly as strictly as the strict parser parses it (any other layout, a near miss or
// OpenAI's own indented text included, takes JSON.parse and its checks), in about a third of the
// time, and the places the native answer is edited at (through-json.ts) are then found by text
// instead of by a scan of every member.
import type { JsonObject } from '../../chunks.js';
import { COUNTS, compileLayout, INT, optional, spanned, STRING, STRING_OR_NULL, type Layout, type Template } from '../../json/layout.js';
import { MemberSpans, valueEnd } from '../../json/member-spans.js';
import { OPENAI_USAGE } from './frame-layouts.js';

const CHOICES: Template = [{ index: INT, message: { role: 'assistant', content: STRING, refusal: optional(null), annotations: optional([]) }, logprobs: optional(null), finish_reason: STRING }];
const completion = (usage: Template): Layout =>
  compileLayout({ id: STRING, object: 'chat.completion', created: INT, model: spanned('model'), choices: CHOICES, usage, service_tier: optional(STRING), system_fingerprint: optional(STRING_OR_NULL) });
/** OpenAI's usage object, then any other of plain counts (slower to read) */
const [OPENAI_COMPLETION, COMPLETION] = [completion(OPENAI_USAGE), completion(COUNTS)];

export interface RecognisedCompletion {
  parsed: JsonObject;
  /** where the `model` value (with its quotes) lies */
  modelSpan: [number, number];
}

/** The answer parsed, when its text is in the layout; null: the general parser's turn. */
export function recogniseCompletion(text: string): RecognisedCompletion | null {
  if (!text.startsWith('{"id":"')) return null;
  const r = OPENAI_COMPLETION(text) ?? COMPLETION(text);
  return r === null ? null : { parsed: r.parsed, modelSpan: r.spans.model! };
}

/** The objects an answer's edits are made in: the answer, its one choice and that choice's message. */
export interface CompletionPlaces {
  /** with the spans of `created`, `model` and `usage` */
  top: MemberSpans;
  choice: MemberSpans;
  message: MemberSpans;
}

/**
 * The places in a text `recogniseCompletion` recognised (`modelSpan`, its model's). Found by text: in
 * it (no whitespace, members in the layout's order) no string can hold `,"created":`, `,"message":{`
 * or `}],"usage":` (every quote in one is escaped), so the first occurrence of each is the member
 * itself: `created` after the id and object, the choice's message, and the end of `choices`.
 */
export function completionPlaces(text: string, modelSpan: readonly [number, number]): CompletionPlaces | null {
  const top = new MemberSpans(text);
  const created = text.indexOf(',"created":') + 1; // its key's quote
  const usage = text.indexOf('}],"usage":'); // the choice's `}`
  const message = text.indexOf(',"message":{') + 11; // its `{`
  if (created === 0 || usage < 0 || message === 10) return null;
  const usageEnd = valueEnd(text, usage + 11);
  const messageEnd = messageEndOf(text, message, usage);
  if (usageEnd < 0 || messageEnd < 0) return null;
  top.push(created, created + 9, created + 10, text.indexOf(',', created + 10));
  top.push(modelSpan[0] - 8, modelSpan[0] - 1, modelSpan[0], modelSpan[1]);
  top.push(usage + 3, usage + 10, usage + 11, usageEnd);
  top.close = text.length - 1;
  const choice = new MemberSpans(text);
  choice.close = usage;
  const inner = new MemberSpans(text);
  inner.close = messageEnd - 1;
  return { top, choice, message: inner };
}

/** the member the layout has between the message and `finish_reason` when the upstream wrote it */
const LOGPROBS = ',"logprobs":null';

/**
 * Just past the message object that opens at `message`, by text: in the layout the message is
 * followed by `,"logprobs":null` (optional) and `,"finish_reason":"`, whose first occurrence after
 * the message's `{` is the member itself (no string in the layout holds `,"` unescaped), so the
 * message's `}` is found without walking its content character by character. Anything else (never
 * expected in a recognised text) takes that walk (`valueEnd`).
 */
function messageEndOf(text: string, message: number, usage: number): number {
  const finish = text.indexOf(',"finish_reason":"', message);
  if (finish > message && finish < usage) {
    const close = text.charCodeAt(finish - 1) === 0x7d ? finish - 1 : text.startsWith(LOGPROBS, finish - LOGPROBS.length) ? finish - LOGPROBS.length - 1 : -1;
    if (close > message && text.charCodeAt(close) === 0x7d) return close + 1;
  }
  return valueEnd(text, message);
}
