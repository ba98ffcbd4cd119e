// `messages`: roles, per-role content, and the per-turn `output_config` of inline system messages.
import { invalid } from '../../errors.js';
import type { JsonValue } from '../../chunks.js';
import { validateContent } from './validate-blocks.js';
import { validateTurnOutputConfig } from './validate-thinking.js';
import { arr, fields, obj, oneOf, rejectUnknown, type Scan } from './validate-util.js';

export const MAX_MESSAGES = 100_000;
const ROLES = ['user', 'assistant', 'system'] as const;
const MESSAGE = fields('role', 'content');
const SYSTEM_MESSAGE = fields('role', 'content', 'output_config');

/**
 * Validates `messages` in order (a `tool_result` must follow the assistant `tool_use` it answers).
 * Returns the number of messages.
 */
export function validateMessages(v: JsonValue | undefined, scan: Scan): number {
  const list = arr(v, 'messages');
  if (list.length === 0) throw invalid('messages', 'must contain at least one message');
  if (list.length > MAX_MESSAGES) throw invalid('messages', `must contain at most ${MAX_MESSAGES} messages, got ${list.length}`);
  for (let i = 0; i < list.length; i++) {
    const path = `messages[${i}]`;
    const m = obj(list[i], path);
    const role = oneOf(m.role, `${path}.role`, ROLES);
    if (role === 'system') {
      rejectUnknown(m, SYSTEM_MESSAGE, path);
      if (m.output_config !== undefined) validateTurnOutputConfig(m.output_config, `${path}.output_config`, scan);
    } else {
      rejectUnknown(m, MESSAGE, path);
    }
    // an assistant turn may be empty: a prefill, or an answer with no content block (a refusal, a
    // cut) sent back as the gateway returned it (decisions §10; anthropicNative drops it)
    validateContent(m.content, `${path}.content`, role, scan, role === 'assistant');
  }
  return list.length;
}
