// The `input` of a `POST /v1/responses` body: items (messages, function calls and their outputs,
// reasoning, client-tool calls and outputs) and content parts, checked for the fields the gateway
// reads; other fields clients echo back are kept. An output's `call_id` must be an earlier call's,
// except for a named output with none (Codex's standalone outputs, client-tools.ts). Part of
// client-validate.ts.
import type { JsonObject, JsonValue } from '../../chunks.js';
import { invalid } from '../../errors.js';
import { errors } from '../../errors/index.js';
import { arr, isObject, jsonBytes, kind, obj, oneOf, shorten, str } from '../../validate/checks.js';
import { given } from '../../openai/params.js';
import { decodeAnthropicThinking, isAnthropicEncrypted } from './client-state.js';
import { isStandaloneOutput } from './client-tools.js';

/** What one walk over the input gathers for routing and billing. */
export interface Scan {
  bytes: number;
  images: number;
  items: number;
  callIds: Set<string>;
  signedThinking: boolean;
}

// ---- input ------------------------------------------------------------------------------------

const ITEM_REFERENCE_HINT =
  'item_reference items point at stored items, and this gateway stores nothing: send the full items instead. ' +
  'The Vercel AI SDK sends them from openai.responses(...) unless providerOptions.openai.store is set to false; set it to false.';

export function validateInput(v: JsonValue | undefined, scan: Scan): void {
  if (!given(v)) throw invalid('input', 'required field is missing; send a string or a non-empty array of input items');
  if (typeof v === 'string') {
    if (v === '') throw invalid('input', 'must not be empty');
    scan.bytes += Buffer.byteLength(v, 'utf8');
    scan.items++;
    return;
  }
  if (!Array.isArray(v)) throw invalid('input', `must be a string or an array of input items, got ${kind(v)}`);
  if (v.length === 0) throw invalid('input', 'must hold at least one input item');
  for (let i = 0; i < v.length; i++) validateItem(v[i], `input[${i}]`, scan);
}

const MESSAGE_ROLES = ['system', 'developer', 'user', 'assistant', 'tool'] as const;

function validateItem(v: JsonValue | undefined, path: string, scan: Scan): void {
  if (!isObject(v)) throw errors.inputItemInvalid(path, `must be an input item object, got ${kind(v)}`);
  scan.items++;
  const type = v.type === undefined && v.role !== undefined ? 'message' : v.type;
  if (typeof type !== 'string') throw errors.inputItemInvalid(`${path}.type`, `must be a string naming the item type, got ${kind(type)}`);
  switch (type) {
    case 'message': {
      const role = oneOf(v.role, `${path}.role`, MESSAGE_ROLES);
      content(v.content, path, role === 'assistant', scan);
      return;
    }
    case 'function_call':
    case 'custom_tool_call': {
      const callId = str(v.call_id, `${path}.call_id`, 1);
      const name = str(v.name, `${path}.name`, 1);
      const payload = type === 'function_call' ? str(v.arguments, `${path}.arguments`) : str(v.input, `${path}.input`);
      scan.callIds.add(callId);
      scan.bytes += Buffer.byteLength(callId + name + payload, 'utf8') + 32;
      return;
    }
    case 'shell_call':
    case 'apply_patch_call': {
      scan.callIds.add(str(v.call_id, `${path}.call_id`, 1));
      const field = type === 'shell_call' ? 'action' : 'operation';
      scan.bytes += jsonBytes(obj(v[field], `${path}.${field}`));
      return;
    }
    case 'function_call_output':
    case 'custom_tool_call_output':
    case 'shell_call_output':
    case 'apply_patch_call_output': {
      if (isStandaloneOutput(v)) {
        str(v.name, `${path}.name`, 1);
        if (given(v.namespace)) str(v.namespace, `${path}.namespace`, 1);
        toolOutput(v.output, `${path}.output`);
        scan.bytes += jsonBytes(v.output ?? null);
        return;
      }
      const callId = str(v.call_id, `${path}.call_id`, 1);
      if (!scan.callIds.has(callId)) {
        throw errors.inputItemInvalid(`${path}.call_id`, `"${shorten(callId)}" does not match the call_id of an earlier call item in "input". Send the model's call item before its output`);
      }
      if (type === 'apply_patch_call_output') {
        if (given(v.output)) str(v.output, `${path}.output`);
      } else if (type === 'shell_call_output') {
        if (v.output === undefined) throw errors.inputItemInvalid(`${path}.output`, 'required field is missing');
      } else {
        toolOutput(v.output, `${path}.output`);
      }
      scan.bytes += jsonBytes(v.output ?? null);
      return;
    }
    case 'reasoning':
      reasoningItem(v, path, scan);
      return;
    case 'web_search_call':
    case 'code_interpreter_call':
    case 'file_search_call':
    case 'image_generation_call':
    case 'mcp_call':
    case 'mcp_list_tools':
      return; // an echoed hosted tool call (decisions §10): kept for Responses deployments, dropped elsewhere
    case 'item_reference':
      throw errors.inputItemInvalid(path, ITEM_REFERENCE_HINT);
    default:
      throw errors.inputItemInvalid(`${path}.type`, `item type "${shorten(type)}" is not supported. Supported: message, function_call, function_call_output, reasoning, custom_tool_call(_output), shell_call(_output), apply_patch_call(_output)`);
  }
}

function reasoningItem(v: JsonObject, path: string, scan: Scan): void {
  if (given(v.summary)) {
    const parts = arr(v.summary, `${path}.summary`);
    for (let j = 0; j < parts.length; j++) {
      const p = obj(parts[j], `${path}.summary[${j}]`);
      scan.bytes += Buffer.byteLength(str(p.text, `${path}.summary[${j}].text`), 'utf8');
    }
  }
  if (!given(v.encrypted_content)) return;
  const encrypted = str(v.encrypted_content, `${path}.encrypted_content`);
  scan.bytes += encrypted.length / 4;
  if (isAnthropicEncrypted(encrypted)) {
    if (decodeAnthropicThinking(encrypted) === null) {
      throw errors.inputItemInvalid(`${path}.encrypted_content`, 'is not reasoning state this gateway returned. Pass encrypted_content back unmodified');
    }
    scan.signedThinking = true;
  }
}

/** `output` of a function or custom tool call: a string, or input_text parts (image parts are not supported). */
function toolOutput(v: JsonValue | undefined, path: string): void {
  if (typeof v === 'string') return;
  const parts = arr(v, path);
  for (let j = 0; j < parts.length; j++) {
    const p = obj(parts[j], `${path}[${j}]`);
    if (p.type !== 'input_text' && p.type !== 'output_text') {
      throw errors.inputItemInvalid(`${path}[${j}].type`, `tool outputs carry text only ("input_text" parts), got ${typeof p.type === 'string' ? `"${shorten(p.type)}"` : kind(p.type)}`);
    }
    str(p.text, `${path}[${j}].text`);
  }
}

const DETAILS = ['low', 'high', 'auto', 'original'] as const;
const IMAGE_DATA_URI = /^data:image\/(?:jpeg|jpg|png|gif|webp);base64,./i;

function content(v: JsonValue | undefined, path: string, assistant: boolean, scan: Scan): void {
  const at = `${path}.content`;
  if (typeof v === 'string') {
    scan.bytes += Buffer.byteLength(v, 'utf8');
    return;
  }
  if (!Array.isArray(v)) throw errors.inputItemInvalid(at, v === undefined ? 'required field is missing' : `must be a string or an array of content parts, got ${kind(v)}`);
  for (let j = 0; j < v.length; j++) part(v[j], `${at}[${j}]`, assistant, scan);
}

function part(v: JsonValue | undefined, path: string, assistant: boolean, scan: Scan): void {
  const p = obj(v, path);
  switch (p.type) {
    case 'input_text':
    case 'output_text':
      scan.bytes += Buffer.byteLength(str(p.text, `${path}.text`), 'utf8');
      return;
    case 'refusal':
      scan.bytes += Buffer.byteLength(str(p.refusal, `${path}.refusal`), 'utf8');
      return;
    case 'input_image':
      if (assistant) break;
      imageUrl(p, path);
      scan.images++;
      return;
    case 'input_file': {
      if (assistant) break;
      const data = given(p.file_data) ? str(p.file_data, `${path}.file_data`) : '';
      if (!IMAGE_DATA_URI.test(data)) {
        throw errors.inputItemInvalid(`${path}.file_data`, 'only image files are supported, sent as a data:image/...;base64 URI in "file_data" (no file ids, URLs or other file types)');
      }
      scan.images++;
      return;
    }
    case 'input_audio':
      throw errors.responsesAudioInput(path);
  }
  const type = typeof p.type === 'string' ? `"${shorten(p.type)}"` : kind(p.type);
  const allowed = assistant ? '"output_text", "refusal"' : '"input_text", "input_image", "input_file"';
  throw errors.inputItemInvalid(`${path}.type`, `must be one of ${allowed}, got ${type}`);
}

/** `image_url` as a string or `{url, detail}`; `detail` on the part or in the object (decisions §9.11). */
function imageUrl(p: JsonObject, path: string): void {
  if (given(p.detail)) oneOf(p.detail, `${path}.detail`, DETAILS);
  if (given(p.file_id)) throw errors.inputItemInvalid(`${path}.file_id`, 'file ids point at stored files, which this gateway does not have; send image_url instead');
  let url: string;
  if (isObject(p.image_url)) {
    url = str(p.image_url.url, `${path}.image_url.url`, 1);
    if (given(p.image_url.detail)) oneOf(p.image_url.detail, `${path}.image_url.detail`, DETAILS);
  } else {
    url = str(p.image_url, `${path}.image_url`, 1);
  }
  if (url.startsWith('data:')) {
    if (!IMAGE_DATA_URI.test(url)) throw errors.inputItemInvalid(`${path}.image_url`, 'a data URL must be data:image/<jpeg|png|gif|webp>;base64,<data>');
    return;
  }
  if (!url.startsWith('https://')) throw errors.inputItemInvalid(`${path}.image_url`, `must be an https URL or a data:image/...;base64 URL, got "${shorten(url)}"`);
  if (!URL.canParse(url)) throw errors.inputItemInvalid(`${path}.image_url`, `is not a valid URL: "${shorten(url)}"`);
}

