// Chat Completions `messages`: roles, content parts (text, image_url, input_audio, refusal),
// assistant tool calls and reasoning state, tool results bound to an earlier tool call id, and the
// client fields of client-fields.ts (`cache_control`, a tool message's `name`). One walk,
// no copy; the walk also tallies what routing and reservations need (text bytes, images, audio).
import type { JsonObject, JsonValue } from '../../chunks.js';
import { invalid } from '../../errors.js';
import { detailToAnthropicBlock, ANTHROPIC_REASONING_FORMAT } from '../../translate/reasoning-details.js';
import { arr, fields, jsonBytes, kind, obj, oneOf, rejectUnknown, shorten, str } from '../../validate/checks.js';
import { cacheControl } from '../../validate/cache-control.js';
import { given } from './validate-params.js';

/** What the walk over the request collects. */
export interface ChatScan {
  /** UTF-8 bytes of text-bearing JSON (image and audio data excluded) */
  bytes: number;
  images: number;
  /** decoded size of the audio parts */
  audioBytes: number;
  /** ids of the assistant tool calls seen so far */
  readonly toolCallIds: Set<string>;
  /** an assistant message replays model-bound (signed or encrypted) Anthropic reasoning */
  signedThinking: boolean;
}

export function newChatScan(): ChatScan {
  return { bytes: 0, images: 0, audioBytes: 0, toolCallIds: new Set(), signedThinking: false };
}

const ROLES = ['system', 'developer', 'user', 'assistant', 'tool'] as const;
const SYSTEM_FIELDS = fields('role', 'content', 'name', 'cache_control');
// `annotations`, `audio` and `function_call` are response-side fields of a returned message, and
// `parsed` (`parsed_arguments` on a call) what the `openai` SDK's parse and stream helpers add: a
// message sent back as history carries them; they are checked and not forwarded (decisions §10)
const ASSISTANT_FIELDS = fields('role', 'content', 'name', 'tool_calls', 'refusal', 'reasoning', 'reasoning_details', 'annotations', 'audio', 'function_call', 'parsed', 'cache_control');
const TOOL_FIELDS = fields('role', 'content', 'tool_call_id', 'name', 'cache_control');
// `extra_content`: the opaque object a Chat upstream put on the call (Gemini's thought signature,
// FAILURE-MODES F24), returned by the gateway and sent back unchanged to a Chat upstream only
const TOOL_CALL_FIELDS = fields('id', 'type', 'function', 'extra_content', 'cache_control');
/** a thought signature is a few KiB; the bound keeps an open object from carrying a payload */
const MAX_EXTRA_CONTENT_BYTES = 64 * 1024;
const FUNCTION_FIELDS = fields('name', 'arguments', 'parsed_arguments');
const TEXT_PART = fields('type', 'text', 'cache_control');
const REFUSAL_PART = fields('type', 'refusal');
const IMAGE_PART = fields('type', 'image_url', 'cache_control');
const IMAGE_URL = fields('url', 'detail');
const AUDIO_PART = fields('type', 'input_audio', 'cache_control');
const INPUT_AUDIO = fields('data', 'format');
const AUDIO_FORMATS = ['mp3', 'wav', 'm4a', 'webm', 'ogg', 'flac', 'opus'] as const;
const IMAGE_MIME = /^data:image\/(?:jpeg|png|gif|webp);base64,/;

type PartKind = 'text' | 'image_url' | 'input_audio' | 'refusal';
const USER_PARTS: readonly PartKind[] = ['text', 'image_url', 'input_audio'];
const TEXT_ONLY: readonly PartKind[] = ['text'];
const ASSISTANT_PARTS: readonly PartKind[] = ['text', 'refusal'];

/** Validate `messages`; returns the number of messages. */
export function validateMessages(v: JsonValue | undefined, scan: ChatScan): number {
  if (!given(v)) throw invalid('messages', 'required field is missing; send a non-empty array of messages');
  const list = arr(v, 'messages');
  if (list.length === 0) throw invalid('messages', 'must hold at least one message');
  for (let i = 0; i < list.length; i++) validateMessage(list[i], `messages[${i}]`, scan);
  return list.length;
}

function validateMessage(v: JsonValue | undefined, path: string, scan: ChatScan): void {
  const m = obj(v, path);
  const role = oneOf(m.role, `${path}.role`, ROLES);
  cacheControl(m.cache_control, `${path}.cache_control`); // client-fields.ts
  switch (role) {
    case 'system':
    case 'developer':
    case 'user':
      rejectUnknown(m, SYSTEM_FIELDS, path);
      if (given(m.name)) str(m.name, `${path}.name`);
      content(m.content, path, role === 'user' ? USER_PARTS : TEXT_ONLY, scan);
      return;
    case 'tool':
      rejectUnknown(m, TOOL_FIELDS, path);
      if (given(m.name)) str(m.name, `${path}.name`); // client-fields.ts
      toolCallId(m.tool_call_id, `${path}.tool_call_id`, scan);
      content(m.content, path, TEXT_ONLY, scan);
      return;
    case 'assistant':
      assistant(m, path, scan);
  }
}

function assistant(m: JsonObject, path: string, scan: ChatScan): void {
  rejectUnknown(m, ASSISTANT_FIELDS, path);
  if (given(m.name)) str(m.name, `${path}.name`);
  let calls = 0;
  if (given(m.tool_calls)) {
    const list = arr(m.tool_calls, `${path}.tool_calls`);
    for (let i = 0; i < list.length; i++) toolCall(list[i], `${path}.tool_calls[${i}]`, scan);
    calls = list.length;
  }
  const refusal = given(m.refusal) ? str(m.refusal, `${path}.refusal`) : undefined;
  if (refusal !== undefined) scan.bytes += Buffer.byteLength(refusal, 'utf8');
  if (given(m.content)) content(m.content, path, ASSISTANT_PARTS, scan);
  else if (calls === 0 && refusal === undefined) {
    throw invalid(`${path}.content`, `required on an assistant message without tool_calls, got ${kind(m.content)}`);
  }
  if (given(m.reasoning)) scan.bytes += Buffer.byteLength(str(m.reasoning, `${path}.reasoning`), 'utf8');
  if (given(m.reasoning_details)) reasoningDetails(m.reasoning_details, `${path}.reasoning_details`, scan);
  responseSide(m, path);
}

/** The returned message's own fields: open JSON the gateway drops, except what it never returns. */
function responseSide(m: JsonObject, path: string): void {
  if (given(m.annotations)) arr(m.annotations, `${path}.annotations`);
  // the gateway answers no audio and no legacy function_call: only their null round-trips
  if (given(m.audio)) throw invalid(`${path}.audio`, 'an assistant audio reference is not supported; send null or leave it out');
  if (given(m.function_call)) throw invalid(`${path}.function_call`, 'the legacy function_call is not supported; send tool_calls instead (null is accepted)');
}

function toolCall(v: JsonValue | undefined, path: string, scan: ChatScan): void {
  const call = obj(v, path);
  rejectUnknown(call, TOOL_CALL_FIELDS, path);
  cacheControl(call.cache_control, `${path}.cache_control`);
  const id = str(call.id, `${path}.id`, 1);
  oneOf(call.type, `${path}.type`, ['function']);
  const fn = obj(call.function, `${path}.function`);
  rejectUnknown(fn, FUNCTION_FIELDS, `${path}.function`);
  const name = str(fn.name, `${path}.function.name`, 1);
  const args = str(fn.arguments, `${path}.function.arguments`);
  if (given(call.extra_content)) {
    const size = jsonBytes(obj(call.extra_content, `${path}.extra_content`));
    if (size > MAX_EXTRA_CONTENT_BYTES) throw invalid(`${path}.extra_content`, `must be at most ${MAX_EXTRA_CONTENT_BYTES} bytes of JSON, got about ${size}`);
    scan.bytes += size;
  }
  scan.toolCallIds.add(id);
  scan.bytes += Buffer.byteLength(id, 'utf8') + Buffer.byteLength(name, 'utf8') + Buffer.byteLength(args, 'utf8') + 32;
}

function toolCallId(v: JsonValue | undefined, path: string, scan: ChatScan): void {
  const id = str(v, path, 1);
  if (!scan.toolCallIds.has(id)) {
    throw invalid(path, `"${shorten(id)}" does not match the id of a tool call in an earlier assistant message. Send the assistant message with its tool_calls before the tool results`);
  }
}

/** Reasoning details are open JSON passed back unmodified; Anthropic entries must be well formed. */
function reasoningDetails(v: JsonValue, path: string, scan: ChatScan): void {
  const list = arr(v, path);
  for (let i = 0; i < list.length; i++) {
    const detail = obj(list[i], `${path}[${i}]`);
    scan.bytes += jsonBytes(detail);
    if (detail.format !== ANTHROPIC_REASONING_FORMAT) continue;
    if (detailToAnthropicBlock(detail) === null) {
      throw invalid(`${path}[${i}]`, 'is not a reasoning detail this gateway returned: a "reasoning.text" entry needs string "text" and "signature", a "reasoning.encrypted" entry a string "data". Pass reasoning_details back unmodified');
    }
    scan.signedThinking = true;
  }
}

function content(v: JsonValue | undefined, path: string, allowed: readonly PartKind[], scan: ChatScan): void {
  const at = `${path}.content`;
  if (typeof v === 'string') {
    scan.bytes += Buffer.byteLength(v, 'utf8');
    return;
  }
  if (!Array.isArray(v)) throw invalid(at, v === undefined ? 'required field is missing' : `must be a string or an array of content parts, got ${kind(v)}`);
  if (v.length === 0) throw invalid(at, 'must hold at least one content part');
  for (let i = 0; i < v.length; i++) part(v[i], `${at}[${i}]`, allowed, scan);
}

function part(v: JsonValue | undefined, path: string, allowed: readonly PartKind[], scan: ChatScan): void {
  const p = obj(v, path);
  const type = oneOf(p.type, `${path}.type`, allowed);
  cacheControl(p.cache_control, `${path}.cache_control`);
  switch (type) {
    case 'text':
      rejectUnknown(p, TEXT_PART, path);
      scan.bytes += Buffer.byteLength(str(p.text, `${path}.text`), 'utf8');
      return;
    case 'refusal':
      rejectUnknown(p, REFUSAL_PART, path);
      scan.bytes += Buffer.byteLength(str(p.refusal, `${path}.refusal`), 'utf8');
      return;
    case 'image_url':
      rejectUnknown(p, IMAGE_PART, path);
      imageUrl(p.image_url, `${path}.image_url`);
      scan.images++;
      return;
    case 'input_audio': {
      rejectUnknown(p, AUDIO_PART, path);
      const audio = obj(p.input_audio, `${path}.input_audio`);
      rejectUnknown(audio, INPUT_AUDIO, `${path}.input_audio`);
      const data = str(audio.data, `${path}.input_audio.data`, 1);
      oneOf(audio.format, `${path}.input_audio.format`, AUDIO_FORMATS);
      scan.audioBytes += Math.ceil((data.length * 3) / 4);
    }
  }
}

function imageUrl(v: JsonValue | undefined, path: string): void {
  const image = obj(v, path);
  rejectUnknown(image, IMAGE_URL, path);
  if (given(image.detail)) oneOf(image.detail, `${path}.detail`, ['auto', 'low', 'high']);
  const url = str(image.url, `${path}.url`, 1);
  if (url.startsWith('data:')) {
    // the base64 payload itself is not scanned (it can be megabytes): the provider decodes it
    if (!IMAGE_MIME.test(url) || url.length === url.indexOf(',') + 1) {
      throw invalid(`${path}.url`, 'a data URL must be data:<mime>;base64,<data> with an image/jpeg, image/png, image/gif or image/webp type and non-empty data');
    }
    return;
  }
  if (!url.startsWith('https://') || !URL.canParse(url)) {
    throw invalid(`${path}.url`, `must be an https URL or a data:image/...;base64 URL, got "${shorten(url)}"`);
  }
}
