// A non-streaming Chat answer from a Chat upstream, written to the Chat client as the upstream's text
// (the native path, as through.ts is for streams) instead of being re-encoded from its canonical
// events by encode-json.ts: the answer's content is not escaped and serialised a second time (on a
// 20 KB answer, ~3 µs instead of ~20 µs). It goes through when what the re-encoder would write says
// the same thing: a plain text answer, i.e.
// - `object: "chat.completion"`, no member named `gateway` (the gateway's own);
// - its one choice has index 0, only keys the re-encoder knows (`logprobs` only null: the gateway
//   never asks for them; Azure's `content_filter_results` pass as they are) and the finish_reason
//   the re-encoder would write;
// - its message is `role: "assistant"` with a string `content` and, besides, only a null `refusal`,
//   empty `annotations` and null `tool_calls` (a refusal becomes content, reasoning becomes
//   `reasoning` + `reasoning_details`, tool calls get checked arguments: all of those are re-encoded).
// Then the client gets every member the re-encoder writes, with its value: what the gateway owns is
// spliced into the text as whole members (`"key":value`): `created` (the gateway's clock), `model`
// (the model the client is served as, decisions §2), `usage` (the validated tokens and the cost
// settle charges) and the `gateway` object, added last; the re-encoder's null members the upstream
// left out (`logprobs`; `refusal`, `tool_calls`, `reasoning`, `reasoning_details`) are added. The
// rest is the upstream's: its member order and spacing, and the members the re-encoder never wrote
// (`service_tier`, `system_fingerprint`, `annotations: []`, Azure's filter results).
import type { JsonObject, JsonValue, NativeFrame, StopReason } from '../../chunks.js';
import { MemberEdits } from '../../json/member-edits.js';
import { memberSpans } from '../../json/member-spans.js';
import { finishReason } from './client.js';
import { completionPlaces, type CompletionPlaces } from './completion-layout.js';
import { isObject } from './wire.js';

const CHOICE_KEYS: ReadonlySet<string> = new Set(['index', 'message', 'finish_reason', 'logprobs', 'content_filter_results']);
const MESSAGE_KEYS: ReadonlySet<string> = new Set(['role', 'content', 'refusal', 'annotations', 'tool_calls']);
/** where the message lies: choices[0].message */
const PATH = ['choices', 'message'] as const;
/** the null members of the re-encoder's message, in its order */
const MESSAGE_NULLS = ['refusal', 'tool_calls', 'reasoning', 'reasoning_details'] as const;

/** What the gateway writes in place of the upstream's. */
export interface CompletionChanges {
  /** Unix seconds */
  created: number;
  model: string;
  usage: JsonObject;
  gateway: JsonObject;
}

const nullish = (v: JsonValue | undefined): boolean => v === undefined || v === null;

function knownKeys(o: JsonObject, keys: ReadonlySet<string>): boolean {
  for (const k in o) if (!keys.has(k)) return false;
  return true;
}

/** The answer's shape says the same as the re-encoder's `chat.completion` for stop reason `stop`. */
function plainCompletion(completion: JsonObject, stop: StopReason | null): boolean {
  if (completion.object !== 'chat.completion' || Object.hasOwn(completion, 'gateway')) return false;
  const choices = completion.choices;
  if (!Array.isArray(choices) || choices.length !== 1) return false;
  const choice = choices[0]!;
  if (!isObject(choice) || !knownKeys(choice, CHOICE_KEYS) || choice.index !== 0 || !nullish(choice.logprobs)) return false;
  if (choice.finish_reason !== finishReason(stop)) return false;
  const message = choice.message;
  if (!isObject(message) || !knownKeys(message, MESSAGE_KEYS)) return false;
  if (message.role !== 'assistant' || typeof message.content !== 'string') return false;
  if (!nullish(message.refusal) || !nullish(message.tool_calls)) return false;
  const annotations = message.annotations;
  return annotations === undefined || (Array.isArray(annotations) && annotations.length === 0);
}

/** The places the edits are made at: by text in a recognised layout, else by a scan of the whole answer. */
function places(native: NativeFrame): CompletionPlaces | null {
  const text = native.data;
  if (native.modelSpan !== undefined) return completionPlaces(text, native.modelSpan);
  const top = memberSpans(text, 0, PATH);
  const choice = top?.inner;
  const message = choice?.inner;
  return top == null || choice === undefined || message === undefined ? null : { top, choice, message };
}

/** The upstream's answer `native` with the gateway's changes, when it may go through; null to re-encode. */
export function throughCompletion(native: NativeFrame, stop: StopReason | null, changes: CompletionChanges): string | null {
  const completion = native.parsed;
  if (!plainCompletion(completion, stop)) return null;
  const at = places(native);
  if (at === null) return null;
  const { top, choice, message } = at;
  // which members the choice and its message have: the parsed answer's (its text holds no duplicate key)
  const parsedChoice = (completion.choices as JsonObject[])[0]!;
  const parsedMessage = parsedChoice.message as JsonObject;
  const edits = new MemberEdits();
  edits.set(top, 'created', String(changes.created));
  edits.set(top, 'model', JSON.stringify(changes.model));
  edits.set(top, 'usage', JSON.stringify(changes.usage));
  edits.add(top, 'gateway', JSON.stringify(changes.gateway));
  if (!Object.hasOwn(parsedChoice, 'logprobs')) edits.add(choice, 'logprobs', 'null');
  for (const key of MESSAGE_NULLS) if (!Object.hasOwn(parsedMessage, key)) edits.add(message, key, 'null');
  return edits.apply(native.data, top);
}
