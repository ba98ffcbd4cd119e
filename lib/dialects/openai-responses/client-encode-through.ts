// A Responses upstream's message item written through (client-encode-items.ts): when the block
// closes at the upstream's own `output_item.done`, recognised by its layout (frame-layouts.ts, marked
// `through`, its text's place in `kept`), and that item's text is the text the client was sent (and
// the gateway added no annotation: citations), the message's three done events and its item in the
// final Response carry the upstream's text bytes instead of the text serialised again. The members
// around them are the gateway's (its item id and output index) in the very layout the encoder
// serialises, so only how the text is escaped may differ.
import type { JsonObject, NativeFrame } from '../../chunks.js';
import { asArray, isObject } from '../../json/values.js';

/** The upstream's text as JSON text, when the done events may carry it; else undefined. */
export function throughText(text: string, annotations: readonly JsonObject[], native: NativeFrame | undefined): string | undefined {
  if (native?.through === undefined || native.dialect !== 'openai-responses' || native.event !== 'response.output_item.done') return undefined;
  const kept = native.kept;
  if (kept === undefined || annotations.length > 0) return undefined;
  const item = native.parsed.item;
  const part = isObject(item) ? asArray(item.content)[0] : undefined;
  return isObject(part) && part.text === text ? native.data.slice(kept[0], kept[1]) : undefined;
}

export interface DoneFrames {
  /** the members of output_text.done and content_part.done after the sequence number, closing brace included */
  textDone: string;
  partDone: string;
  /** the completed message item, as JSON */
  item: string;
}

const textPart = (text: string): string => `{"type":"output_text","annotations":[],"logprobs":[],"text":${text}}`;

/** The completed message item `idJson` (JSON text) with text `text` (JSON text), as JSON. */
export function messageItem(idJson: string, text: string): string {
  return `{"id":${idJson},"type":"message","status":"completed","content":[${textPart(text)}],"role":"assistant"}`;
}

/** The done events of message `idJson` (JSON text) at output index `out`, with text `text` (JSON text). */
export function doneFrames(idJson: string, out: number, text: string): DoneFrames {
  const at = `"item_id":${idJson},"output_index":${out},"content_index":0`;
  return {
    textDone: `${at},"text":${text},"logprobs":[]}`,
    partDone: `${at},"part":${textPart(text)}}`,
    item: messageItem(idJson, text),
  };
}
