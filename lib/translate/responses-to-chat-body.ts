// A validated Responses request written as a Chat Completions body (`chatBody`): how the
// `openai-responses>chat` and `openai-responses>messages` paths (responses-via-chat.ts) read it.
//
// - `instructions` → a leading system message; `system`/`developer` items → system/developer
//   messages (text parts only); user items → user messages (input_text → text, input_image /
//   image input_file → image_url, `original` detail → `high`); a `tool` role item is read as a
//   user message.
// - Consecutive assistant-side items (reasoning, assistant messages, function_call,
//   custom_tool_call, shell_call, apply_patch_call) form ONE assistant message: reasoning items
//   whose encrypted_content is `anthropic-thinking:` become Anthropic `reasoning_details` entries
//   (so chat-to-messages rebuilds the byte-identical thinking / redacted_thinking block; the Chat
//   encoder drops them); other reasoning items (OpenAI's encrypted state) are dropped; text →
//   content; calls → `tool_calls` named as the upstream knows the tool (client-tools.ts: a
//   namespace member as `<namespace>__<name>`; a custom tool call's `input` as arguments
//   `{"input": …}`; a shell call's `action` and an apply_patch call's `operation` as the arguments).
// - Codex echoes a turn as function call, assistant text, call output (FAILURE-MODES F31): an
//   assistant-side item that comes while calls of the last assistant message still await their
//   output joins that message, so every tool message follows the assistant message that called it
//   (Chat needs that; Anthropic needs each tool_result right after its tool_use).
// - Outputs → `tool` messages: function_call_output / custom_tool_call_output text parts joined
//   with no separator, as OpenAI reads them (decisions §10); shell_call_output as exit code,
//   stdout and stderr; apply_patch_call_output as its
//   status and text. A standalone output (a name, no call_id: Codex's task input, F33) → a user
//   message naming the tool.
// - Tools: function tools as they are (namespace members flattened); custom tools → function
//   tools taking one string parameter `input`; `shell` / `apply_patch` → the functions of
//   client-tools.ts (the encoder turns calls back into custom_tool_call / shell_call /
//   apply_patch_call items); hosted web_search is dropped (it runs only on Responses deployments).
// - `tool_choice` strings pass, `{type: function|custom, name}` (and `{type: shell|apply_patch}`)
//   → the named function, a hosted or allowed_tools choice → its mode (`auto` / `required`);
//   `parallel_tool_calls` passes.
// - Reasoning: the effective effort (after `max` → `xhigh` and the auto default) → Chat
//   `reasoning.effort`; a `reasoning` object without effort → `reasoning: {}` (the model's
//   default: adaptive thinking on Anthropic).
// - `text.format` → `response_format`; `text.verbosity` → `verbosity`; `max_output_tokens` →
//   `max_completion_tokens`; `temperature`, `top_p`, `user`, `safety_identifier`,
//   `prompt_cache_key`, `prompt_cache_retention` pass.
import type { CanonicalRequest, JsonObject, JsonValue } from '../chunks.js';
import { redactedDetail, thinkingDetail, type ReasoningDetail } from './reasoning-details.js';
import { asArray, asString, isObject, TOOL_TEXT_SEPARATOR } from './tables.js';
import { decodeAnthropicThinking } from '../dialects/openai-responses/client-state.js';
import { responsesFacts } from '../dialects/openai-responses/client-validate.js';
import {
  APPLY_PATCH_FUNCTION, callArguments, flatName, isStandaloneOutput, outputText as clientToolOutput, SHELL_FUNCTION, standaloneOutputText,
  type ClientTool,
} from '../dialects/openai-responses/client-tools.js';

/** A Chat Completions body with the meaning of a validated Responses body. */
export function chatBody(req: CanonicalRequest, modelId: string): JsonObject {
  const body = req.body;
  const facts = responsesFacts(req);
  const out: JsonObject = { messages: chatMessages(body) };
  const tools = chatTools(req);
  if (tools.length > 0) {
    out.tools = tools;
    const choice = toolChoice(body.tool_choice, responsesFacts(req).callable);
    if (choice !== undefined) out.tool_choice = choice;
    if (typeof body.parallel_tool_calls === 'boolean') out.parallel_tool_calls = body.parallel_tool_calls;
  }
  if (facts.effort !== undefined) out.reasoning = { effort: facts.effort };
  else if (facts.reasoningGiven) out.reasoning = {};
  if (typeof body.max_output_tokens === 'number') out.max_completion_tokens = body.max_output_tokens;
  for (const key of ['temperature', 'top_p'] as const) if (typeof body[key] === 'number') out[key] = body[key];
  for (const key of ['user', 'safety_identifier', 'prompt_cache_key', 'prompt_cache_retention'] as const) {
    const v = body[key];
    if (typeof v === 'string' && v !== '') out[key] = v;
  }
  const text = isObject(body.text) ? body.text : undefined;
  const format = isObject(text?.format) ? text.format : undefined;
  if (format?.type === 'json_object') out.response_format = { type: 'json_object' };
  else if (format?.type === 'json_schema') {
    const spec: JsonObject = { name: asString(format.name) ?? 'response', schema: isObject(format.schema) ? format.schema : {} };
    if (typeof format.description === 'string') spec.description = format.description;
    if (typeof format.strict === 'boolean') spec.strict = format.strict;
    out.response_format = { type: 'json_schema', json_schema: spec };
  }
  if (typeof text?.verbosity === 'string') out.verbosity = text.verbosity;
  if (body.stream === true) out.stream = true;
  return out;
}

function chatTools(req: CanonicalRequest): JsonObject[] {
  const out: JsonObject[] = [];
  for (const [name, entry] of responsesFacts(req).callable) {
    const t = entry.tool;
    if (t === undefined) {
      out.push({ type: 'function', function: entry.kind === 'shell' ? SHELL_FUNCTION : APPLY_PATCH_FUNCTION });
      continue;
    }
    const fn: JsonObject = { name };
    if (typeof t.description === 'string') fn.description = t.description;
    if (t.type === 'custom') {
      fn.parameters = { type: 'object', properties: { input: { type: 'string', description: customInputHint(t) } }, required: ['input'] };
    } else {
      fn.parameters = isObject(t.parameters) ? t.parameters : { type: 'object', properties: {} };
    }
    out.push({ type: 'function', function: fn });
  }
  return out;
}

/** The string parameter of a custom tool, described by its grammar when it has one. */
function customInputHint(tool: JsonObject): string {
  const format = isObject(tool.format) ? tool.format : undefined;
  if (format?.type === 'grammar' && typeof format.definition === 'string') {
    return `The raw tool input, which must follow this ${asString(format.syntax) ?? ''} grammar:\n${format.definition}`;
  }
  return 'The raw tool input (free-form text).';
}

function toolChoice(v: JsonValue | undefined, callable: ReadonlyMap<string, ClientTool>): JsonValue | undefined {
  if (typeof v === 'string') return v;
  if (!isObject(v)) return undefined;
  if (v.type === 'function' || v.type === 'custom') return { type: 'function', function: { name: chosenName(asString(v.name) ?? '', asString(v.namespace), callable) } };
  if (v.type === 'shell' || v.type === 'apply_patch') return { type: 'function', function: { name: v.type } };
  if (v.type === 'allowed_tools') return v.mode === 'required' ? 'required' : 'auto';
  return 'auto'; // a hosted tool choice ({type: web_search}, ...): the model decides
}

/** The upstream name of a chosen tool; a namespace member named without its namespace when its name is its own. */
function chosenName(name: string, namespace: string | undefined, callable: ReadonlyMap<string, ClientTool>): string {
  const flat = flatName(name, namespace);
  if (namespace !== undefined || callable.has(flat)) return flat;
  const members = [...callable].filter(([, t]) => t.name === name);
  return members.length === 1 ? members[0]![0] : flat;
}

const IMAGE_DETAIL: Readonly<Record<string, string>> = { low: 'low', high: 'high', auto: 'auto', original: 'high' };

function imagePart(p: JsonObject): JsonObject {
  let url: string;
  let detail = asString(p.detail);
  if (p.type === 'input_file') url = asString(p.file_data) ?? '';
  else if (isObject(p.image_url)) {
    url = asString(p.image_url.url) ?? '';
    detail = asString(p.image_url.detail) ?? detail;
  } else url = asString(p.image_url) ?? '';
  const image: JsonObject = { url };
  if (detail !== undefined && Object.hasOwn(IMAGE_DETAIL, detail)) image.detail = IMAGE_DETAIL[detail]!;
  return { type: 'image_url', image_url: image };
}

function textsOf(content: JsonValue | undefined): string[] {
  if (typeof content === 'string') return [content];
  const out: string[] = [];
  for (const p of asArray(content)) {
    if (!isObject(p)) continue;
    if (typeof p.text === 'string') out.push(p.text);
    else if (typeof p.refusal === 'string') out.push(p.refusal);
  }
  return out;
}

function userContent(content: JsonValue | undefined): JsonValue {
  if (typeof content === 'string') return content;
  const parts: JsonObject[] = [];
  for (const p of asArray(content)) {
    if (!isObject(p)) continue;
    if (p.type === 'input_image' || p.type === 'input_file') parts.push(imagePart(p));
    else if (typeof p.text === 'string') parts.push({ type: 'text', text: p.text });
  }
  return parts;
}

interface Assistant {
  texts: string[];
  calls: JsonObject[];
  details: ReasoningDetail[];
  /** call ids still waiting for their output */
  pending: Set<string>;
}

/** An assistant message being gathered, or a finished message. */
type Entry = JsonObject | { turn: Assistant };

function chatMessages(body: JsonObject): JsonObject[] {
  const out: Entry[] = [];
  if (typeof body.instructions === 'string' && body.instructions !== '') out.push({ role: 'system', content: body.instructions });
  if (typeof body.input === 'string') {
    out.push({ role: 'user', content: body.input });
    return out as JsonObject[];
  }
  // turn: the assistant message being gathered; answered: the one only outputs have followed so far
  const at: { turn: Assistant | null; answered: Assistant | null } = { turn: null, answered: null };
  const assistant = (): Assistant => {
    if (at.turn !== null) return at.turn;
    if (at.answered !== null && at.answered.pending.size > 0) return (at.turn = at.answered); // some outputs are still due
    const turn: Assistant = { texts: [], calls: [], details: [], pending: new Set() };
    out.push({ turn });
    return (at.turn = turn);
  };
  const call = (item: JsonObject, name: string, args: string): void => {
    const a = assistant();
    const id = asString(item.call_id) ?? '';
    a.calls.push({ id, type: 'function', function: { name, arguments: args } });
    a.pending.add(id);
  };
  for (const item of asArray(body.input)) {
    if (!isObject(item)) continue;
    const type = item.type ?? 'message';
    const namespace = asString(item.namespace);
    switch (type) {
      case 'message':
        if (item.role === 'assistant') {
          assistant().texts.push(...textsOf(item.content));
          break;
        }
        at.turn = at.answered = null;
        if (item.role === 'system' || item.role === 'developer') out.push({ role: item.role, content: textsOf(item.content).join(TOOL_TEXT_SEPARATOR) });
        else out.push({ role: 'user', content: userContent(item.content) });
        break;
      case 'reasoning': {
        const encrypted = asString(item.encrypted_content);
        const block = encrypted === undefined ? null : decodeAnthropicThinking(encrypted);
        if (block === null) break; // OpenAI reasoning state: no other vendor can read it
        const a = assistant();
        a.details.push(block.type === 'thinking' ? thinkingDetail(block.thinking, block.signature, a.details.length) : redactedDetail(block.data, a.details.length));
        break;
      }
      case 'function_call':
        call(item, flatName(asString(item.name) ?? '', namespace), asString(item.arguments) || '{}');
        break;
      case 'custom_tool_call':
        call(item, flatName(asString(item.name) ?? '', namespace), JSON.stringify({ input: asString(item.input) ?? '' }));
        break;
      case 'shell_call':
        call(item, 'shell', callArguments(item));
        break;
      case 'apply_patch_call':
        call(item, 'apply_patch', callArguments(item));
        break;
      case 'function_call_output':
      case 'custom_tool_call_output':
      case 'shell_call_output':
      case 'apply_patch_call_output': {
        if (isStandaloneOutput(item)) {
          at.turn = at.answered = null;
          out.push({ role: 'user', content: standaloneOutputText(item, outputText(item.output)) });
          break;
        }
        at.answered = at.turn ?? at.answered;
        at.turn = null;
        const id = asString(item.call_id) ?? '';
        at.answered?.pending.delete(id);
        const content = type === 'shell_call_output' || type === 'apply_patch_call_output' ? clientToolOutput(item) : outputText(item.output);
        out.push({ role: 'tool', tool_call_id: id, content });
        break;
      }
      default:
        break; // web_search_call: a hosted search only a Responses deployment can replay
    }
  }
  return out.flatMap((e) => ('turn' in e ? assistantMessage(e.turn as Assistant) : [e as JsonObject]));
}

function assistantMessage(t: Assistant): JsonObject[] {
  if (t.texts.length === 0 && t.calls.length === 0 && t.details.length === 0) return [];
  const m: JsonObject = { role: 'assistant', content: t.texts.length > 0 ? t.texts.join('') : null };
  if (t.calls.length > 0) m.tool_calls = t.calls;
  if (t.details.length > 0) m.reasoning_details = t.details as unknown as JsonValue[];
  if (m.content === null && t.calls.length === 0) m.content = ''; // reasoning only: still a valid chat turn
  return [m];
}

function outputText(v: JsonValue | undefined): string {
  if (typeof v === 'string') return v;
  return textsOf(v).join('');
}
