// FAILURE-MODES.md F5, its edges, through every client dialect, streamed and JSON:
// (a) a non-streaming Anthropic answer cut at max_tokens inside a tool_use: its `input` is already an
//     object, so no JSON end shows the cut; Anthropic documents the sign instead (stop_reason
//     max_tokens and the last content block a tool_use: an incomplete call, to be asked again with a
//     higher max_tokens). That call is cut, as a streamed one whose block never stopped is.
// (b) parallel calls whose pieces interleave (or a JSON answer listing them) where an earlier call is
//     cut and a later one whole: the turn ends as a cut turn (no 500), the cut call is never a call to
//     run; the whole one stays where the client's shape can hold it (Chat and Responses: in the
//     answer; Messages: not after the cut block, as Anthropic writes nothing after a block the limit cut).
// (c) a streamed answer whose last block is a tool call at the limit, its JSON whole when the block stops
//     (Anthropic max_tokens, a Chat stream's length): the same sign, so the same cut; a call before a
//     text block stays whole. A streaming Chat or Responses client sees every call with what came of its arguments
//     (a whole answer's cut call its input, as a streamed cut shows its fragments), never "".
import t, { type Test } from 'tap';
import { accumulateChat, checkResponsesCut, checkChatStream, send, type Answer, type Endpoint } from './clients.js';
import { toolRequest } from './tool-request.js';
import { anthropicJson, anthropicStream, chatJson, chatSse, delta, JSON_HEAD, modelId, responsesSse, startFm, usageChunk, type Api, type Script } from './upstream.js';

const ask = (ep: Endpoint, m: string, stream: boolean): Record<string, unknown> => toolRequest(ep, modelId(m), stream);

const CUT = '{"command":"ls -la /very/long';
const text = { type: 'text', text: 'Let me look.' };
const use = (id: string, command: string): Record<string, unknown> => ({ type: 'tool_use', id, name: 'bash', input: { command } });
const call = (index: number, id: string | undefined, args: string): Record<string, unknown> =>
  delta({ tool_calls: [{ index, ...(id ? { id, type: 'function', function: { name: 'bash', arguments: args } } : { function: { arguments: args } }) }] });
const fnCall = (i: number, args: string, status: string): Record<string, unknown> => ({ id: `fc_up_${i}`, type: 'function_call', status, call_id: `call_${i}`, name: 'bash', arguments: args });
const upResponse = (model: string, status: string, output: unknown[]): Record<string, unknown> => ({
  id: 'resp_up', object: 'response', created_at: 1, model, status, output,
  usage: status === 'in_progress' ? null : { input_tokens: 10, output_tokens: 1000, total_tokens: 1010, input_tokens_details: { cached_tokens: 0 }, output_tokens_details: { reasoning_tokens: 0 } },
  incomplete_details: status === 'incomplete' ? { reason: 'max_output_tokens' } : null,
});
const maxTokens = { input_tokens: 10, output_tokens: 1000 };
/** a streamed tool_use whose partial_json is whole JSON when its block stops */
const streamed = (id: string, command: string): Record<string, unknown> => ({ type: 'tool_use', id, name: 'bash', json: JSON.stringify({ command }) });

/** A Responses stream: two calls announced, their pieces interleaved; the second is done, the first never. */
function responsesEarlierCut(model: string): string {
  const piece = (i: number, d: string): Record<string, unknown> => ({ type: 'response.function_call_arguments.delta', item_id: `fc_up_${i}`, output_index: i, delta: d });
  return responsesSse(
    { type: 'response.created', response: upResponse(model, 'in_progress', []) },
    { type: 'response.output_item.added', output_index: 0, item: fnCall(0, '', 'in_progress') },
    { type: 'response.output_item.added', output_index: 1, item: fnCall(1, '', 'in_progress') },
    piece(0, CUT.slice(0, 12)),
    piece(1, '{"command":"pw'),
    piece(1, 'd"}'),
    { type: 'response.function_call_arguments.done', item_id: 'fc_up_1', output_index: 1, arguments: '{"command":"pwd"}' },
    { type: 'response.output_item.done', output_index: 1, item: fnCall(1, '{"command":"pwd"}', 'completed') },
    piece(0, CUT.slice(12)),
    { type: 'response.incomplete', response: upResponse(model, 'incomplete', [fnCall(0, CUT, 'incomplete'), fnCall(1, '{"command":"pwd"}', 'completed')]) },
  );
}

const script: Script = {
  // (a) Anthropic JSON: the last block a tool_use at max_tokens (its input an object: what Anthropic parsed of it)
  'a-json-cut': { headers: JSON_HEAD, body: anthropicJson('a-json-cut', [text, use('toolu_cut', 'ls -la /very/long')], 'max_tokens', maxTokens) },
  'a-json-whole-then-cut': { headers: JSON_HEAD, body: anthropicJson('a-json-whole-then-cut', [use('toolu_whole', 'pwd'), use('toolu_cut', 'ls -la')], 'max_tokens', maxTokens) },
  // max_tokens after text: the tool_use before it is whole
  'a-json-call-then-text': { headers: JSON_HEAD, body: anthropicJson('a-json-call-then-text', [use('toolu_whole', 'pwd'), { type: 'text', text: 'And then' }], 'max_tokens', maxTokens) },
  // (c) streamed: the last block a tool_use at max_tokens, its partial_json whole JSON at the block's stop
  'a-sse-closed-cut': { body: anthropicStream('a-sse-closed-cut', [text, streamed('toolu_cut', 'ls -la /very/long')], 'max_tokens', maxTokens) },
  'a-sse-whole-then-closed-cut': { body: anthropicStream('a-sse-whole-then-closed-cut', [streamed('toolu_whole', 'pwd'), streamed('toolu_cut', 'ls -la')], 'max_tokens', maxTokens) },
  'a-sse-call-then-text': { body: anthropicStream('a-sse-call-then-text', [streamed('toolu_whole', 'pwd'), { type: 'text', text: 'And then' }], 'max_tokens', maxTokens) },
  // the same sign from a Chat stream: the last call's arguments whole JSON, finish_reason length
  'c-closed-cut': { body: chatSse('c-closed-cut', [delta({ role: 'assistant', content: 'Let me look.' }), call(0, 'call_cut', '{"command":"ls -la"}'), delta({}, 'length'), usageChunk(20, 1000)]) },
  // (b) the earlier call cut, the later whole: interleaved Chat pieces (length, and vLLM's tool_calls)
  'c-earlier-cut': { body: chatSse('c-earlier-cut', [call(0, 'call_a', CUT.slice(0, 12)), call(1, 'call_b', '{"command":"pw'), call(1, undefined, 'd"}'), call(0, undefined, CUT.slice(12)), delta({}, 'length'), usageChunk(20, 1000)]) },
  'c-earlier-cut-vllm': { body: chatSse('c-earlier-cut-vllm', [call(0, 'call_a', CUT.slice(0, 12)), call(1, 'call_b', '{"command":"pwd"}'), call(0, undefined, CUT.slice(12)), delta({}, 'tool_calls'), usageChunk(20, 1000)]) },
  'c-earlier-cut-json': {
    headers: JSON_HEAD,
    body: chatJson('c-earlier-cut-json', { content: null, tool_calls: [{ id: 'call_a', type: 'function', function: { name: 'bash', arguments: CUT } }, { id: 'call_b', type: 'function', function: { name: 'bash', arguments: '{"command":"pwd"}' } }] }, 'length'),
  },
  'r-earlier-cut': { body: responsesEarlierCut('r-earlier-cut') },
  'r-earlier-cut-json': { headers: JSON_HEAD, body: JSON.stringify(upResponse('r-earlier-cut-json', 'incomplete', [fnCall(0, CUT, 'incomplete'), fnCall(1, '{"command":"pwd"}', 'completed')])) },
};

/** The upstream, and the whole calls each client dialect keeps (Messages: none after the cut block). */
const CASES: { name: string; api: Api; messages: string[]; openai: string[] }[] = [
  { name: 'a-json-cut', api: 'messages', messages: [], openai: [] },
  { name: 'a-json-whole-then-cut', api: 'messages', messages: ['pwd'], openai: ['pwd'] },
  { name: 'a-sse-closed-cut', api: 'messages', messages: [], openai: [] },
  { name: 'a-sse-whole-then-closed-cut', api: 'messages', messages: ['pwd'], openai: ['pwd'] },
  { name: 'c-closed-cut', api: 'chat', messages: [], openai: [] },
  { name: 'c-earlier-cut', api: 'chat', messages: [], openai: ['pwd'] },
  { name: 'c-earlier-cut-vllm', api: 'chat', messages: [], openai: ['pwd'] },
  { name: 'c-earlier-cut-json', api: 'chat', messages: [], openai: ['pwd'] },
  { name: 'r-earlier-cut', api: 'responses', messages: [], openai: ['pwd'] },
  { name: 'r-earlier-cut-json', api: 'responses', messages: [], openai: ['pwd'] },
];

/** A Messages stream's tool_use blocks: the commands of those that stopped, and whether blocks overlap or follow an unstopped one. */
function messagesStream(t: Test, a: Answer): { commands: string[]; unstopped: number; problems: string[] } {
  t.equal(a.status, 200, a.text.slice(0, 300));
  t.equal(a.frames.at(-1)?.event, 'message_stop', 'ends with message_stop');
  const json = new Map<number, string>();
  const starts = new Map<number, any>();
  const problems: string[] = [];
  const commands: string[] = [];
  let open = -1;
  let unstopped = 0;
  for (const d of a.data) {
    if (d?.type === 'content_block_start') {
      if (open !== -1) problems.push(`block ${d.index} started while block ${open} is open`);
      open = d.index;
      if (d.content_block.type === 'tool_use') starts.set(d.index, d.content_block.input), json.set(d.index, '');
    } else if (d?.type === 'content_block_delta' && d.delta.type === 'input_json_delta') json.set(d.index, json.get(d.index)! + d.delta.partial_json);
    else if (d?.type === 'content_block_stop') {
      open = -1;
      // a translated call streams its input; Anthropic's own whole input may come in the start
      if (json.has(d.index)) commands.push(json.get(d.index) === '' ? starts.get(d.index).command : JSON.parse(json.get(d.index)!).command);
    } else if (d?.type === 'message_delta') {
      t.equal(d.delta.stop_reason, 'max_tokens', 'stop_reason max_tokens');
      if (open !== -1) unstopped++;
    }
  }
  return { commands, unstopped, problems };
}

/** The input of the cut tool_use that ends a whole Anthropic answer (a). */
const JSON_CUT: Record<string, string> = { 'a-json-cut': 'ls -la /very/long', 'a-json-whole-then-cut': 'ls -la' };

/** A Responses stream's function_call items as announced, each with its argument deltas joined. */
function responsesCallArguments(a: Answer): string[] {
  const args = new Map<string, string>();
  for (const d of a.data) {
    if (d?.type === 'response.output_item.added' && d.item.type === 'function_call') args.set(d.item.id, d.item.arguments);
    else if (d?.type === 'response.function_call_arguments.delta') args.set(d.item_id, (args.get(d.item_id) ?? '') + d.delta);
  }
  return [...args.values()];
}

t.test('F5 edges through every client dialect', async (t) => {
  const models = [...CASES.map((c) => ({ name: c.name, api: c.api })), ...['a-json-call-then-text', 'a-sse-call-then-text'].map((name) => ({ name, api: 'messages' as Api }))];
  const { gw } = await startFm(t, script, models);

  for (const c of CASES) {
    const m = c.name;
    t.test(`${m} → Messages stream: max_tokens, only whole calls stop, the cut one last and never stopped`, async (t) => {
      const { commands, unstopped, problems } = messagesStream(t, await send(gw, 'messages', ask('messages', m, true)));
      t.same(problems, [], 'blocks one after the other');
      t.same(commands, c.messages, 'only whole calls stop');
      t.equal(unstopped, 1, 'the cut call is the open block at message_delta');
    });
    t.test(`${m} → Messages JSON: max_tokens, no cut tool_use`, async (t) => {
      const a = await send(gw, 'messages', ask('messages', m, false));
      t.equal(a.status, 200, a.text.slice(0, 300));
      t.equal(a.json.stop_reason, 'max_tokens');
      t.same(a.json.content.filter((b: any) => b.type === 'tool_use').map((b: any) => b.input.command), c.messages);
    });
    t.test(`${m} → Chat stream: finish_reason length, every call with what came of its arguments`, async (t) => {
      const a = await send(gw, 'chat', ask('chat', m, true));
      checkChatStream(t, a);
      const acc = accumulateChat(a);
      t.equal(acc.finish_reason, 'length');
      // a streamed cut shows the fragments that came; a whole answer's cut call its input, never ""
      t.same(acc.tool_calls.filter((x) => !x.function.arguments.startsWith('{"command":')).map((x) => x.id), [], 'no call without its arguments');
    });
    t.test(`${m} → Chat JSON: finish_reason length, only whole calls`, async (t) => {
      const a = await send(gw, 'chat', ask('chat', m, false));
      t.equal(a.status, 200, a.text.slice(0, 300));
      t.equal(a.json.choices[0].finish_reason, 'length');
      t.same((a.json.choices[0].message.tool_calls ?? []).map((x: any) => JSON.parse(x.function.arguments).command), c.openai);
    });
    t.test(`${m} → Responses stream: incomplete, only whole calls done and in output`, async (t) => {
      const a = await send(gw, 'responses', ask('responses', m, true));
      checkResponsesCut(t, a, c.openai);
      // as the Chat stream: every call announced shows what came of its arguments (a whole answer's cut call its input)
      const args = responsesCallArguments(a);
      t.same(args.filter((x) => !x.startsWith('{"command":')), [], 'no call without its argument deltas');
      if (m in JSON_CUT) t.same(JSON.parse(args.at(-1)!), { command: JSON_CUT[m] }, "the whole answer's cut call: its input");
    });
    t.test(`${m} → Responses JSON: incomplete, only whole calls`, async (t) => {
      const a = await send(gw, 'responses', ask('responses', m, false));
      t.equal(a.status, 200, a.text.slice(0, 300));
      t.equal(a.json.status, 'incomplete');
      t.same(a.json.output.filter((o: any) => o.type === 'function_call').map((o: any) => JSON.parse(o.arguments).command), c.openai);
    });
  }

  for (const m of ['a-json-call-then-text', 'a-sse-call-then-text']) {
    t.test(`${m}: a tool_use before the last block is whole (max_tokens cut the text)`, async (t) => {
      const a = await send(gw, 'messages', ask('messages', m, false));
      t.equal(a.status, 200, a.text.slice(0, 300));
      t.same(a.json.content.map((b: any) => b.type), ['tool_use', 'text']);
      const s = messagesStream(t, await send(gw, 'messages', ask('messages', m, true)));
      t.same([s.commands, s.unstopped], [['pwd'], 0], 'Messages stream: the call stops');
      const c = await send(gw, 'chat', ask('chat', m, false));
      t.same(c.json.choices[0].message.tool_calls.map((x: any) => JSON.parse(x.function.arguments).command), ['pwd']);
    });
  }
});
