// The request's members as a Responses client's Response echoes them (client-encode-writer.ts):
// each value's JSON text, and the instructions' text reused from a Responses upstream's
// `response.created` when it is the very text JSON.stringify writes for them.
import type { JsonValue, NativeFrame, Usage } from '../../chunks.js';
import { isObject } from '../../json/values.js';

/**
 * `tools` as echoed: a function tool in its normalised form (`description`, `parameters` and
 * `strict` always present; a missing `strict` reads false, as the gateway sends it upstream), other
 * tools as given.
 */
export function echoedTools(tools: JsonValue | undefined): JsonValue[] {
  if (!Array.isArray(tools)) return [];
  return tools.map((t) => {
    if (typeof t !== 'object' || t === null || Array.isArray(t) || t.type !== 'function') return t;
    return { ...t, description: t.description ?? null, parameters: t.parameters ?? null, strict: t.strict ?? false };
  });
}

/**
 * a character JSON.stringify writes escaped: a quote, a backslash, a control character; or a
 * surrogate (it escapes a lone one; a string with a pair is left to JSON.stringify too)
 */
const ESCAPED = /["\\\u0000-\u001f\ud800-\udfff]/;

/**
 * JSON.stringify(v) of a member's value (every member of `response()` has one: none is undefined);
 * the members are written into templates one by one, which costs less than JSON.stringify of an
 * object of them (about 1.0 against 1.6 µs for the request's runs, Node 20). A string with no
 * character JSON.stringify escapes is that string in quotes, and an empty object or array its two
 * brackets: JSON.stringify's own text, without its call (about 1,500 instructions each).
 */
export function jsonOf(v: JsonValue): string {
  switch (typeof v) {
    case 'string':
      return ESCAPED.test(v) ? JSON.stringify(v) : `"${v}"`;
    case 'boolean':
      return v ? 'true' : 'false';
    case 'number':
      return Number.isFinite(v) ? String(v) : 'null'; // JSON.stringify's own rule
    default:
      if (v === null) return 'null';
      if (Array.isArray(v)) return v.length === 0 ? '[]' : JSON.stringify(v);
      return isEmpty(v) ? '{}' : JSON.stringify(v);
  }
}

/** an object with no own enumerable string key: what JSON.stringify writes as `{}` */
function isEmpty(o: object): boolean {
  for (const key in o) if (Object.hasOwn(o, key)) return false;
  return true;
}

/**
 * In a JSON string that decodes to a value, what JSON.stringify of that value would not write: a
 * `\/` or `\u` escape (it writes `\"`, `\\`, `\b`, `\f`, `\n`, `\r`, `\t` and `\u00xx` for the other
 * control characters, which a JSON text cannot hold raw), or a surrogate (it escapes a lone one; a
 * pair is let through to JSON.stringify too). Without these, the text is JSON.stringify's.
 */
const NOT_STRINGIFIED = /\\[u/]|[\ud800-\udfff]/;

/**
 * The instructions `value` as JSON text, taken from the `response.created` frame of a Responses
 * upstream when it echoed that very value and wrote it as JSON.stringify does (its decoder keeps
 * where the text lies: events.ts, echoed-instructions.ts); else undefined. About 3 µs instead of
 * 13 µs for Codex's 12.5 KB of instructions.
 */
export function upstreamInstructionsJson(created: NativeFrame | undefined, value: JsonValue | undefined): string | undefined {
  if (typeof value !== 'string' || created === undefined || created.dialect !== 'openai-responses' || created.event !== 'response.created') return undefined;
  const kept = created.kept;
  const response = created.parsed.response;
  if (kept === undefined || !isObject(response) || response.instructions !== value) return undefined;
  const text = created.data.slice(kept[0], kept[1]);
  return NOT_STRINGIFIED.test(text) ? undefined : text;
}

/** the Response's `text` when the request gives none (or an empty object): JSON.stringify({ format: { type: 'text' } }) */
const TEXT_DEFAULT = '{"format":{"type":"text"}}';

/**
 * The three runs of the request's members a streamed Response event writes (ResponseWriter.json's
 * `fixed`), built from the request body directly, once a stream: each value is the one `response()`
 * gives that member (the same `??` defaults, tools through echoedTools, `text` over its default
 * format), serialised by jsonOf, so the text is JSON.stringify's of response()'s members without
 * building the Response object for each event. `instructionsJson`: upstreamInstructionsJson's text.
 */
export function echoedRuns(
  body: Readonly<Record<string, JsonValue | undefined>>, model: string, effort: string | undefined, summary: string | undefined, instructionsJson: string | undefined,
): [string, string, string] {
  const text = body.text;
  const textJson = isObject(text) && !isEmpty(text) ? JSON.stringify({ format: { type: 'text' }, ...text }) : TEXT_DEFAULT;
  const reasoning = `{"effort":${effort === undefined ? 'null' : jsonOf(effort)},"summary":${summary === undefined ? 'null' : jsonOf(summary)}}`;
  return [
    `"instructions":${instructionsJson ?? jsonOf(body.instructions ?? null)},"max_output_tokens":${jsonOf(body.max_output_tokens ?? null)},"max_tool_calls":${jsonOf(body.max_tool_calls ?? null)},"model":${jsonOf(model)}`,
    `"parallel_tool_calls":${jsonOf(body.parallel_tool_calls ?? true)},"previous_response_id":null,"prompt_cache_key":${jsonOf(body.prompt_cache_key ?? null)}` +
      `,"reasoning":${reasoning},"safety_identifier":${jsonOf(body.safety_identifier ?? null)},"service_tier":null,"store":false` +
      `,"temperature":${jsonOf(body.temperature ?? 1)},"presence_penalty":0,"frequency_penalty":0` +
      `,"text":${textJson},"tool_choice":${jsonOf(body.tool_choice ?? 'auto')},"tools":${Array.isArray(body.tools) ? jsonOf(echoedTools(body.tools)) : '[]'},"top_logprobs":${jsonOf(body.top_logprobs ?? 0)}` +
      `,"top_p":${jsonOf(body.top_p ?? 1)},"truncation":"disabled"`,
    `"user":${jsonOf(body.user ?? null)},"metadata":${jsonOf(body.metadata ?? {})}`,
  ];
}

/**
 * JSON.stringify of the Response's usage (ResponseWriter.usage()) of `u`, through a template of its
 * numbers: String(n) is JSON.stringify's text of a finite number; undefined when one is not finite
 * (JSON.stringify writes null: the object's path). A finite total means finite input and output.
 */
export function usageJson(u: Usage): string | undefined {
  const input = u.input + u.cacheRead + u.cacheWrite;
  const total = input + u.output;
  if (!Number.isFinite(total) || !Number.isFinite(u.cacheRead) || !Number.isFinite(u.reasoning)) return undefined;
  return `{"input_tokens":${input},"input_tokens_details":{"cached_tokens":${u.cacheRead}},"output_tokens":${u.output},"output_tokens_details":{"reasoning_tokens":${u.reasoning}},"total_tokens":${total}}`;
}
