// Request parameters both OpenAI client dialects (Chat Completions, Responses) validate the same
// way: "given" (an explicit null means omitted, as OpenAI's API treats it) and `metadata` with the
// gateway's `call_name` label. One definition, so the two endpoints cannot drift apart.
import type { JsonValue } from '../chunks.js';
import { invalid } from '../errors.js';
import { errors } from '../errors/index.js';
import { kind, obj, shorten, str } from '../validate/checks.js';

/** true when the optional parameter was given (null counts as omitted) */
export function given(v: JsonValue | undefined): v is Exclude<JsonValue, null> {
  return v !== undefined && v !== null;
}

const MAX_METADATA_PAIRS = 16;
const MAX_METADATA_KEY = 64;
const MAX_METADATA_VALUE = 512;
const MAX_CALL_NAME = 64;

/** `metadata`: up to 16 string pairs; returns the `call_name` label when given. */
export function validateMetadata(v: JsonValue): string | undefined {
  const metadata = obj(v, 'metadata');
  let callName: string | undefined;
  let pairs = 0;
  for (const key in metadata) {
    const value = metadata[key] as JsonValue;
    if (++pairs > MAX_METADATA_PAIRS) throw invalid('metadata', `must hold at most ${MAX_METADATA_PAIRS} key-value pairs`);
    if (key === 'call_name') {
      callName = validateCallName(value);
      continue;
    }
    if (key.length > MAX_METADATA_KEY) throw invalid('metadata', `key "${shorten(key)}" is longer than ${MAX_METADATA_KEY} characters`);
    if (key.length === 0) throw invalid('metadata', 'keys must be non-empty');
    str(value, `metadata.${key}`, 0, MAX_METADATA_VALUE);
  }
  return callName;
}

function validateCallName(v: JsonValue): string {
  if (typeof v === 'string' && v.trim() !== '' && v.length <= MAX_CALL_NAME) return v;
  const problem =
    typeof v !== 'string' ? `must be a string, got ${kind(v)}`
    : v.trim() === '' ? 'must not be empty or whitespace only'
    : `must be at most ${MAX_CALL_NAME} characters, got ${v.length}`;
  throw errors.callNameInvalid('metadata.call_name', problem);
}
