// tools (custom and hosted) and tool_choice. Base: toolBase() with one custom tool `get_weather`.
import t from 'tap';
import type { JsonObject, JsonValue } from '../../../lib/chunks.js';
import { HOSTED_TOOL_TYPES } from '../../../lib/dialects/anthropic/validate-hosted-tools.js';
import { INVALID, REJECTED, at, list, runCases, toolBase, validate, type Case } from './validate-harness.js';

const from = toolBase;
/** Set (or with undefined delete) a field of tools[0]. */
const tool0 = (key: string, value: JsonValue | undefined) => (b: JsonObject) => {
  const tool = at(b, 'tools', 0);
  if (value === undefined) delete tool[key];
  else tool[key] = value;
};
/** Replace the tools list. */
const tools = (...defs: JsonObject[]) => (b: JsonObject) => {
  b.tools = defs;
};
/** Append tools. */
const add = (...defs: JsonObject[]) => (b: JsonObject) => {
  list(b, 'tools').push(...defs);
};
const choice = (value: JsonValue) => (b: JsonObject) => {
  b.tool_choice = value;
};
const search = (type = 'web_search_20260209', maxUses: JsonValue = 5): JsonObject => ({ type, name: 'web_search', max_uses: maxUses });
const advisor = (extra: JsonObject = {}): JsonObject => ({ type: 'advisor_20260301', name: 'advisor', model: 'claude-opus-5', max_uses: 3, ...extra });

const hostedValid = [...HOSTED_TOOL_TYPES.entries()]
  .filter(([, family]) => family !== 'code_execution')
  .map(([type, family]): Case => ({
    name: `hosted ${type}`,
    from,
    mutate: add(family === 'web_search' ? search(type) : family === 'advisor' ? advisor() : { type, name: `${family}_tool` }),
  }));
const codeExecValid = [...HOSTED_TOOL_TYPES.entries()]
  .filter(([, family]) => family === 'code_execution')
  .map(([type]): Case => ({ name: `hosted ${type} with web_fetch_20260209`, from, mutate: add({ type: 'web_fetch_20260209', name: 'web_fetch' }, { type, name: 'code_execution' }) }));

const cases: Case[] = [
  // custom tools
  { name: 'tools not an array', from, mutate: (b) => void (b.tools = {}), code: INVALID, path: 'tools' },
  { name: 'tools empty', from: () => ({ ...toolBase(), tools: [], messages: [{ role: 'user', content: 'hi' }] }), mutate: () => {} },
  { name: 'tool not an object', from, mutate: tools('x' as unknown as JsonObject), code: INVALID, path: 'tools[0]' },
  { name: 'name missing', from, mutate: tool0('name', undefined), code: INVALID, path: 'tools[0].name' },
  { name: 'name with space', from, mutate: tool0('name', 'get weather'), code: INVALID, path: 'tools[0].name' },
  { name: 'name 129 chars', from, mutate: tool0('name', 'a'.repeat(129)), code: INVALID, path: 'tools[0].name' },
  { name: 'name 128 chars', from, mutate: add({ name: 'a'.repeat(128), input_schema: {} }) },
  { name: 'MCP-style name', from, mutate: add({ name: 'mcp__github__create_issue', input_schema: { type: 'object' } }) },
  { name: 'duplicate name', from, mutate: add({ name: 'get_weather', input_schema: {} }), code: INVALID, path: 'tools[1].name', contains: 'duplicate' },
  { name: 'input_schema missing', from, mutate: tool0('input_schema', undefined), code: INVALID, path: 'tools[0].input_schema' },
  { name: 'input_schema array', from, mutate: tool0('input_schema', []), code: INVALID, path: 'tools[0].input_schema' },
  { name: 'input_schema type array', from, mutate: tool0('input_schema', { type: 'array' }), code: INVALID, path: 'tools[0].input_schema.type' },
  { name: 'input_schema without type', from, mutate: tool0('input_schema', { properties: {} }) },
  {
    name: 'input_schema as Claude Code sends it',
    from,
    mutate: tool0('input_schema', { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object', properties: { command: { type: 'string' } }, required: ['command'], additionalProperties: false }),
  },
  { name: 'description number', from, mutate: tool0('description', 5), code: INVALID, path: 'tools[0].description' },
  { name: 'description omitted', from, mutate: tool0('description', undefined) },
  { name: 'strict string', from, mutate: tool0('strict', 'true'), code: INVALID, path: 'tools[0].strict' },
  { name: 'defer_loading string', from, mutate: tool0('defer_loading', 'yes'), code: INVALID, path: 'tools[0].defer_loading' },
  { name: 'eager_input_streaming number', from, mutate: tool0('eager_input_streaming', 1), code: INVALID, path: 'tools[0].eager_input_streaming' },
  { name: 'input_examples item', from, mutate: tool0('input_examples', [{ city: 'Paris' }, 5]), code: INVALID, path: 'tools[0].input_examples[1]' },
  { name: 'allowed_callers item', from, mutate: tool0('allowed_callers', ['']), code: INVALID, path: 'tools[0].allowed_callers[0]' },
  { name: 'cache_control bad', from, mutate: tool0('cache_control', { type: 'lasting' }), code: INVALID, path: 'tools[0].cache_control.type' },
  { name: 'unknown field', from, mutate: tool0('parameters', {}), code: INVALID, path: 'tools[0].parameters' },
  {
    name: 'every custom field',
    from,
    mutate: (b) =>
      Object.assign(at(b, 'tools', 0), {
        type: 'custom', strict: true, cache_control: { type: 'ephemeral' }, defer_loading: true, eager_input_streaming: true,
        input_examples: [{ city: 'Paris' }], allowed_callers: ['direct', 'code_execution_20250825'],
      }),
  },
  // hosted tools
  ...hostedValid,
  ...codeExecValid,
  { name: 'web_search other fields open', from, mutate: add({ ...search(), allowed_domains: ['a.com'], user_location: { type: 'approximate', city: 'X' } }) },
  { name: 'web_search without max_uses', from, mutate: add({ type: 'web_search_20250305', name: 'web_search' }), code: INVALID, path: 'tools[1].max_uses' },
  { name: 'web_search max_uses 0', from, mutate: add(search('web_search_20250305', 0)), code: INVALID, path: 'tools[1].max_uses' },
  { name: 'web_search max_uses 101', from, mutate: add(search('web_search_20250305', 101)), code: INVALID, path: 'tools[1].max_uses' },
  { name: 'web_search max_uses string', from, mutate: add(search('web_search_20250305', '5')), code: INVALID, path: 'tools[1].max_uses' },
  { name: 'hosted name number', from, mutate: add({ ...search(), name: 5 }), code: INVALID, path: 'tools[1].name' },
  { name: 'hosted cache_control bad', from, mutate: add({ ...search(), cache_control: { type: 'x' } }), code: INVALID, path: 'tools[1].cache_control.type' },
  { name: 'hosted name clashes with custom', from, mutate: add({ ...search(), name: 'get_weather' }), code: INVALID, path: 'tools[1].name', contains: 'duplicate' },
  { name: 'web_fetch max_uses 0', from, mutate: add({ type: 'web_fetch_20250910', name: 'web_fetch', max_uses: 0 }), code: INVALID, path: 'tools[1].max_uses' },
  { name: 'code execution standalone', from, mutate: add({ type: 'code_execution_20250825', name: 'code_execution' }), code: REJECTED, path: 'tools[1].type', contains: 'standalone hosted code execution cannot be billed' },
  { name: 'code execution with an old web_search', from, mutate: add({ type: 'code_execution_20250825', name: 'code_execution' }, search('web_search_20250305')), code: REJECTED, path: 'tools[1].type' },
  { name: 'code execution with web_search_20260318', from, mutate: add({ type: 'code_execution_20260120', name: 'code_execution' }, search('web_search_20260318')) },
  { name: 'advisor without model', from, mutate: add({ type: 'advisor_20260301', name: 'advisor', max_uses: 3 }), code: INVALID, path: 'tools[1].model' },
  { name: 'advisor without max_uses', from, mutate: add({ type: 'advisor_20260301', name: 'advisor', model: 'claude-opus-5' }), code: INVALID, path: 'tools[1].max_uses' },
  { name: 'advisor max_uses 101', from, mutate: add(advisor({ max_uses: 101 })), code: INVALID, path: 'tools[1].max_uses' },
  { name: 'advisor max_tokens 1023', from, mutate: add(advisor({ max_tokens: 1023 })), code: INVALID, path: 'tools[1].max_tokens' },
  { name: 'advisor max_tokens 2048', from, mutate: add(advisor({ max_tokens: 2048 })) },
  { name: 'advisor model unavailable', from, mutate: add(advisor()), opts: { isAdvisorModel: () => null }, code: REJECTED, path: 'tools[1].model', contains: 'not available' },
  { name: 'advisor max_tokens above model limit', from, mutate: add(advisor({ max_tokens: 8192 })), opts: { isAdvisorModel: () => ({ maxOutputTokens: 4096 }) }, code: INVALID, path: 'tools[1].max_tokens' },
  { name: 'advisor max_tokens within model limit', from, mutate: add(advisor({ max_tokens: 4096 })), opts: { isAdvisorModel: () => ({ maxOutputTokens: 4096 }) } },
  { name: 'mcp_toolset', from, mutate: add({ type: 'mcp_toolset', mcp_server_name: 'x' }), code: REJECTED, path: 'tools[1].type', contains: 'MCP' },
  { name: 'unknown hosted type', from, mutate: add({ type: 'bash_20250124', name: 'bash' }), code: REJECTED, path: 'tools[1].type', contains: 'custom tool' },
  { name: 'undated web_search', from, mutate: add({ type: 'web_search', name: 'web_search', max_uses: 1 }), code: REJECTED, path: 'tools[1].type' },
  { name: 'type number', from, mutate: add({ type: 5, name: 'x' }), code: INVALID, path: 'tools[1].type' },
  // tool_choice
  ...['auto', 'none', 'any'].map((type): Case => ({ name: `tool_choice ${type}`, from, mutate: choice({ type, disable_parallel_tool_use: true }) })),
  { name: 'tool_choice tool', from, mutate: choice({ type: 'tool', name: 'get_weather' }) },
  { name: 'tool_choice hosted tool by name', from, mutate: (b) => Object.assign(b, { tools: [...list(b, 'tools'), search()], tool_choice: { type: 'tool', name: 'web_search' } }) },
  { name: 'tool_choice tool without name', from, mutate: choice({ type: 'tool' }), code: INVALID, path: 'tool_choice.name' },
  { name: 'tool_choice unknown tool', from, mutate: choice({ type: 'tool', name: 'nope' }), code: INVALID, path: 'tool_choice.name' },
  { name: 'tool_choice any without tools', from, mutate: (b) => Object.assign(b, { tools: [], tool_choice: { type: 'any' }, messages: [{ role: 'user', content: 'hi' }] }), code: INVALID, path: 'tool_choice.type' },
  { name: 'tool_choice any, tools omitted', from, mutate: (b) => {
      delete b.tools;
      Object.assign(b, { tool_choice: { type: 'any' }, messages: [{ role: 'user', content: 'hi' }] });
    }, code: INVALID, path: 'tool_choice.type' },
  { name: 'tool_choice required', from, mutate: choice({ type: 'required' }), code: INVALID, path: 'tool_choice.type' },
  { name: 'tool_choice string', from, mutate: choice('auto'), code: INVALID, path: 'tool_choice' },
  { name: 'tool_choice name on auto', from, mutate: choice({ type: 'auto', name: 'get_weather' }), code: INVALID, path: 'tool_choice.name' },
  { name: 'tool_choice disable_parallel string', from, mutate: choice({ type: 'auto', disable_parallel_tool_use: 'true' }), code: INVALID, path: 'tool_choice.disable_parallel_tool_use' },
];

runCases(t, cases);

t.test('hostedToolUses sums web search max_uses', async (t) => {
  const b = toolBase();
  list(b, 'tools').push(search('web_search_20250305', 5), { ...search('web_search_20260318', 7), name: 'web_search_2' }, advisor());
  t.equal(validate(b).hostedToolUses, 12);
});
