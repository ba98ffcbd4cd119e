// Shared by the validate*.test.ts files: base requests, a one-mutation case table runner, and the
// assertion that a GatewayError has the expected code, status and path prefix.
import type { Test } from 'tap';
import type { CanonicalRequest, JsonObject, JsonValue } from '../../../lib/chunks.js';
import { GatewayError, statusOf, type ErrorCode } from '../../../lib/errors.js';
import type { MessagesHeaderInfo } from '../../../lib/dialects/anthropic/headers.js';
import { validateMessagesRequest, type ValidateOptions } from '../../../lib/dialects/anthropic/validate.js';

export function header(betas: string[] = []): MessagesHeaderInfo {
  return { version: '2023-06-01', betas, sessionId: undefined, forward: {} };
}

/** The smallest valid request. */
export function base(): JsonObject {
  return { model: 'claude-opus-5', max_tokens: 4096, messages: [{ role: 'user', content: 'hi' }] };
}

/** A valid tool round trip: user, assistant tool_use, user tool_result. */
export function toolBase(): JsonObject {
  return {
    model: 'claude-opus-5',
    max_tokens: 4096,
    tools: [{ name: 'get_weather', description: 'Weather', input_schema: { type: 'object', properties: {} } }],
    messages: [
      { role: 'user', content: [{ type: 'text', text: 'weather?' }] },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Let me look.' },
          { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Paris' } },
        ],
      },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'sunny' }] },
    ],
  };
}

export function validate(body: JsonValue, betas: string[] = [], extra: Partial<ValidateOptions> = {}): CanonicalRequest {
  return validateMessagesRequest(body, header(betas), { betas, ...extra });
}

/** Runs `fn` and returns the GatewayError it throws (fails the test when it throws nothing). */
export function thrown(fn: () => unknown): GatewayError {
  try {
    fn();
  } catch (err) {
    if (GatewayError.is(err)) return err;
    throw err;
  }
  throw new Error('expected a GatewayError, nothing was thrown');
}

/** Asserts code, status and that the message starts with the path (after `capability_rejected: `). */
export function assertError(t: Test, err: GatewayError, code: ErrorCode, path: string, contains?: string): void {
  t.equal(err.code, code, 'code');
  t.equal(err.status, statusOf(code), 'status');
  const prefix = code === 'GW_ERR_CAPABILITY_REJECTED' ? `capability_rejected: ${path}: ` : `${path}: `;
  t.ok(err.message.startsWith(prefix), `message starts with "${prefix}": ${err.message}`);
  if (contains !== undefined) t.ok(err.message.includes(contains), `message contains "${contains}"`);
}

export interface Case {
  name: string;
  /** the request to start from (default: base()) */
  from?: () => JsonObject;
  /** one mutation of the valid request */
  mutate: (b: JsonObject) => void;
  betas?: string[];
  opts?: Partial<ValidateOptions>;
  /** expected error; omitted: the mutated request must be valid */
  code?: ErrorCode;
  path?: string;
  contains?: string;
}

export const INVALID: ErrorCode = 'GW_ERR_REQUEST_INVALID';
export const REJECTED: ErrorCode = 'GW_ERR_CAPABILITY_REJECTED';

/** Runs a table: every base must validate, each case applies its one mutation. */
export function runCases(t: Test, cases: Case[]): void {
  for (const c of cases) {
    t.test(c.name, async (t) => {
      const body = (c.from ?? base)();
      t.doesNotThrow(() => validate((c.from ?? base)(), c.betas ?? [], c.opts ?? {}), 'base is valid');
      c.mutate(body);
      if (c.code === undefined) {
        t.doesNotThrow(() => validate(body, c.betas ?? [], c.opts ?? {}), 'mutated request is valid');
        return;
      }
      assertError(t, thrown(() => validate(body, c.betas ?? [], c.opts ?? {})), c.code, c.path ?? '', c.contains);
    });
  }
}

/** `o` at a path of keys and indexes, as an object (for mutations). */
export function at(o: JsonValue, ...keys: (string | number)[]): JsonObject {
  let cur: JsonValue = o;
  for (const k of keys) {
    const next: JsonValue | undefined = typeof k === 'number' ? (cur as JsonValue[])[k] : (cur as JsonObject)[k];
    if (next === undefined) throw new Error(`no ${String(k)} in path`);
    cur = next;
  }
  return cur as JsonObject;
}

export function list(o: JsonValue, ...keys: (string | number)[]): JsonValue[] {
  return at(o, ...keys) as unknown as JsonValue[];
}
