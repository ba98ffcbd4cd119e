// A provider's "the prompt does not fit the context window" error, recognised whatever its words,
// and restated in the words each client acts on. Claude Code compacts on Anthropic's
// "prompt is too long: N tokens > M maximum"; OpenCode and Codex on `code: "context_length_exceeded"`.
// Passed on in another provider's words (OpenAI's "maximum context length", vLLM's numeric
// `code: 400`), a client has nothing to act on and retries the same request (FAILURE-MODES F57).
import type { UpstreamErrorInfo } from '../errors.js';

const OVERFLOW_WORDS = /prompt is too long|maximum context length|context window|context[_ ]length[_ ]exceeded|exceeds? (?:the )?(?:model'?s? )?(?:context|max(?:imum)? (?:input|prompt))|too many (?:input |prompt )?tokens/i;

/** A provider's refusal of a prompt too long for the model. */
export function isContextOverflow(up: UpstreamErrorInfo | undefined): boolean {
  if (up === undefined || (up.status !== 400 && up.status !== 413)) return false;
  return up.type === 'context_length_exceeded' || OVERFLOW_WORDS.test(up.message);
}

/**
 * Anthropic's wording for it: the provider's own figures when its message has them
 * ("resulted in 130532 tokens" / "maximum context length is 128000 tokens"), else its message after
 * the words Claude Code looks for.
 */
export function anthropicOverflowMessage(message: string): string {
  if (/^prompt is too long/i.test(message)) return message;
  const limit = /maximum context length is (\d+)|context (?:window|length) (?:is |of )?(\d+)/i.exec(message);
  const used = /resulted in (\d+) tokens|requested (\d+) tokens|(\d+) in the messages/i.exec(message);
  const max = limit?.[1] ?? limit?.[2];
  const tokens = used?.[3] ?? used?.[1] ?? used?.[2];
  if (max !== undefined && tokens !== undefined) return `prompt is too long: ${tokens} tokens > ${max} maximum`;
  return `prompt is too long: ${message}`;
}
