// The one table of `anthropic-beta` ids the gateway knows, and the body fields each one unlocks.
//
// Rules (decisions §8, §9.1): fields of the spec's Messages request tables need no beta, except
// `speed: "fast"`, `output_config.task_budget` and `diagnostics`; fields outside those tables are
// accepted only with the beta that unlocks them. Every beta id, known or not, is forwarded in order
// to `anthropic` deployments; an unknown id is never rejected by itself. Forwarding a beta does not
// implement a body field: the validators check each field against this table.
import { capabilityRejected, type GatewayError } from '../../errors.js';

/** The betas that gate body fields, by role. */
export const BETA = {
  fastMode: 'fast-mode-2026-02-01',
  taskBudgets: 'task-budgets-2026-03-13',
  cacheDiagnosis: 'cache-diagnosis-2026-04-07',
  perTurnControl: 'per-turn-control-2026-07-01',
  dangerousToolUse: 'dangerous-tool-use-2026-09-03',
  thinkingDisplayUpdates: 'thinking-display-updates-2026-08-18',
} as const;

export type GatingBeta = (typeof BETA)[keyof typeof BETA];

export interface KnownBeta {
  /** body fields (paths, with the value when only one value is gated) this beta unlocks */
  readonly unlocks: readonly string[];
  readonly note: string;
}

const gate = (unlocks: string[], note: string): KnownBeta => ({ unlocks, note });
const known = (note: string): KnownBeta => ({ unlocks: [], note });

export const KNOWN_BETAS: ReadonlyMap<string, KnownBeta> = new Map<string, KnownBeta>([
  // betas that unlock body fields
  [BETA.fastMode, gate(['speed: "fast"'], 'fast output mode')],
  [BETA.taskBudgets, gate(['output_config.task_budget'], 'agentic task budget')],
  [BETA.cacheDiagnosis, gate(['diagnostics'], 'prompt-cache miss diagnosis')],
  [BETA.perTurnControl, gate(['messages[i].output_config (role "system")'], 'per-turn effort on inline system messages')],
  [BETA.dangerousToolUse, gate(['safeguards'], 'auto-mode tool-use classifier context')],
  [BETA.thinkingDisplayUpdates, gate(['thinking.display: "updates"'], 'thinking progress updates')],
  // betas Claude Code 2.1.330 sends (clients/REPORT.md §1.3) and other common ones: known, they
  // unlock no body field here (their fields are in the spec's tables or are response-side only)
  ['claude-code-20250219', known('Claude Code client marker')],
  ['interleaved-thinking-2025-05-14', known('thinking between tool calls')],
  ['context-management-2025-06-27', known('context_management edits (a spec field: no beta needed)')],
  ['mid-conversation-tool-changes-2026-07-01', known('tools may change between turns')],
  ['thinking-token-count-2026-05-13', known('thinking token usage reporting')],
  ['advanced-tool-use-2025-11-20', known('defer_loading, input_examples, allowed_callers (spec fields)')],
  ['effort-2025-11-24', known('output_config.effort (a spec field: no beta needed)')],
  ['afk-mode-2026-01-31', known('Claude Code away-from-keyboard mode')],
  ['fallback-credit-2026-06-01', known('Claude Code fallback credit')],
  ['oauth-2025-04-20', known('OAuth bearer tokens')],
  ['extended-cache-ttl-2025-04-11', known('cache_control.ttl "1h" (a spec field: no beta needed)')],
  ['tool-search-tool-2025-10-19', known('tool search hosted tools (spec tools)')],
  ['token-counting-2024-11-01', known('count_tokens endpoint')],
  ['redact-thinking-2026-02-12', known('redacted thinking output')],
  ['structured-outputs-2025-11-13', known('output_config.format (a spec field: no beta needed)')],
  ['structured-outputs-2025-12-15', known('output_config.format (a spec field: no beta needed)')],
  ['fine-grained-tool-streaming-2025-05-14', known('tool input streaming (eager_input_streaming)')],
]);

export function isKnownBeta(id: string): boolean {
  return KNOWN_BETAS.has(id);
}

/** Anthropic's own wording for a refused beta: Claude Code drops exactly the named beta and retries. */
export function unexpectedBetaWording(beta: string): string {
  return `Unexpected value(s) \`${beta}\` for the \`anthropic-beta\` header`;
}

/**
 * 400 `capability_rejected:` for a beta-gated field sent without its beta. `what` names the value
 * or field (`the value "fast"`, `this field`).
 */
export function betaMissing(path: string, beta: GatingBeta, what: string): GatewayError {
  return capabilityRejected(
    path,
    `${what} needs the beta \`${beta}\` in the \`anthropic-beta\` header, and the request does not carry it. ` +
      `Send the beta together with the field, or remove the field. ${unexpectedBetaWording(beta)}.`,
  );
}

/**
 * 400 `capability_rejected:` for a beta-gated field the chosen model or deployment cannot honour
 * (used after routing). The client should drop the beta together with its field, or pin a model.
 */
export function betaUnsupported(path: string, beta: string, reason: string): GatewayError {
  return capabilityRejected(
    path,
    `${reason}. Remove the field and the beta \`${beta}\`, or pin a model that supports it. ${unexpectedBetaWording(beta)}.`,
  );
}

/** Throws unless `betas` carries `beta`. */
export function requireBeta(betas: ReadonlySet<string>, beta: GatingBeta, path: string, what: string): void {
  if (!betas.has(beta)) throw betaMissing(path, beta, what);
}
