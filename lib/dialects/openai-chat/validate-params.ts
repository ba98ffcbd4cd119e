// Chat Completions request parameters other than messages and tools: the parameters the spec
// rejects (`unsupported_parameter`), sampling ranges, the accepted-and-ignored parameters (type
// checked only), `metadata` with its `call_name` label, and `reasoning` / `reasoning_effort`.
// An explicit `null` on an optional parameter means "not given", as OpenAI's API treats it.
import type { JsonObject } from '../../chunks.js';
import { invalid } from '../../errors.js';
import { errors } from '../../errors/index.js';
import { arr, bool, int, isObject, num, obj, oneOf, rejectUnknown, fields, str } from '../../validate/checks.js';
import { given } from '../../openai/params.js';

// shared with the Responses validator (lib/openai/params.ts), re-exported for this dialect's files
export { given, validateMetadata } from '../../openai/params.js';

export const EFFORTS = ['xhigh', 'high', 'medium', 'low', 'minimal', 'none'] as const;
export type ChatEffort = (typeof EFFORTS)[number];

/** `n` > 1, `audio`, `modalities` with audio, `web_search_options`, `functions`, `function_call`. */
export function rejectUnsupported(body: JsonObject): void {
  if (given(body.n)) {
    const n = int(body.n, 'n', 1);
    if (n > 1) throw errors.paramUnsupported('n', `only one choice per request is supported, got ${n}. Remove "n" or set it to 1, and send several requests instead`);
  }
  if (given(body.audio)) throw errors.paramUnsupported('audio', 'audio output is not supported. Remove "audio"');
  if (given(body.modalities)) {
    const list = arr(body.modalities, 'modalities');
    for (let i = 0; i < list.length; i++) {
      if (oneOf(list[i], `modalities[${i}]`, ['text', 'audio']) === 'audio') {
        throw errors.paramUnsupported('modalities', 'audio output is not supported. Remove "audio" from "modalities" (or send ["text"])');
      }
    }
  }
  if (given(body.web_search_options)) throw errors.paramUnsupported('web_search_options', 'web search is not available on Chat Completions. Remove "web_search_options", or use POST /v1/responses with a web_search tool');
  if (given(body.functions)) throw errors.paramUnsupported('functions', 'the deprecated "functions" parameter is not supported. Send "tools" with {type: "function", function: {...}} entries instead');
  if (given(body.function_call)) throw errors.paramUnsupported('function_call', 'the deprecated "function_call" parameter is not supported. Send "tool_choice" instead');
}

const MAX_STOP = 4;

export function validateSampling(body: JsonObject): void {
  if (given(body.temperature)) num(body.temperature, 'temperature', 0, 2);
  if (given(body.top_p)) num(body.top_p, 'top_p', 0, 1);
  if (given(body.frequency_penalty)) num(body.frequency_penalty, 'frequency_penalty', -2, 2);
  if (given(body.presence_penalty)) num(body.presence_penalty, 'presence_penalty', -2, 2);
  const stop = body.stop;
  if (!given(stop) || typeof stop === 'string') return;
  const list = arr(stop, 'stop');
  if (list.length > MAX_STOP) throw invalid('stop', `must hold at most ${MAX_STOP} sequences, got ${list.length}`);
  for (let i = 0; i < list.length; i++) str(list[i], `stop[${i}]`, 1);
}

/** Accepted and ignored: their types are still checked, so nothing malformed slips through. */
export function validateIgnored(body: JsonObject): void {
  if (given(body.logit_bias)) obj(body.logit_bias, 'logit_bias');
  if (given(body.logprobs)) bool(body.logprobs, 'logprobs');
  if (given(body.top_logprobs)) int(body.top_logprobs, 'top_logprobs', 0, 20);
  if (given(body.seed)) int(body.seed, 'seed', Number.MIN_SAFE_INTEGER);
  if (given(body.prediction)) obj(body.prediction, 'prediction');
  if (given(body.store)) bool(body.store, 'store');
  if (given(body.stream_options)) obj(body.stream_options, 'stream_options');
  for (const key of ['service_tier', 'prompt_cache_key', 'prompt_cache_retention', 'safety_identifier', 'user'] as const) {
    if (given(body[key])) str(body[key], key);
  }
  if (given(body.verbosity)) oneOf(body.verbosity, 'verbosity', ['low', 'medium', 'high']);
}

/** Reasoning settings after normalisation (`reasoning` wins over `reasoning_effort`). */
export interface ChatReasoning {
  effort?: ChatEffort;
  /** the reasoning token budget (`reasoning.max_tokens`) */
  maxTokens?: number;
  /** reasoning is used but its text is not returned */
  exclude: boolean;
  /** the effort is the gateway's `gateway-auto` default, not the caller's */
  defaulted?: true;
}

const REASONING = fields('effort', 'max_tokens', 'exclude');

/** Validate `reasoning` and `reasoning_effort`; returns the normalised settings. */
export function validateReasoning(body: JsonObject, maxTokens: number | null): ChatReasoning {
  if (given(body.reasoning_effort)) oneOf(body.reasoning_effort, 'reasoning_effort', EFFORTS);
  if (!given(body.reasoning)) return normalise(body);
  const r = obj(body.reasoning, 'reasoning');
  rejectUnknown(r, REASONING, 'reasoning');
  if (given(r.effort)) oneOf(r.effort, 'reasoning.effort', EFFORTS);
  if (given(r.exclude)) bool(r.exclude, 'reasoning.exclude');
  if (given(r.max_tokens)) {
    const budget = int(r.max_tokens, 'reasoning.max_tokens', 1);
    if (r.effort === 'none') throw invalid('reasoning.max_tokens', 'a reasoning budget cannot be combined with effort "none". Remove one of the two');
    if (maxTokens !== null && budget >= maxTokens) {
      throw invalid('reasoning.max_tokens', `must be lower than max_completion_tokens (${maxTokens}): reasoning tokens count inside the completion. Raise max_completion_tokens or lower the budget`);
    }
  }
  return normalise(body);
}

/** Normalise an already validated body (no checks). */
export function normalise(body: JsonObject): ChatReasoning {
  const r = body.reasoning;
  if (isObject(r)) {
    const out: ChatReasoning = { exclude: r.exclude === true };
    if (typeof r.effort === 'string') out.effort = r.effort as ChatEffort;
    if (typeof r.max_tokens === 'number') out.maxTokens = r.max_tokens;
    return out;
  }
  const effort = body.reasoning_effort;
  return typeof effort === 'string' ? { effort: effort as ChatEffort, exclude: false } : { exclude: false };
}
