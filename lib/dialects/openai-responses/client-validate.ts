// Validation of a `POST /v1/responses` body before any provider work: one walk over the body, no
// copy. Failures are GatewayErrors naming the parameter (`param`):
// - GW_ERR_REQUEST_INVALID (`invalid_request`): malformed values, unknown top-level parameters,
//   missing or empty `input`, unsupported item types (`item_reference` with the Vercel AI SDK hint),
//   unknown tool types, an unrecognised reasoning effort (param `reasoning`), a json_schema text
//   format without name or schema (param `text`);
// - GW_ERR_PARAM_UNSUPPORTED (`unsupported_parameter`): the stateless rules (`store: true`,
//   `previous_response_id`, `conversation`, `background: true`, `prompt`, `moderation`,
//   `context_management`) and `input_audio` parts (param `input`);
// - GW_ERR_CALL_NAME_INVALID / GW_ERR_END_USER_ID_INVALID for bad labels.
// Items and parts are checked for the fields the gateway reads; other fields on them (ids, status,
// annotations, logprobs: what clients echo back) are kept as sent. The result is the
// CanonicalRequest whose `body` is the input object itself (source 'openai-responses').
import type { CanonicalRequest, JsonObject, JsonValue, RequestNeeds } from '../../chunks.js';
import { invalid } from '../../errors.js';
import { errors } from '../../errors/index.js';
import { arr, bool, int, isObject, jsonBytes, kind, num, obj, oneOf, shorten, str } from '../../validate/checks.js';
import { given, validateMetadata } from '../../openai/params.js';
import { validateInput, type Scan } from './client-validate-input.js';
import { emptyTools, validateToolChoice, validateTools } from './client-validate-tools.js';
import type { ClientTool } from './client-tools.js';

export const AUTO_MODEL = 'gateway-auto';
export const DEFAULT_AUTO_EFFORT = 'high';
export const EFFORTS = ['none', 'minimal', 'low', 'medium', 'high', 'xhigh', 'max'] as const;
export type ResponsesEffort = Exclude<(typeof EFFORTS)[number], 'max'>;
const SUMMARIES = ['auto', 'concise', 'detailed'] as const;
const ENCRYPTED_INCLUDE = 'reasoning.encrypted_content';

const TOP_LEVEL: ReadonlySet<string> = new Set([
  'input', 'instructions', 'model', 'stream', 'temperature', 'top_p', 'max_output_tokens', 'tools', 'tool_choice',
  'parallel_tool_calls', 'reasoning', 'text', 'include', 'metadata', 'session_id', 'prompt_cache_key',
  'prompt_cache_retention', 'prompt_cache_options', 'safety_identifier', 'user', 'truncation', 'stream_options',
  'service_tier', 'top_logprobs', 'max_tool_calls', 'client_metadata', 'gateway',
  // stateless rules: accepted as no-ops when off, otherwise unsupported_parameter
  'store', 'previous_response_id', 'conversation', 'background', 'prompt', 'moderation', 'context_management',
]);

const MAX_END_USER_ID = 512;
const MAX_SESSION_ID = 256;

const BYTES_PER_TOKEN = 2;
const TOKENS_PER_ITEM = 16;
const TOKENS_PER_IMAGE = 1600;
/** searches reserved per request with a hosted web_search tool and no `max_tool_calls` */
const DEFAULT_SEARCH_USES = 5;

/** What translators and encoders read from a validated body (computed once, kept per body). */
export interface ResponsesFacts {
  /** the effective effort (`max` read as `xhigh`; the `gateway-auto` default included); undefined: model default */
  effort: ResponsesEffort | undefined;
  effortDefaulted: boolean;
  /** a `reasoning` object was given */
  reasoningGiven: boolean;
  summary: string | undefined;
  /** `include` asks for `reasoning.encrypted_content` */
  includeEncrypted: boolean;
  /** every tool the model may call, namespaces unwrapped */
  functions: JsonObject[];
  /** names of `custom` tools (freeform input) */
  customTools: Set<string>;
  /** client-executed `shell` / `apply_patch` tools */
  clientTools: { shell: boolean; applyPatch: boolean };
  webSearch: JsonObject[];
  /** every tool the model may call, by the name a Chat or Messages upstream calls it (client-tools.ts) */
  callable: Map<string, ClientTool>;
}

declare module '../../chunks.js' {
  interface ClientFindings {
    /** Responses: the facts of the validated body */
    responses?: ResponsesFacts;
  }
}

/** Facts of a validated request (its findings; a request built elsewhere has its body validated first). */
export function responsesFacts(req: Pick<CanonicalRequest, 'body' | 'findings'>): ResponsesFacts {
  return req.findings?.responses ?? validateResponsesRequest(req.body).findings!.responses!;
}

export interface ResponsesValidateOptions {
  /** on `gateway-auto` (null / omitted model), a request without a reasoning effort gets effort `high`; default true */
  defaultEffortOnAuto?: boolean;
}

const STATELESS = ' This gateway is stateless: send the whole conversation in "input" on every request.';

function rejectStateful(body: JsonObject): void {
  if (given(body.store) && bool(body.store, 'store')) throw errors.paramUnsupported('store', `responses are never stored; remove "store" or set it to false.${STATELESS}`);
  if (given(body.previous_response_id)) throw errors.paramUnsupported('previous_response_id', `responses are never stored, so they cannot be continued by id; remove "previous_response_id".${STATELESS}`);
  if (given(body.conversation)) throw errors.paramUnsupported('conversation', `conversations are not stored; remove "conversation".${STATELESS}`);
  if (given(body.background) && bool(body.background, 'background')) throw errors.paramUnsupported('background', 'background responses need stored responses; remove "background" or set it to false, and stream instead.');
  if (given(body.prompt)) throw errors.paramUnsupported('prompt', 'stored prompt templates are not available; remove "prompt" and send the text in "instructions" and "input".');
  if (given(body.moderation)) throw errors.paramUnsupported('moderation', 'moderation settings are not supported; remove "moderation".');
  if (given(body.context_management)) throw errors.paramUnsupported('context_management', 'server-side context management (compaction) is not available; remove "context_management".');
}

/** Validate a parsed body. Returns the canonical request (source 'openai-responses'); throws GatewayError naming the parameter. */
export function validateResponsesRequest(body: JsonValue, opts: ResponsesValidateOptions = {}): CanonicalRequest {
  if (!isObject(body)) throw invalid('', `The request body must be a JSON object, got ${kind(body)}.`);
  for (const key in body) {
    if (!TOP_LEVEL.has(key)) throw invalid(shorten(key, 80), 'unknown parameter; the Responses endpoint does not accept it. Remove it');
  }
  rejectStateful(body);

  const model = given(body.model) ? str(body.model, 'model', 1) : null;
  const stream = given(body.stream) ? bool(body.stream, 'stream') : false;
  const scan: Scan = { bytes: 0, images: 0, items: 0, callIds: new Set(), signedThinking: false };
  if (given(body.instructions)) scan.bytes += Buffer.byteLength(str(body.instructions, 'instructions'), 'utf8');
  validateInput(body.input, scan);

  const tools = given(body.tools) ? validateTools(body.tools, scan) : emptyTools();
  if (given(body.tool_choice)) validateToolChoice(body.tool_choice, tools.functions, tools.callable);
  if (given(body.parallel_tool_calls)) bool(body.parallel_tool_calls, 'parallel_tool_calls');
  const maxTokens = given(body.max_output_tokens) ? int(body.max_output_tokens, 'max_output_tokens', 1) : null;
  if (given(body.temperature)) num(body.temperature, 'temperature', 0, 2);
  if (given(body.top_p)) num(body.top_p, 'top_p', 0, 1);
  const reasoning = validateReasoning(body.reasoning);
  if (given(body.text)) validateText(body.text, scan);
  const include = given(body.include) ? arr(body.include, 'include').map((v, i) => str(v, `include[${i}]`, 1)) : [];
  validateIgnored(body);
  let sessionId = given(body.session_id) ? str(body.session_id, 'session_id', 1, MAX_SESSION_ID).trim() : undefined;
  if (sessionId === '') throw invalid('session_id', 'must not be blank');
  // without `session_id`, the caller's prompt cache key names its session for sticky routing (Codex
  // sends its session id there, and in a header this gateway does not read)
  if (sessionId === undefined && typeof body.prompt_cache_key === 'string') {
    const key = body.prompt_cache_key.trim();
    if (key !== '' && key.length <= MAX_SESSION_ID) sessionId = key;
  }
  const labels = validateLabels(body);

  const auto = model === null || model === AUTO_MODEL;
  let effort = reasoning.effort;
  let effortDefaulted = false;
  if ((opts.defaultEffortOnAuto ?? true) && auto && effort === undefined) {
    effort = DEFAULT_AUTO_EFFORT;
    effortDefaulted = true;
  }
  const facts: ResponsesFacts = {
    effort,
    effortDefaulted,
    reasoningGiven: given(body.reasoning),
    summary: reasoning.summary,
    includeEncrypted: include.includes(ENCRYPTED_INCLUDE),
    ...tools,
  };

  const modalities = new Set<'text' | 'image' | 'audio'>(['text']);
  if (scan.images > 0) modalities.add('image');
  const needs: RequestNeeds = {
    modalities,
    tools: tools.functions.length > 0 || tools.clientTools.shell || tools.clientTools.applyPatch,
    reasoning: effort !== undefined && effort !== 'none',
    signedThinking: scan.signedThinking,
  };
  if (tools.webSearch.length > 0 && !needs.tools && tools.customTools.size === 0) needs.searchOnly = true;
  const maxToolCalls = typeof body.max_tool_calls === 'number' ? body.max_tool_calls : DEFAULT_SEARCH_USES;
  return {
    source: 'openai-responses',
    body,
    model,
    stream,
    maxTokens,
    thinkingBudget: null,
    needs,
    inputTokenBound: Math.ceil(scan.bytes / BYTES_PER_TOKEN) + TOKENS_PER_ITEM * scan.items + TOKENS_PER_IMAGE * scan.images,
    hostedToolUses: tools.webSearch.length > 0 ? maxToolCalls : 0,
    labels,
    forward: sessionId === undefined ? { betas: [], headers: {} } : { betas: [], headers: {}, sessionId },
    findings: { responses: facts },
  };
}

// ---- parameters -------------------------------------------------------------------------------

function validateReasoning(v: JsonValue | undefined): { effort: ResponsesEffort | undefined; summary: string | undefined } {
  if (!given(v)) return { effort: undefined, summary: undefined };
  if (!isObject(v)) throw invalid('reasoning', `must be an object, got ${kind(v)}`);
  for (const key in v) {
    if (key !== 'effort' && key !== 'summary' && key !== 'generate_summary') throw invalid('reasoning', `unknown field "${shorten(key)}"; allowed: effort, summary`);
  }
  let effort: ResponsesEffort | undefined;
  if (given(v.effort)) {
    if (typeof v.effort !== 'string' || !(EFFORTS as readonly string[]).includes(v.effort)) {
      throw invalid('reasoning', `reasoning.effort must be one of ${EFFORTS.map((e) => `"${e}"`).join(', ')}, got ${typeof v.effort === 'string' ? `"${shorten(v.effort)}"` : kind(v.effort)}`);
    }
    effort = v.effort === 'max' ? 'xhigh' : (v.effort as ResponsesEffort);
  }
  let summary: string | undefined;
  for (const key of ['summary', 'generate_summary'] as const) {
    if (given(v[key])) summary = oneOf(v[key], `reasoning.${key}`, SUMMARIES);
  }
  return { effort, summary };
}

function validateText(v: JsonValue, scan: Scan): void {
  const text = obj(v, 'text');
  for (const key in text) if (key !== 'format' && key !== 'verbosity') throw invalid('text', `unknown field "${shorten(key)}"; allowed: format, verbosity`);
  if (given(text.verbosity)) oneOf(text.verbosity, 'text.verbosity', ['low', 'medium', 'high']);
  if (!given(text.format)) return;
  const format = obj(text.format, 'text.format');
  const type = oneOf(format.type, 'text.format.type', ['text', 'json_object', 'json_schema']);
  if (type !== 'json_schema') return;
  if (typeof format.name !== 'string' || format.name === '' || !isObject(format.schema)) {
    throw invalid('text', 'text.format of type "json_schema" needs a non-empty "name" and a "schema" object');
  }
  if (given(format.strict)) bool(format.strict, 'text.format.strict');
  if (given(format.description)) str(format.description, 'text.format.description');
  scan.bytes += jsonBytes(format);
}

/** Accepted with no (or only a hinting) effect: types are still checked. */
function validateIgnored(body: JsonObject): void {
  for (const key of ['prompt_cache_key', 'prompt_cache_retention', 'safety_identifier', 'user', 'service_tier'] as const) {
    if (given(body[key])) str(body[key], key);
  }
  if (given(body.truncation)) oneOf(body.truncation, 'truncation', ['auto', 'disabled']);
  if (given(body.stream_options)) obj(body.stream_options, 'stream_options');
  if (given(body.prompt_cache_options)) obj(body.prompt_cache_options, 'prompt_cache_options');
  if (given(body.client_metadata)) obj(body.client_metadata, 'client_metadata');
  if (given(body.top_logprobs)) int(body.top_logprobs, 'top_logprobs', 0, 20);
  if (given(body.max_tool_calls)) int(body.max_tool_calls, 'max_tool_calls', 1);
}

function explicitEndUser(v: JsonValue | undefined, path: string): string | undefined {
  if (!given(v)) return undefined;
  if (typeof v !== 'string') throw errors.endUserIdInvalid(path, `must be a string, got ${kind(v)}`);
  if (v.trim() === '') throw errors.endUserIdInvalid(path, 'must not be empty or whitespace only');
  if (v.length > MAX_END_USER_ID) throw errors.endUserIdInvalid(path, `must be at most ${MAX_END_USER_ID} characters, got ${v.length}`);
  return v;
}

function fallbackEndUser(v: JsonValue | undefined): string | undefined {
  return typeof v === 'string' && v.trim() !== '' && v.length <= MAX_END_USER_ID ? v : undefined;
}

/**
 * Labels: `call_name` from `gateway.call_name`, else `metadata.call_name`; `end_user_id` from
 * `gateway.end_user_id`, else `metadata.end_user_id`, else `safety_identifier`, else `user`.
 */
function validateLabels(body: JsonObject): CanonicalRequest['labels'] {
  const labels: CanonicalRequest['labels'] = {};
  const metaCallName = given(body.metadata) ? validateMetadata(body.metadata) : undefined;
  let gwCallName: string | undefined;
  let gwEndUser: string | undefined;
  if (given(body.gateway)) {
    const gw = obj(body.gateway, 'gateway');
    for (const key in gw) {
      if (!['call_name', 'end_user_id', 'memory', 'eval', 'policy'].includes(key)) throw invalid(`gateway.${shorten(key)}`, 'unknown field; allowed: call_name, end_user_id');
    }
    if (given(gw.call_name)) {
      const v = gw.call_name;
      if (typeof v !== 'string' || v.trim() === '' || v.length > 64) {
        throw errors.callNameInvalid('gateway.call_name', 'must be a non-blank string of at most 64 characters');
      }
      gwCallName = v;
    }
    gwEndUser = explicitEndUser(gw.end_user_id, 'gateway.end_user_id');
  }
  const metaEndUser = isObject(body.metadata) ? explicitEndUser(body.metadata.end_user_id, 'metadata.end_user_id') : undefined;
  const callName = gwCallName ?? metaCallName;
  if (callName !== undefined) labels.callName = callName;
  const endUser = gwEndUser ?? metaEndUser ?? fallbackEndUser(body.safety_identifier) ?? fallbackEndUser(body.user);
  if (endUser !== undefined) labels.endUserId = endUser;
  return labels;
}
