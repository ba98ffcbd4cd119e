// What gateway-auto's router reads of a request, per client dialect (lib/dialects/<d>/conversation.ts):
// the recent turns as text (tool calls as name and arguments, results as tool turns, no thinking),
// the system text, tool count, effort, attachments, and whether the request is inside a tool loop;
// bounded however long the conversation is.
import t from 'tap';
import type { CanonicalRequest, JsonObject } from '../../lib/chunks.js';
import { conversationReaders } from '../../lib/dialects/index.js';
import { CONVERSATION_LIMITS } from '../../lib/router/turn-budget.js';

const req = (source: CanonicalRequest['source'], body: JsonObject, findings?: CanonicalRequest['findings']): CanonicalRequest =>
  ({ source, body, model: 'gateway-auto', stream: false, maxTokens: null, needs: { modalities: new Set(['text']), tools: false, reasoning: false, signedThinking: false }, inputTokenBound: 0, hostedToolUses: 0, labels: {}, forward: { betas: [], headers: {} }, ...(findings ? { findings } : {}) }) as CanonicalRequest;
const read = (r: CanonicalRequest) => conversationReaders[r.source]!(r, CONVERSATION_LIMITS);
const image = { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AA==' } };

t.test('Messages: turns, tool calls and results, thinking left out, effort, attachments, tool loop', async (t) => {
  const view = read(req('anthropic', {
    system: [{ type: 'text', text: 'You are terse.' }],
    tools: [{ name: 'grep' }, { name: 'ls' }],
    thinking: { type: 'enabled', budget_tokens: 20_000 },
    messages: [
      { role: 'user', content: [{ type: 'text', text: 'find TODOs' }, image] },
      { role: 'assistant', content: [{ type: 'thinking', thinking: 'secret plan', signature: 'x' }, { type: 'tool_use', id: 't1', name: 'grep', input: { pattern: 'TODO' } }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: [{ type: 'text', text: 'a.ts:3 TODO' }, image] }] },
    ],
  }));
  t.same(view.turns, [
    { role: 'system', text: 'You are terse.' },
    { role: 'user', text: 'find TODOs' },
    { role: 'assistant', text: 'grep({"pattern":"TODO"})' },
    { role: 'tool', text: 'a.ts:3 TODO' },
  ]);
  t.match(view, { tools: 2, effort: 'high', attachments: 2, toolLoop: true });
  t.match(read(req('anthropic', { output_config: { effort: 'max' }, messages: [{ role: 'user', content: 'hi' }] })), { effort: 'xhigh', toolLoop: false, attachments: 0 });
});

t.test('Chat: system and developer text, tool calls, the gateway-auto default effort, tool loop', async (t) => {
  const view = read(req('openai-chat', {
    messages: [
      { role: 'developer', content: 'Be brief.' },
      { role: 'user', content: [{ type: 'text', text: 'weather?' }, { type: 'image_url', image_url: { url: 'data:,' } }] },
      { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'weather', arguments: '{"city":"Paris"}' } }] },
      { role: 'tool', tool_call_id: 'c1', content: 'sunny' },
    ],
    tools: [{ type: 'function', function: { name: 'weather' } }],
  }, { chatDefaultEffort: 'high' }));
  t.same(view.turns, [
    { role: 'system', text: 'Be brief.' },
    { role: 'user', text: 'weather?' },
    { role: 'assistant', text: 'weather({"city":"Paris"})' },
    { role: 'tool', text: 'sunny' },
  ]);
  t.match(view, { tools: 1, effort: 'high', attachments: 1, toolLoop: true });
});

t.test('Responses: instructions, items, calls and outputs, tool loop', async (t) => {
  const view = read(req('openai-responses', {
    instructions: 'Act as a shell.',
    input: [
      { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'list files' }, { type: 'input_image', image_url: 'data:,' }] },
      { type: 'reasoning', summary: [], encrypted_content: 'x' },
      { type: 'function_call', call_id: 'c1', name: 'exec', arguments: '{"cmd":"ls"}' },
      { type: 'function_call_output', call_id: 'c1', output: 'a.txt' },
    ],
    tools: [{ type: 'function', name: 'exec' }, { type: 'web_search' }],
  }, { responses: { effort: 'medium' } as never }));
  t.same(view.turns, [
    { role: 'system', text: 'Act as a shell.' },
    { role: 'user', text: 'list files' },
    { role: 'assistant', text: 'exec({"cmd":"ls"})' },
    { role: 'tool', text: 'a.txt' },
  ]);
  t.match(view, { tools: 2, effort: 'medium', attachments: 1, toolLoop: true });
  t.match(read(req('openai-responses', { input: 'hello' })), { turns: [{ role: 'user', text: 'hello' }], toolLoop: false, effort: null });
});

t.test('bounded: only the recent turns, a long turn as its head and its tail', async (t) => {
  const long = `QUESTION-START ${'word '.repeat(100_000)} QUESTION-END`;
  const messages = Array.from({ length: 500 }, (_, i) => ({ role: i % 2 === 0 ? 'user' : 'assistant', content: i === 499 - 1 ? long : `turn ${i}` }));
  messages.push({ role: 'user', content: 'last' });
  const view = read(req('anthropic', { system: 'S'.repeat(50_000), messages }));
  const chars = view.turns.reduce((n, turn) => n + turn.text.length, 0);
  t.ok(view.turns.length <= CONVERSATION_LIMITS.turns + 1, `${view.turns.length} turns`);
  t.ok(chars <= CONVERSATION_LIMITS.totalChars, `${chars} characters`);
  t.equal(view.turns.at(-1)!.text, 'last', 'the newest turn is kept');
  const big = view.turns.find((turn) => turn.text.includes('QUESTION-START'));
  t.ok(big && big.text.includes('QUESTION-END'), 'a long turn keeps its head and its tail');
});
