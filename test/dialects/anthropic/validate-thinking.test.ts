// thinking, output_config (effort, format, task_budget), per-turn output_config, forced tool use.
import t from 'tap';
import type { JsonObject, JsonValue } from '../../../lib/chunks.js';
import { EFFORTS } from '../../../lib/dialects/anthropic/validate-thinking.js';
import { INVALID, REJECTED, at, runCases, toolBase, type Case } from './validate-harness.js';

const set = (key: string, value: JsonValue) => (b: JsonObject) => {
  b[key] = value;
};
const both = (thinking: JsonValue, outputConfig: JsonValue) => (b: JsonObject) => {
  b.thinking = thinking;
  b.output_config = outputConfig;
};
const UPDATES = 'thinking-display-updates-2026-08-18';
const TASK = 'task-budgets-2026-03-13';
const TURN = 'per-turn-control-2026-07-01';

/** Claude Code's new-conversation shape: [user, system with per-turn output_config]. */
function turnBase(): JsonObject {
  return {
    model: 'claude-opus-5',
    max_tokens: 4096,
    thinking: { type: 'adaptive' },
    messages: [
      { role: 'user', content: [{ type: 'text', text: 'say hi' }] },
      { role: 'system', content: [{ type: 'text', text: '# Environment', cache_control: { type: 'ephemeral' } }] },
    ],
  };
}
const turn = (value: JsonValue) => (b: JsonObject) => {
  at(b, 'messages', 1).output_config = value;
};

const cases: Case[] = [
  // thinking
  { name: 'disabled', mutate: set('thinking', { type: 'disabled' }) },
  { name: 'disabled with budget', mutate: set('thinking', { type: 'disabled', budget_tokens: 2048 }), code: INVALID, path: 'thinking.budget_tokens' },
  { name: 'adaptive', mutate: set('thinking', { type: 'adaptive' }) },
  { name: 'adaptive summarized', mutate: set('thinking', { type: 'adaptive', display: 'summarized' }) },
  { name: 'adaptive omitted', mutate: set('thinking', { type: 'adaptive', display: 'omitted' }) },
  { name: 'adaptive with budget', mutate: set('thinking', { type: 'adaptive', budget_tokens: 2048 }), code: INVALID, path: 'thinking.budget_tokens' },
  { name: 'display updates without beta', mutate: set('thinking', { type: 'adaptive', display: 'updates' }), code: REJECTED, path: 'thinking.display', contains: `\`${UPDATES}\` for the \`anthropic-beta\` header` },
  { name: 'display updates with beta', mutate: set('thinking', { type: 'adaptive', display: 'updates' }), betas: [UPDATES] },
  { name: 'display unknown', mutate: set('thinking', { type: 'adaptive', display: 'full' }), code: INVALID, path: 'thinking.display' },
  { name: 'enabled', mutate: set('thinking', { type: 'enabled', budget_tokens: 2048, display: 'omitted' }) },
  { name: 'enabled without budget', mutate: set('thinking', { type: 'enabled' }), code: INVALID, path: 'thinking.budget_tokens' },
  { name: 'enabled budget 1023', mutate: set('thinking', { type: 'enabled', budget_tokens: 1023 }), code: INVALID, path: 'thinking.budget_tokens' },
  { name: 'enabled budget equal to max_tokens', mutate: set('thinking', { type: 'enabled', budget_tokens: 4096 }), code: INVALID, path: 'thinking.budget_tokens', contains: 'lower than max_tokens' },
  { name: 'enabled budget 4095', mutate: set('thinking', { type: 'enabled', budget_tokens: 4095 }) },
  { name: 'enabled budget string', mutate: set('thinking', { type: 'enabled', budget_tokens: '2048' }), code: INVALID, path: 'thinking.budget_tokens' },
  {
    name: 'enabled on count_tokens without max_tokens',
    mutate: (b) => {
      delete b.max_tokens;
      b.thinking = { type: 'enabled', budget_tokens: 50000 };
    },
    opts: { countTokens: true },
  },
  { name: 'thinking type unknown', mutate: set('thinking', { type: 'on' }), code: INVALID, path: 'thinking.type' },
  { name: 'thinking not an object', mutate: set('thinking', true), code: INVALID, path: 'thinking' },
  // effort
  ...EFFORTS.map((e): Case => ({ name: `effort ${e}`, mutate: set('output_config', { effort: e }) })),
  { name: 'effort unknown', mutate: set('output_config', { effort: 'extreme' }), code: INVALID, path: 'output_config.effort' },
  { name: 'effort with disabled', mutate: both({ type: 'disabled' }, { effort: 'low' }), code: INVALID, path: 'output_config.effort', contains: 'disabled' },
  { name: 'effort with enabled', mutate: both({ type: 'enabled', budget_tokens: 2048 }, { effort: 'low' }), code: INVALID, path: 'output_config.effort' },
  { name: 'effort with adaptive', mutate: both({ type: 'adaptive' }, { effort: 'max' }) },
  { name: 'output_config empty', mutate: set('output_config', {}) },
  { name: 'output_config unknown key', mutate: set('output_config', { verbosity: 'low' }), code: INVALID, path: 'output_config.verbosity' },
  { name: 'output_config not an object', mutate: set('output_config', 'high'), code: INVALID, path: 'output_config' },
  // format
  {
    name: 'format json_schema',
    mutate: set('output_config', { effort: 'medium', format: { type: 'json_schema', schema: { type: 'object', properties: { title: { type: 'string' } }, required: ['title'], additionalProperties: false } } }),
  },
  { name: 'format with name and strict', mutate: set('output_config', { format: { type: 'json_schema', schema: {}, name: 'x', strict: true } }) },
  { name: 'format type', mutate: set('output_config', { format: { type: 'json_object', schema: {} } }), code: INVALID, path: 'output_config.format.type' },
  { name: 'format schema missing', mutate: set('output_config', { format: { type: 'json_schema' } }), code: INVALID, path: 'output_config.format.schema' },
  { name: 'format schema array', mutate: set('output_config', { format: { type: 'json_schema', schema: [] } }), code: INVALID, path: 'output_config.format.schema' },
  { name: 'format name empty', mutate: set('output_config', { format: { type: 'json_schema', schema: {}, name: '' } }), code: INVALID, path: 'output_config.format.name' },
  { name: 'format strict string', mutate: set('output_config', { format: { type: 'json_schema', schema: {}, strict: 'yes' } }), code: INVALID, path: 'output_config.format.strict' },
  { name: 'format unknown key', mutate: set('output_config', { format: { type: 'json_schema', schema: {}, json_schema: {} } }), code: INVALID, path: 'output_config.format.json_schema' },
  // task_budget
  { name: 'task_budget without beta', mutate: set('output_config', { task_budget: { type: 'tokens', total: 20000 } }), code: REJECTED, path: 'output_config.task_budget', contains: TASK },
  { name: 'task_budget', mutate: set('output_config', { task_budget: { type: 'tokens', total: 20000, remaining: 20000 } }), betas: [TASK] },
  { name: 'task_budget remaining 0', mutate: set('output_config', { task_budget: { type: 'tokens', total: 50000, remaining: 0 } }), betas: [TASK] },
  { name: 'task_budget total low', mutate: set('output_config', { task_budget: { type: 'tokens', total: 19999 } }), betas: [TASK], code: INVALID, path: 'output_config.task_budget.total' },
  { name: 'task_budget remaining above total', mutate: set('output_config', { task_budget: { type: 'tokens', total: 20000, remaining: 20001 } }), betas: [TASK], code: INVALID, path: 'output_config.task_budget.remaining' },
  { name: 'task_budget remaining negative', mutate: set('output_config', { task_budget: { type: 'tokens', total: 20000, remaining: -1 } }), betas: [TASK], code: INVALID, path: 'output_config.task_budget.remaining' },
  { name: 'task_budget type', mutate: set('output_config', { task_budget: { type: 'usd', total: 20000 } }), betas: [TASK], code: INVALID, path: 'output_config.task_budget.type' },
  { name: 'task_budget unknown key', mutate: set('output_config', { task_budget: { type: 'tokens', total: 20000, x: 1 } }), betas: [TASK], code: INVALID, path: 'output_config.task_budget.x' },
  // forced tool use with enabled thinking (decisions §9.3)
  { name: 'any + enabled', from: toolBase, mutate: (b) => Object.assign(b, { tool_choice: { type: 'any' }, thinking: { type: 'enabled', budget_tokens: 2048 } }), code: INVALID, path: 'tool_choice.type' },
  { name: 'tool + enabled', from: toolBase, mutate: (b) => Object.assign(b, { tool_choice: { type: 'tool', name: 'get_weather' }, thinking: { type: 'enabled', budget_tokens: 2048 } }), code: INVALID, path: 'tool_choice.type' },
  { name: 'auto + enabled', from: toolBase, mutate: (b) => Object.assign(b, { tool_choice: { type: 'auto' }, thinking: { type: 'enabled', budget_tokens: 2048 } }) },
  { name: 'any + adaptive', from: toolBase, mutate: (b) => Object.assign(b, { tool_choice: { type: 'any' }, thinking: { type: 'adaptive' } }) },
  // per-turn output_config on inline system messages
  { name: 'per-turn effort with beta', from: turnBase, mutate: turn({ effort: 'medium' }), betas: [TURN] },
  { name: 'per-turn effort without beta', from: turnBase, mutate: turn({ effort: 'medium' }), code: REJECTED, path: 'messages[1].output_config', contains: `Unexpected value(s) \`${TURN}\`` },
  { name: 'per-turn format', from: turnBase, mutate: turn({ format: { type: 'json_schema', schema: {} } }), betas: [TURN], code: INVALID, path: 'messages[1].output_config.format' },
  { name: 'per-turn effort unknown', from: turnBase, mutate: turn({ effort: 'huge' }), betas: [TURN], code: INVALID, path: 'messages[1].output_config.effort' },
  {
    name: 'per-turn effort with disabled thinking',
    from: turnBase,
    mutate: (b) => {
      b.thinking = { type: 'disabled' };
      at(b, 'messages', 1).output_config = { effort: 'low' };
    },
    betas: [TURN],
    code: INVALID,
    path: 'messages[1].output_config.effort',
  },
  { name: 'output_config on a user message', from: turnBase, mutate: (b) => void (at(b, 'messages', 0).output_config = { effort: 'low' }), betas: [TURN], code: INVALID, path: 'messages[0].output_config' },
];

runCases(t, cases);
