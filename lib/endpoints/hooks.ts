// The hooks the endpoints share: each checks the request head and returns what it learned.
import type { Scope } from '../config.js';
import { authenticate, requireScope } from '../auth.js';
import { validateMessagesHeaders, validateMessagesQuery } from '../dialects/index.js';
import { requireJsonContentType } from '../openai/headers.js';
import type { Hook } from './types.js';

/** The presented API key is known: `key`. */
export const auth: Hook = (head) => ({ key: authenticate(head) });

/** The key may use this endpoint (after `auth`). */
export const scope =
  (s: Scope): Hook =>
  (_head, learned) =>
    requireScope(learned, s);

/** A JSON body is declared as one (OpenAI endpoints). */
export const jsonContentType: Hook = (head) => requireJsonContentType(head.rawHeaders);

/** Messages endpoints: the query string carries only `beta`. */
export const messagesQuery: Hook = (head) => validateMessagesQuery(head.query);

/** Messages endpoints: the `anthropic-*` headers are valid: `anthropic`. */
export const messagesHeaders =
  (requireContentType: boolean): Hook =>
  (head) => ({ anthropic: validateMessagesHeaders(head.rawHeaders, ['2023-06-01', ...(head.config.anthropicVersions ?? [])], { requireContentType }) });
