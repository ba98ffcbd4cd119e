// One COMPLETE Responses output item → the canonical blocks it stands for (block-start carrying the
// whole block, its deltas, block-stop). Used for every item of a non-streaming Response, and in a
// stream for the items whose content only the `response.output_item.done` event holds (hosted
// tool calls, reasoning items that were not opened as thinking blocks).
//
// - `message` → one text block: its `output_text` texts and `refusal` texts, concatenated in order
//   (annotations are not carried); a message without text gives no block.
// - `function_call` → a tool-call block (id = `call_id`, name) and its `arguments` string as one
//   tool-input-delta, byte for byte.
// - `reasoning` with `encrypted_content` → a thinking block: text = the summary parts joined by
//   "\n\n", signature = the item's state (reasoning-state.ts). WITHOUT `encrypted_content` there is
//   no state the next turn could return and no signature for the thinking block: the item becomes
//   an opaque block (`{kind: 'opaque', value: item}`), which translators drop and a Responses client
//   may still render.
// - every other item (`web_search_call`, `code_interpreter_call`, `file_search_call`, …) → an
//   opaque block holding the item as the provider sent it. A completed `web_search_call` counts as
//   one web search in the usage.
// Each block-stop is marked `complete` when the item's status says it completed (`saysCompleted`):
// a function_call with status `incomplete` (cut by the limit) stays unmarked, and the integrity
// stage treats it as any upstream's last call at the limit.
import type { CanonicalEvent, JsonObject, JsonValue, NativeFrame } from '../../chunks.js';
import { thinkingFromItem } from '../../translate/reasoning-state.js';
import { integrityError, isObject, optionalString, requireString } from './wire.js';

/** What the finished message needs from the items seen. */
export interface Tally {
  toolCalls: boolean;
  webSearches: number;
}

/** The text of a message item: its output_text and refusal parts, concatenated. */
export function messageText(item: JsonObject, where: string): string {
  const content = item.content;
  if (content === undefined || content === null) return '';
  if (!Array.isArray(content)) throw integrityError(`${where}.content must be an array`);
  let text = '';
  for (let i = 0; i < content.length; i++) {
    const part = content[i];
    if (!isObject(part)) throw integrityError(`${where}.content[${i}] must be an object`);
    if (part.type === 'output_text') text += optionalString(part, 'text', `${where}.content[${i}]`) ?? '';
    else if (part.type === 'refusal') text += optionalString(part, 'refusal', `${where}.content[${i}]`) ?? '';
  }
  return text;
}

/** `encrypted_content` of a reasoning item; undefined when absent, null or empty. */
export function encryptedOf(item: JsonObject, where: string): string | undefined {
  const value = optionalString(item, 'encrypted_content', where);
  return value === '' ? undefined : value;
}

/**
 * `true` when a done item says itself it completed: status `completed`, or none given (its done
 * event alone says so). A done item with status `incomplete` is one the token limit cut. The mark
 * of its block-stop (chunks.ts `complete`), read by stages/integrity.ts.
 */
export function saysCompleted(item: JsonObject): true | undefined {
  const status = item.status;
  return status === undefined || status === null || status === 'completed' ? true : undefined;
}

function countSearch(item: JsonObject, tally: Tally): void {
  if (item.type === 'web_search_call' && item.status === 'completed') tally.webSearches++;
}

/** Appends the events of one complete item at block `index`; returns the next free block index. */
export function completeItemEvents(
  item: JsonValue | undefined, index: number, native: NativeFrame, where: string, tally: Tally, out: CanonicalEvent[],
): number {
  if (!isObject(item)) throw integrityError(`${where} must be an object`);
  switch (item.type) {
    case 'message': {
      const text = messageText(item, where);
      if (text === '') return index;
      out.push({ type: 'block-start', index, block: { kind: 'text', text }, native });
      break;
    }
    case 'function_call': {
      const id = requireString(item, 'call_id', where);
      const name = requireString(item, 'name', where);
      const args = optionalString(item, 'arguments', where) ?? '';
      out.push({ type: 'block-start', index, block: { kind: 'tool-call', id, name, input: null }, native });
      if (args !== '') out.push({ type: 'tool-input-delta', index, json: args, native });
      tally.toolCalls = true;
      break;
    }
    case 'reasoning': {
      const encrypted = encryptedOf(item, where);
      if (encrypted === undefined) {
        out.push({ type: 'block-start', index, block: { kind: 'opaque', value: item }, native });
        break;
      }
      const { thinking, signature } = thinkingFromItem(requireString(item, 'id', where), encrypted, item.summary);
      out.push({ type: 'block-start', index, block: { kind: 'thinking', thinking, signature }, native });
      break;
    }
    default:
      if (typeof item.type !== 'string') throw integrityError(`${where}.type must be a string`);
      countSearch(item, tally);
      out.push({ type: 'block-start', index, block: { kind: 'opaque', value: item }, native });
  }
  out.push({ type: 'block-stop', index, native, complete: saysCompleted(item) });
  return index + 1;
}
