// Chat Completions fields that real clients send beyond OpenAI's own API (client-fields.ts), through
// bin/gateway: `cache_control` on messages, content parts and tool calls (OpenCode 1.18 through
// `@ai-sdk/openai-compatible` on any Claude model: it was refused with `messages[0].cache_control:
// unknown field`), and `name` on a tool message (LangChain's ChatOpenAI: `messages[2].name: unknown
// field`). A Messages upstream gets each breakpoint on the block made from what it marks (FAILURE-MODES
// F46, `cache_control` lost in translation); an OpenAI Chat upstream gets neither field.
import t from 'tap';
import { startGateway, TEST_KEY, type RunningGateway } from '../helpers/gateway.js';

type Obj = Record<string, unknown>;

let gw: RunningGateway;
t.before(async () => {
  gw = await startGateway();
});
t.teardown(() => gw?.stop());

const EPHEMERAL = { type: 'ephemeral' };
const tools = [{ type: 'function', function: { name: 'bash', description: 'Run a command', parameters: { type: 'object', properties: { command: { type: 'string' } }, required: ['command'] } } }];

/** The second turn of a tool conversation, as OpenCode (caching hints) and LangChain (tool `name`) send it. */
function conversation(model: string): Obj {
  return {
    model,
    tools,
    messages: [
      { role: 'system', content: 'You are a coding agent.', cache_control: EPHEMERAL },
      { role: 'user', content: [{ type: 'text', text: 'List the files', cache_control: { type: 'ephemeral', ttl: '1h' } }] },
      { role: 'assistant', content: '', tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'bash', arguments: '{"command":"ls"}' }, cache_control: EPHEMERAL }] },
      { role: 'tool', tool_call_id: 'call_1', name: 'bash', content: 'README.md', cache_control: EPHEMERAL },
    ],
  };
}

async function chat(body: Obj): Promise<{ status: number; json: Obj }> {
  const res = await fetch(`${gw.url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${TEST_KEY}` }, body: JSON.stringify(body) });
  return { status: res.status, json: (await res.json()) as Obj };
}

async function lastUpstream(path: string): Promise<Obj> {
  const calls = (await gw.simRequests()).filter((r) => r.path === path);
  return calls.at(-1)!.body;
}

t.test('to a Messages upstream, each breakpoint lands on the block made from what it marks', async (t) => {
  const r = await chat(conversation('claude-opus-5'));
  t.equal(r.status, 200, JSON.stringify(r.json));
  t.match(r.json, { choices: [{ message: { content: 'Tool result received: README.md' } }] });
  const sent = await lastUpstream('/v1/messages');
  t.same(sent.system, [{ type: 'text', text: 'You are a coding agent.', cache_control: EPHEMERAL }], 'the system message');
  t.same(sent.messages, [
    { role: 'user', content: [{ type: 'text', text: 'List the files', cache_control: { type: 'ephemeral', ttl: '1h' } }] },
    { role: 'assistant', content: [{ type: 'tool_use', id: 'call_1', name: 'bash', input: { command: 'ls' }, cache_control: EPHEMERAL }] },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'call_1', content: 'README.md', cache_control: EPHEMERAL }] },
  ], 'the text part, the tool call and the tool message; the tool name is not sent');
});

t.test('a marked string message becomes one marked text block', async (t) => {
  const r = await chat({ model: 'claude-opus-5', messages: [{ role: 'user', content: 'Hi', cache_control: EPHEMERAL }] });
  t.equal(r.status, 200, JSON.stringify(r.json));
  const sent = await lastUpstream('/v1/messages');
  t.same(sent.messages, [{ role: 'user', content: [{ type: 'text', text: 'Hi', cache_control: EPHEMERAL }] }]);
});

t.test('more than four breakpoints: the last four are sent (Anthropic refuses a fifth)', async (t) => {
  const messages = [
    { role: 'system', content: 'S', cache_control: EPHEMERAL },
    ...['a', 'b', 'c', 'd', 'e'].flatMap((x, i) => [
      { role: 'user', content: x, cache_control: EPHEMERAL },
      ...(i < 4 ? [{ role: 'assistant', content: `${x}!` }] : []),
    ]),
  ];
  const r = await chat({ model: 'claude-opus-5', messages });
  t.equal(r.status, 200, JSON.stringify(r.json));
  const sent = await lastUpstream('/v1/messages');
  const marked = JSON.stringify(sent).match(/cache_control/g) ?? [];
  t.equal(marked.length, 4);
  t.notOk((sent.system as Obj[])[0]!.cache_control, 'the earliest (the system prompt) dropped');
  t.same((sent.messages as Obj[]).at(-1), { role: 'user', content: [{ type: 'text', text: 'e', cache_control: EPHEMERAL }] }, 'the last kept');
});

t.test('to an OpenAI Chat upstream neither field is forwarded', async (t) => {
  const r = await chat(conversation('gpt-5'));
  t.equal(r.status, 200, JSON.stringify(r.json));
  const sent = await lastUpstream('/v1/chat/completions');
  t.notMatch(JSON.stringify(sent.messages), /cache_control/, 'no cache_control anywhere');
  t.same((sent.messages as Obj[])[3], { role: 'tool', tool_call_id: 'call_1', content: 'README.md' }, 'the tool message without name');
  t.same((sent.messages as Obj[])[1], { role: 'user', content: [{ type: 'text', text: 'List the files' }] });
});

t.test('a malformed cache_control is refused at its path', async (t) => {
  const body = conversation('gpt-5');
  ((body.messages as Obj[])[2]!.tool_calls as Obj[])[0]!.cache_control = { type: 'persistent' };
  const r = await chat(body);
  t.equal(r.status, 400);
  t.match(r.json, { error: { param: 'messages[2].tool_calls[0].cache_control.type' } });
  const other = await chat({ model: 'gpt-5', messages: [{ role: 'user', content: 'Hi', cache_control: { type: 'ephemeral', ttl: '2h' } }] });
  t.equal(other.status, 400);
  t.match(other.json, { error: { param: 'messages[0].cache_control.ttl' } });
  const name = await chat({ ...conversation('gpt-5'), messages: [...(conversation('gpt-5').messages as Obj[]).slice(0, 3), { role: 'tool', tool_call_id: 'call_1', name: 3, content: 'x' }] });
  t.equal(name.status, 400);
  t.match(name.json, { error: { param: 'messages[3].name' } });
});
