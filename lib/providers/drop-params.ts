// A provider's `dropParams`: top-level request members never sent to it, whatever the client or
// the translation put there. For OpenAI-compatible third-party endpoints that refuse parameters
// OpenAI's own API takes ("Unsupported parameter: prompt_cache_key", `reasoning_effort`,
// `parallel_tool_calls`, `prompt_cache_retention`: FAILURE-MODES F64), the way LiteLLM's
// `additional_drop_params` does. Applied by dispatch to the encoded body, so it holds for every
// client dialect and translation alike; a provider without the list pays nothing.
//
// Members the gateway itself needs are refused at start: the model and conversation, the token
// ceiling the credit hold was priced on, the stream switch and the streamed usage it bills by
// (decisions §7, §8), and the tools a conversation's calls refer to.
import type { EncodedCall } from '../dialects/dialect.js';
import { memberSpans } from '../json/member-spans.js';

const NEEDED = new Set(['model', 'messages', 'input', 'stream', 'stream_options', 'max_tokens', 'max_completion_tokens', 'max_output_tokens', 'tools']);

/** Why `name` cannot be in a provider's `dropParams`, or null when it can. */
export function dropParamProblem(name: string): string | null {
  return NEEDED.has(name) ? `"${name}" cannot be dropped: the gateway needs it to route, cap or bill the request` : null;
}

/**
 * `call` without the members in `names` (the call itself when it has none of them). The members
 * kept go as their own bytes (a native body is the client's, a conversation is not serialised again):
 * only the spacing between top-level members is lost.
 */
export function withoutParams(call: EncodedCall, names: readonly string[]): EncodedCall {
  const text = typeof call.body === 'string' ? call.body : call.body.toString('utf8');
  const spans = memberSpans(text);
  if (spans === null) throw new Error('an encoded request body is not a JSON object'); // encoders write objects
  if (!names.some((name) => spans.has(name))) return call;
  const kept: string[] = [];
  for (const [key, [start, , end]] of spans.members) if (!names.includes(key)) kept.push(text.slice(start, end));
  return { ...call, body: `{${kept.join(',')}}` };
}
