// `thinking`, `output_config` (effort, format, task_budget) and the per-turn `output_config` of an
// inline system message, with their cross-field rules (decisions §9.1–§9.3).
import { invalid } from '../../errors.js';
import type { JsonValue } from '../../chunks.js';
import { BETA, requireBeta } from './betas.js';
import { bool, fields, int, obj, oneOf, rejectUnknown, str, jsonBytes, type Scan } from './validate-util.js';

export const EFFORTS = ['low', 'medium', 'high', 'xhigh', 'max', 'minimal'] as const;
export const MIN_THINKING_BUDGET = 1024;
export const MIN_TASK_BUDGET = 20000;

const DISABLED = fields('type');
const ADAPTIVE = fields('type', 'display');
const ENABLED = fields('type', 'budget_tokens', 'display');
const OUTPUT_CONFIG = fields('effort', 'format', 'task_budget');
const TURN_OUTPUT_CONFIG = fields('effort');
const FORMAT = fields('type', 'schema', 'name', 'strict');
const TASK_BUDGET = fields('type', 'total', 'remaining');

/** `thinking`; sets `scan.thinkingType`. `maxTokens` is null on count_tokens without max_tokens. */
export function validateThinking(v: JsonValue, maxTokens: number | null, scan: Scan): void {
  const t = obj(v, 'thinking');
  const type = oneOf(t.type, 'thinking.type', ['disabled', 'adaptive', 'enabled']);
  rejectUnknown(t, type === 'disabled' ? DISABLED : type === 'adaptive' ? ADAPTIVE : ENABLED, 'thinking');
  scan.thinkingType = type;
  if (type === 'enabled') {
    const budget = int(t.budget_tokens, 'thinking.budget_tokens', MIN_THINKING_BUDGET);
    if (maxTokens !== null && budget >= maxTokens) {
      throw invalid(
        'thinking.budget_tokens',
        `must be lower than max_tokens (${maxTokens}), got ${budget}. Raise max_tokens or lower the budget`,
      );
    }
  }
  if (t.display !== undefined) {
    const display = oneOf(t.display, 'thinking.display', ['summarized', 'omitted', 'updates']);
    if (display === 'updates') requireBeta(scan.betas, BETA.thinkingDisplayUpdates, 'thinking.display', 'the value "updates"');
  }
}

/** Top-level `output_config`. Call after validateThinking. */
export function validateOutputConfig(v: JsonValue, scan: Scan): void {
  const o = obj(v, 'output_config');
  rejectUnknown(o, OUTPUT_CONFIG, 'output_config');
  if (o.effort !== undefined) effort(o.effort, 'output_config.effort', scan);
  if (o.format !== undefined) {
    const f = obj(o.format, 'output_config.format');
    rejectUnknown(f, FORMAT, 'output_config.format');
    oneOf(f.type, 'output_config.format.type', ['json_schema']);
    const schema = obj(f.schema, 'output_config.format.schema');
    if (f.name !== undefined) str(f.name, 'output_config.format.name', 1);
    if (f.strict !== undefined) bool(f.strict, 'output_config.format.strict');
    scan.bytes += jsonBytes(schema);
  }
  if (o.task_budget !== undefined) {
    const p = 'output_config.task_budget';
    requireBeta(scan.betas, BETA.taskBudgets, p, 'this field');
    const b = obj(o.task_budget, p);
    rejectUnknown(b, TASK_BUDGET, p);
    oneOf(b.type, `${p}.type`, ['tokens']);
    const total = int(b.total, `${p}.total`, MIN_TASK_BUDGET);
    if (b.remaining !== undefined) int(b.remaining, `${p}.remaining`, 0, total);
  }
}

/** `output_config` of an inline `system` message (beta `per-turn-control-2026-07-01`): only `effort`. */
export function validateTurnOutputConfig(v: JsonValue, path: string, scan: Scan): void {
  requireBeta(scan.betas, BETA.perTurnControl, path, '`output_config` on an inline system message');
  const o = obj(v, path);
  rejectUnknown(o, TURN_OUTPUT_CONFIG, path);
  if (o.effort !== undefined) effort(o.effort, `${path}.effort`, scan);
}

function effort(v: JsonValue, path: string, scan: Scan): void {
  oneOf(v, path, EFFORTS);
  // decisions §9.2: only an explicit `disabled` or a manual budget conflicts with an effort
  if (scan.thinkingType === 'disabled' || scan.thinkingType === 'enabled') {
    throw invalid(
      path,
      `cannot be combined with thinking.type "${scan.thinkingType}". Remove the effort, or use thinking {"type": "adaptive"}`,
    );
  }
  scan.effort = true;
}

/** decisions §9.3: forced tool use (`any`, `tool`) is incompatible with manually budgeted thinking. */
export function checkForcedToolUse(toolChoiceType: string | undefined, scan: Scan): void {
  if ((toolChoiceType === 'any' || toolChoiceType === 'tool') && scan.thinkingType === 'enabled') {
    throw invalid(
      'tool_choice.type',
      `"${toolChoiceType}" forces tool use, which cannot be combined with thinking.type "enabled". ` +
        'Use tool_choice {"type": "auto"}, or thinking {"type": "adaptive"} or {"type": "disabled"}',
    );
  }
}
