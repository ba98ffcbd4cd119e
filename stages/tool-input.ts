// Whether a tool call's input, as its deltas concatenated, is a JSON object, and if not, whether
// the token limit cut it (FAILURE-MODES F5): the integrity stage's rule for tool-call blocks.
import type { JsonValue } from '../lib/chunks.js';
import type { GatewayError } from '../lib/errors.js';
import { errors } from '../lib/errors/index.js';
import { parseChecked } from '../lib/json/checked-parse.js';
import { JsonSyntaxError } from '../lib/json/strict-parse.js';

/** GW_ERR_INTEGRITY: the provider's answer broke a rule (inference had begun) */
const fail = (detail: string, cause?: unknown): GatewayError => errors.integrity(detail, cause);

/**
 * Why a block's tool input is not a JSON object, if it is not; `cut`: the text ends before its JSON
 * does (the parser fails at its very end), as arguments cut by the token limit do.
 */
export function toolInputError(json: string, index: number): { error: GatewayError; cut: boolean } | undefined {
  if (json === '') return undefined; // no argument at all: the input is {}
  let value: JsonValue;
  try {
    value = parseChecked(json);
  } catch (err) {
    const syntax = err instanceof JsonSyntaxError;
    const reason = syntax ? `${err.reason} at ${err.path || '(root)'}` : 'unreadable';
    return { error: fail(`tool input of block ${index} is not valid JSON: ${reason}`, err), cut: syntax && err.offset === Buffer.byteLength(json) };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { error: fail(`tool input of block ${index} is not a JSON object`), cut: false };
  return undefined;
}
