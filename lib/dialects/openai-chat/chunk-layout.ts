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
import type { JsonObject } from '../../chunks.js';

/**
 * a JSON string's body: characters other than a quote, a backslash or a control character, and valid
 * escapes, written as an unrolled loop (runs of plain characters between escapes), which V8 matches
 * several times faster than an alternation tried at every character
 */
const S = '([^"\\\\\\u0000-\\u001f]*(?:\\\\(?:["\\\\/bfnrt]|u[0-9a-fA-F]{4})[^"\\\\\\u0000-\\u001f]*)*)';

const FRAME = new RegExp(
  `^\\{"id":"${S}","object":"chat\\.completion\\.chunk","created":(0|[1-9]\\d{0,14}),"model":"${S}",` +
    `(?:"service_tier":"${S}",)?(?:"system_fingerprint":(?:"${S}"|(null)),)?` +
    `"choices":\\[\\{"index":0,"delta":\\{"content":"${S}"\\},("logprobs":null,)?"finish_reason":null\\}\\]` +
    `(,"usage":null)?(?:,"obfuscation":"${S}")?\\}$`,
);

/** longer frames take the general path (keeps the expression's backtracking stack small) */
const MAX_FRAME = 64 * 1024;

const MODEL_AT = '{"id":"'.length;
const MODEL_AFTER_ID = '","object":"chat.completion.chunk","created":'.length;
const MODEL_KEY = ',"model":'.length;

export interface ChunkLayout {
  parsed: JsonObject;
  /** where the `model` value (with its quotes) lies in the frame */
  modelSpan: [number, number];
}

function text(raw: string): string {
  // escapes are decoded by JSON.parse, as the strict parser decodes them
  return raw.indexOf('\\') < 0 ? raw : (JSON.parse(`"${raw}"`) as string);
}

export function parseChunkLayout(data: string): ChunkLayout | null {
  if (data.length > MAX_FRAME) return null;
  const m = FRAME.exec(data);
  if (m === null) return null;
  const [, id, created, model, tier, fingerprint, fingerprintNull, content, logprobs, usage, obfuscation] = m as unknown as (string | undefined)[];
  const parsed: JsonObject = { id: text(id!), object: 'chat.completion.chunk', created: Number(created), model: text(model!) };
  if (tier !== undefined) parsed.service_tier = text(tier);
  if (fingerprint !== undefined) parsed.system_fingerprint = text(fingerprint);
  else if (fingerprintNull !== undefined) parsed.system_fingerprint = null;
  const choice: JsonObject = { index: 0, delta: { content: text(content!) } };
  if (logprobs !== undefined) choice.logprobs = null;
  choice.finish_reason = null;
  parsed.choices = [choice];
  if (usage !== undefined) parsed.usage = null;
  if (obfuscation !== undefined) parsed.obfuscation = text(obfuscation);
  const start = MODEL_AT + id!.length + MODEL_AFTER_ID + created!.length + MODEL_KEY;
  return { parsed, modelSpan: [start, start + model!.length + 2] };
}
