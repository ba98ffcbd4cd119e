// Messages, roles and content blocks. Base: toolBase() = [user, assistant(text, tool_use), user(tool_result)].
import t from 'tap';
import type { JsonObject, JsonValue } from '../../../lib/chunks.js';
import { INVALID, REJECTED, at, list, runCases, toolBase, type Case } from './validate-harness.js';

/** Replace message i's content with `content`. */
const content = (i: number, value: JsonValue) => (b: JsonObject) => {
  at(b, 'messages', i).content = value;
};
/** Set one field of block j of message i (undefined deletes it). */
const field = (i: number, j: number, key: string, value: JsonValue | undefined) => (b: JsonObject) => {
  const block = at(b, 'messages', i, 'content', j);
  if (value === undefined) delete block[key];
  else block[key] = value;
};
/** Append a message. */
const push = (m: JsonObject) => (b: JsonObject) => {
  list(b, 'messages').push(m);
};
/** Append blocks to the assistant message (index 1). */
const assistant = (...blocks: JsonObject[]) => (b: JsonObject) => {
  list(b, 'messages', 1, 'content').push(...blocks);
};
const text = (s: string): JsonObject => ({ type: 'text', text: s });
const png = (): JsonObject => ({ type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } });
const serverUse: JsonObject = { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: { query: 'x' } };
const from = toolBase;

const cases: Case[] = [
  // messages and roles
  { name: 'role unknown', from, mutate: (b) => void (at(b, 'messages', 0).role = 'tool'), code: INVALID, path: 'messages[0].role' },
  { name: 'role missing', from, mutate: (b) => void delete at(b, 'messages', 0).role, code: INVALID, path: 'messages[0].role' },
  { name: 'message not an object', from, mutate: (b) => void (list(b, 'messages')[0] = 'hi'), code: INVALID, path: 'messages[0]' },
  { name: 'message unknown field', from, mutate: (b) => void (at(b, 'messages', 2).name = 'x'), code: INVALID, path: 'messages[2].name' },
  { name: 'content missing', from, mutate: (b) => void delete at(b, 'messages', 0).content, code: INVALID, path: 'messages[0].content' },
  { name: 'content number', from, mutate: content(0, 5), code: INVALID, path: 'messages[0].content' },
  { name: 'content empty array on user', from, mutate: content(0, []), code: INVALID, path: 'messages[0].content' },
  { name: 'content empty on final assistant', from, mutate: push({ role: 'assistant', content: [] }) },
  // an answer with no content block (a refusal, a cut) sent back as history (decisions §10)
  { name: 'content empty on earlier assistant', from, mutate: (b) => void list(b, 'messages').splice(1, 0, { role: 'assistant', content: [] }) },
  { name: 'content string', from, mutate: content(0, 'plain string') },
  { name: 'block not an object', from, mutate: content(0, ['hi']), code: INVALID, path: 'messages[0].content[0]' },
  { name: 'block type missing', from, mutate: content(0, [{ text: 'x' }]), code: INVALID, path: 'messages[0].content[0].type' },
  { name: 'block type unknown', from, mutate: content(0, [text('a'), { type: 'video' }]), code: INVALID, path: 'messages[0].content[1].type', contains: 'allowed: text, image, tool_result' },
  { name: 'block unknown field', from, mutate: field(2, 0, 'foo', 1), code: INVALID, path: 'messages[2].content[0].foo', contains: 'unknown field' },
  // text
  { name: 'text missing', from, mutate: field(0, 0, 'text', undefined), code: INVALID, path: 'messages[0].content[0].text' },
  { name: 'text number', from, mutate: field(0, 0, 'text', 5), code: INVALID, path: 'messages[0].content[0].text' },
  { name: 'text cache_control', from, mutate: field(0, 0, 'cache_control', { type: 'ephemeral', ttl: '5m' }) },
  { name: 'text cache_control bad', from, mutate: field(0, 0, 'cache_control', { type: 'ephemeral', ttl: '2h' }), code: INVALID, path: 'messages[0].content[0].cache_control.ttl' },
  { name: 'citations on user text', from, mutate: field(0, 0, 'citations', []), code: INVALID, path: 'messages[0].content[0].citations' },
  { name: 'citations on assistant text, open inside', from, mutate: field(1, 0, 'citations', [{ type: 'web_search_result_location', url: 'https://x', title: 't', encrypted_index: 'e', cited_text: 'c', extra: { any: 1 } }]) },
  { name: 'citations null', from, mutate: field(1, 0, 'citations', null) },
  { name: 'citation without type', from, mutate: field(1, 0, 'citations', [{ url: 'x' }]), code: INVALID, path: 'messages[1].content[0].citations[0].type' },
  { name: 'citations not an array', from, mutate: field(1, 0, 'citations', {}), code: INVALID, path: 'messages[1].content[0].citations' },
  // image
  { name: 'image base64', from, mutate: content(0, [png(), text('what is this?')]) },
  ...['image/jpeg', 'image/gif', 'image/webp'].map((mt): Case => ({ name: `image ${mt}`, from, mutate: content(0, [{ type: 'image', source: { type: 'base64', media_type: mt, data: 'AA==' } }]) })),
  { name: 'image url', from, mutate: content(0, [{ type: 'image', source: { type: 'url', url: 'https://example.com/a.png' }, cache_control: { type: 'ephemeral' } }]) },
  { name: 'image media type', from, mutate: content(0, [{ type: 'image', source: { type: 'base64', media_type: 'image/bmp', data: 'AA==' } }]), code: INVALID, path: 'messages[0].content[0].source.media_type' },
  { name: 'image data empty', from, mutate: content(0, [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: '' } }]), code: INVALID, path: 'messages[0].content[0].source.data' },
  { name: 'image url scheme', from, mutate: content(0, [{ type: 'image', source: { type: 'url', url: 'ftp://x/a.png' } }]), code: INVALID, path: 'messages[0].content[0].source.url' },
  { name: 'image file source', from, mutate: content(0, [{ type: 'image', source: { type: 'file', file_id: 'file_1' } }]), code: REJECTED, path: 'messages[0].content[0].source.type', contains: 'Files API' },
  { name: 'image source type unknown', from, mutate: content(0, [{ type: 'image', source: { type: 'path' } }]), code: INVALID, path: 'messages[0].content[0].source.type' },
  { name: 'image source unknown field', from, mutate: content(0, [{ type: 'image', source: { type: 'url', url: 'https://x', detail: 'low' } }]), code: INVALID, path: 'messages[0].content[0].source.detail' },
  { name: 'image source missing', from, mutate: content(0, [{ type: 'image' }]), code: INVALID, path: 'messages[0].content[0].source' },
  { name: 'image in assistant', from, mutate: assistant(png()), code: INVALID, path: 'messages[1].content[2].type' },
  // document: rejected everywhere
  { name: 'document in user', from, mutate: content(0, [{ type: 'document', source: { type: 'text', media_type: 'text/plain', data: 'x' } }]), code: REJECTED, path: 'messages[0].content[0].type', contains: 'Remove' },
  { name: 'document in assistant', from, mutate: assistant({ type: 'document' }), code: REJECTED, path: 'messages[1].content[2].type' },
  { name: 'document in tool_result', from, mutate: field(2, 0, 'content', [{ type: 'document' }]), code: REJECTED, path: 'messages[2].content[0].content[0].type' },
  // tool_result
  { name: 'tool_result unknown id', from, mutate: field(2, 0, 'tool_use_id', 'toolu_2'), code: INVALID, path: 'messages[2].content[0].tool_use_id', contains: 'earlier assistant' },
  { name: 'tool_result id differs in case', from, mutate: field(2, 0, 'tool_use_id', 'TOOLU_1'), code: INVALID, path: 'messages[2].content[0].tool_use_id' },
  { name: 'tool_result empty id', from, mutate: field(2, 0, 'tool_use_id', ''), code: INVALID, path: 'messages[2].content[0].tool_use_id' },
  { name: 'tool_result before its tool_use', from, mutate: (b) => void list(b, 'messages').splice(0, 0, { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1' }] }), code: INVALID, path: 'messages[0].content[0].tool_use_id' },
  { name: 'tool_result in assistant', from, mutate: assistant({ type: 'tool_result', tool_use_id: 'toolu_1' }), code: INVALID, path: 'messages[1].content[2].type' },
  { name: 'tool_result is_error string', from, mutate: field(2, 0, 'is_error', 'no'), code: INVALID, path: 'messages[2].content[0].is_error' },
  { name: 'tool_result all options', from, mutate: (b) => Object.assign(at(b, 'messages', 2, 'content', 0), { is_error: false, toolset_name: 'ts', cache_control: { type: 'ephemeral' } }) },
  { name: 'tool_result toolset_name empty', from, mutate: field(2, 0, 'toolset_name', ''), code: INVALID, path: 'messages[2].content[0].toolset_name' },
  { name: 'tool_result content null', from, mutate: field(2, 0, 'content', null) },
  { name: 'tool_result content omitted', from, mutate: field(2, 0, 'content', undefined) },
  { name: 'tool_result content number', from, mutate: field(2, 0, 'content', 5), code: INVALID, path: 'messages[2].content[0].content' },
  { name: 'tool_result content blocks', from, mutate: field(2, 0, 'content', [text('a'), png(), { type: 'tool_reference', tool_name: 'get_weather' }]) },
  { name: 'tool_result content tool_use', from, mutate: field(2, 0, 'content', [{ type: 'tool_use' }]), code: INVALID, path: 'messages[2].content[0].content[0].type' },
  { name: 'tool_reference unknown tool', from, mutate: field(2, 0, 'content', [{ type: 'tool_reference', tool_name: 'nope' }]), code: INVALID, path: 'messages[2].content[0].content[0].tool_name' },
  { name: 'tool_result content text unknown field', from, mutate: field(2, 0, 'content', [{ type: 'text', text: 'a', citations: [] }]), code: INVALID, path: 'messages[2].content[0].content[0].citations' },
  // tool_use
  { name: 'tool_use id missing', from, mutate: field(1, 1, 'id', undefined), code: INVALID, path: 'messages[1].content[1].id' },
  { name: 'tool_use duplicate id', from, mutate: assistant({ type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: {} }), code: INVALID, path: 'messages[1].content[2].id', contains: 'duplicate' },
  { name: 'tool_use name empty', from, mutate: field(1, 1, 'name', ''), code: INVALID, path: 'messages[1].content[1].name' },
  { name: 'tool_use input array', from, mutate: field(1, 1, 'input', []), code: INVALID, path: 'messages[1].content[1].input' },
  { name: 'tool_use input missing', from, mutate: field(1, 1, 'input', undefined), code: INVALID, path: 'messages[1].content[1].input' },
  { name: 'tool_use input open JSON', from, mutate: field(1, 1, 'input', { deep: { type: 42, __x: [null, { cache_control: 'anything' }] } }) },
  { name: 'tool_use caller', from, mutate: field(1, 1, 'caller', { type: 'code_execution_20250825', tool_id: 'srvtoolu_9' }) },
  { name: 'tool_use caller without type', from, mutate: field(1, 1, 'caller', {}), code: INVALID, path: 'messages[1].content[1].caller.type' },
  { name: 'tool_use in user', from, mutate: content(0, [{ type: 'tool_use', id: 'x', name: 'y', input: {} }]), code: INVALID, path: 'messages[0].content[0].type' },
  // thinking
  { name: 'thinking block', from, mutate: (b) => void list(b, 'messages', 1, 'content').unshift({ type: 'thinking', thinking: 'hmm', signature: 'c2ln' }) },
  { name: 'thinking without signature', from, mutate: assistant({ type: 'thinking', thinking: 'hmm' }), code: INVALID, path: 'messages[1].content[2].signature' },
  { name: 'thinking cache_control', from, mutate: assistant({ type: 'thinking', thinking: 'hmm', signature: 's', cache_control: { type: 'ephemeral' } }), code: INVALID, path: 'messages[1].content[2].cache_control' },
  { name: 'redacted_thinking', from, mutate: assistant({ type: 'redacted_thinking', data: 'ZW5j' }) },
  { name: 'redacted_thinking empty', from, mutate: assistant({ type: 'redacted_thinking', data: '' }), code: INVALID, path: 'messages[1].content[2].data' },
  { name: 'thinking in user', from, mutate: content(0, [{ type: 'thinking', thinking: 'x', signature: 's' }]), code: INVALID, path: 'messages[0].content[0].type' },
  // server tools in assistant history
  { name: 'server_tool_use + web_search_tool_result', from, mutate: assistant(serverUse, { type: 'web_search_tool_result', tool_use_id: 'srvtoolu_1', content: [{ type: 'web_search_result', url: 'https://x', title: 't', encrypted_content: 'e' }] }) },
  { name: 'server result unknown id', from, mutate: assistant(serverUse, { type: 'web_fetch_tool_result', tool_use_id: 'srvtoolu_2', content: {} }), code: INVALID, path: 'messages[1].content[3].tool_use_id' },
  { name: 'server result without content', from, mutate: assistant(serverUse, { type: 'code_execution_tool_result', tool_use_id: 'srvtoolu_1' }), code: INVALID, path: 'messages[1].content[3].content' },
  { name: 'server result unknown field', from, mutate: assistant(serverUse, { type: 'tool_search_tool_result', tool_use_id: 'srvtoolu_1', content: {}, x: 1 }), code: INVALID, path: 'messages[1].content[3].x' },
  { name: 'advisor and editor results', from, mutate: assistant(serverUse, { type: 'advisor_tool_result', tool_use_id: 'srvtoolu_1', content: 'advice' }, { type: 'text_editor_code_execution_tool_result', tool_use_id: 'srvtoolu_1', content: {} }, { type: 'bash_code_execution_tool_result', tool_use_id: 'srvtoolu_1', content: {} }) },
  { name: 'server_tool_use duplicate id', from, mutate: assistant(serverUse, serverUse), code: INVALID, path: 'messages[1].content[3].id' },
  { name: 'mcp_tool_use + mcp_tool_result', from, mutate: assistant({ type: 'mcp_tool_use', id: 'mcptoolu_1', name: 'q', server_name: 's', input: {} }, { type: 'mcp_tool_result', tool_use_id: 'mcptoolu_1', is_error: false, content: [text('r')] }) },
  { name: 'mcp_tool_use without server_name', from, mutate: assistant({ type: 'mcp_tool_use', id: 'mcptoolu_1', name: 'q', input: {} }), code: INVALID, path: 'messages[1].content[2].server_name' },
  { name: 'server result in user', from, mutate: content(0, [{ type: 'web_search_tool_result', tool_use_id: 'x', content: [] }]), code: INVALID, path: 'messages[0].content[0].type' },
  // inline system messages
  { name: 'system message last, string', from, mutate: push({ role: 'system', content: '# Environment' }) },
  { name: 'system message text blocks', from, mutate: push({ role: 'system', content: [{ type: 'text', text: 'x', cache_control: { type: 'ephemeral' } }] }) },
  { name: 'system message image', from, mutate: push({ role: 'system', content: [png()] }), code: INVALID, path: 'messages[3].content[0].type', contains: 'allowed: text' },
  { name: 'system message empty blocks', from, mutate: push({ role: 'system', content: [] }), code: INVALID, path: 'messages[3].content' },
  // top-level system
  { name: 'system string', from, mutate: (b) => void (b.system = 'be brief') },
  { name: 'system blocks', from, mutate: (b) => void (b.system = [text('a'), { type: 'text', text: 'b', cache_control: { type: 'ephemeral', ttl: '1h' } }]) },
  { name: 'system empty array', from, mutate: (b) => void (b.system = []), code: INVALID, path: 'system' },
  { name: 'system number', from, mutate: (b) => void (b.system = 5), code: INVALID, path: 'system' },
  { name: 'system image block', from, mutate: (b) => void (b.system = [png()]), code: INVALID, path: 'system[0].type' },
  { name: 'system citations', from, mutate: (b) => void (b.system = [{ type: 'text', text: 'a', citations: [] }]), code: INVALID, path: 'system[0].citations' },
  { name: 'system cache_control bad', from, mutate: (b) => void (b.system = [{ type: 'text', text: 'a', cache_control: { type: 'ephemeral', ttl: 300 } }]), code: INVALID, path: 'system[0].cache_control.ttl' },
];

runCases(t, cases);
