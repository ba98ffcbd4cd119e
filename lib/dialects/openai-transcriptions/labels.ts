// The `gateway` and `metadata` form fields (JSON-object strings) and the two labels stored on the
// usage record.
//
// Precedence is per key: `call_name` = gateway.call_name, else metadata.call_name, else the legacy
// top-level `call_name` field; `end_user_id` = gateway.end_user_id, else metadata.end_user_id. A key
// whose value is JSON null counts as absent. Only the value that wins is validated (the others are
// not stored): a string, not empty or whitespace-only, at most 64 (call_name) or 512 (end_user_id)
// characters (Unicode code points).
//
// `gateway` accepts `call_name`, `end_user_id` and the reserved keys `memory`, `eval`, `policy`
// (parsed as JSON and ignored); any other key is refused (400 invalid_request naming it), so a typo
// such as `callName` is caught instead of silently dropping the label. `metadata` accepts any keys;
// only the two labels are read.
import type { JsonObject, JsonValue } from '../../chunks.js';
import type { ErrorFactory } from '../../errors.js';
import { errors } from '../../errors/index.js';
import { parseStrict } from '../../json/strict-parse.js';

export const CALL_NAME_MAX = 64;
export const END_USER_ID_MAX = 512;
export const GATEWAY_KEYS: readonly string[] = ['call_name', 'end_user_id'];
export const GATEWAY_RESERVED_KEYS: readonly string[] = ['memory', 'eval', 'policy'];

export interface Labels {
  callName?: string;
  endUserId?: string;
}

function kindOf(v: JsonValue): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  return `a ${typeof v}`;
}

/** A `gateway` or `metadata` form value: a JSON object (400 invalid_request naming the field otherwise). */
export function parseObjectField(name: 'gateway' | 'metadata', value: string): JsonObject {
  let parsed: JsonValue;
  try {
    parsed = parseStrict(value);
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    throw errors.labelsNotJson(name, why);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw errors.labelsNotObject(name, kindOf(parsed));
  }
  if (name === 'gateway') {
    for (const key of Object.keys(parsed)) {
      if (!GATEWAY_KEYS.includes(key) && !GATEWAY_RESERVED_KEYS.includes(key)) {
        throw errors.gatewayKeyUnknown(key, GATEWAY_KEYS, GATEWAY_RESERVED_KEYS);
      }
    }
  }
  return parsed;
}

interface Candidate {
  value: JsonValue;
  /** where it came from: `gateway.call_name`, `metadata.end_user_id`, `call_name` */
  from: string;
}

function pick(key: string, gateway: JsonObject | null, metadata: JsonObject | null): Candidate | null {
  for (const [name, obj] of [['gateway', gateway], ['metadata', metadata]] as const) {
    if (obj !== null && Object.hasOwn(obj, key) && obj[key] !== null) return { value: obj[key]!, from: `${name}.${key}` };
  }
  return null;
}

function checkLabel(c: Candidate, max: number, labelInvalid: ErrorFactory<[path: string, problem: string]>): string {
  const fail = (why: string): never => {
    throw labelInvalid(c.from, why);
  };
  if (typeof c.value !== 'string') return fail(`must be a string, got ${kindOf(c.value)}.`);
  if (c.value.trim() === '') return fail('must not be empty or whitespace-only.');
  const length = [...c.value].length;
  if (length > max) return fail(`must be at most ${max} characters, got ${length}.`);
  return c.value;
}

export function resolveLabels(gateway: JsonObject | null, metadata: JsonObject | null, topLevelCallName: string | null): Labels {
  const labels: Labels = {};
  const call = pick('call_name', gateway, metadata) ?? (topLevelCallName !== null ? { value: topLevelCallName, from: 'call_name' } : null);
  if (call !== null) labels.callName = checkLabel(call, CALL_NAME_MAX, errors.callNameInvalid);
  const user = pick('end_user_id', gateway, metadata);
  if (user !== null) labels.endUserId = checkLabel(user, END_USER_ID_MAX, errors.endUserIdInvalid);
  return labels;
}
