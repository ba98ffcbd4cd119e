// FAILURE-MODES.md F5 and F6 through every client dialect: a tool call cut by the token limit ends
// the turn as the client's own API ends a cut turn (Messages stop_reason max_tokens with the tool_use
// block left unclosed, Chat finish_reason length, Responses `incomplete` / max_output_tokens), never
// as a tool call a client would run; parallel calls whose argument pieces interleave stay separate
// calls. Upstreams in each dialect, streamed and JSON; clients in each dialect, streamed and JSON.
import t, { type Test } from 'tap';
import { accumulateChat, checkResponsesCut, accumulateMessages, checkChatStream, checkMessagesStream, checkResponsesStream, send, type Answer, type Endpoint } from './clients.js';
import { toolRequest } from './tool-request.js';
import { anthropicSse, chatJson, chatSse, delta, JSON_HEAD, messageStart, modelId, responsesSse, startFm, usageChunk, type Api, type Script } from './upstream.js';

const ask = (ep: Endpoint, m: string, stream: boolean): Record<string, unknown> => toolRequest(ep, modelId(m), stream);

const call = (index: number, id: string | undefined, name: string | undefined, args: string): Record<string, unknown> =>
  delta({ tool_calls: [{ index, ...(id ? { id, type: 'function' } : {}), function: { ...(name ? { name } : {}), arguments: args } }] });

const CUT = '{"command":"ls -la /very/long';
const upResponse = (status: string, output: unknown[], incomplete?: string, model = 'r-cut'): Record<string, unknown> => ({
  id: 'resp_up', object: 'response', created_at: 1, model, status, output,
  usage: status === 'in_progress' ? null : { input_tokens: 10, output_tokens: 1000, total_tokens: 1010, input_tokens_details: { cached_tokens: 0 }, output_tokens_details: { reasoning_tokens: 0 } },
  incomplete_details: incomplete ? { reason: incomplete } : null,
});
const upText = { id: 'msg_up_0', type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'Let me look.', annotations: [] }] };
const anthropicCut = (model: string, closed: boolean): string =>
  anthropicSse(
    messageStart(model),
    { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
    { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Let me look.' } },
    { type: 'content_block_stop', index: 0 },
    { type: 'content_block_start', index: 1, content_block: { type: 'tool_use', id: 'toolu_cut', name: 'bash', input: {} } },
    { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: CUT } },
    ...(closed ? [{ type: 'content_block_stop', index: 1 }] : []),
    { type: 'message_delta', delta: { stop_reason: 'max_tokens', stop_sequence: null }, usage: { output_tokens: 1000 } },
    { type: 'message_stop' },
  );

// a Responses upstream announcing two function calls, then their argument pieces interleaved
const upCall = (i: number, args: string, status = 'completed'): Record<string, unknown> => ({ id: `fc_up_${i}`, type: 'function_call', status, call_id: `call_${i}`, name: 'bash', arguments: args });
const responsesInterleaved = (): string => {
  const piece = (i: number, delta: string): Record<string, unknown> => ({ type: 'response.function_call_arguments.delta', item_id: `fc_up_${i}`, output_index: i, delta });
  const whole = [upCall(0, '{"command":"ls"}'), upCall(1, '{"command":"pwd"}')];
  return responsesSse(
    { type: 'response.created', response: upResponse('in_progress', [], undefined, 'r-interleave') },
    { type: 'response.output_item.added', output_index: 0, item: upCall(0, '', 'in_progress') },
    { type: 'response.output_item.added', output_index: 1, item: upCall(1, '', 'in_progress') },
    piece(0, '{"command":'),
    piece(1, '{"command":"pw'),
    piece(0, '"ls"}'),
    piece(1, 'd"}'),
    { type: 'response.output_item.done', output_index: 0, item: whole[0] },
    { type: 'response.output_item.done', output_index: 1, item: whole[1] },
    { type: 'response.completed', response: upResponse('completed', whole, undefined, 'r-interleave') },
  );
};

const script: Script = {
  // F5 from a Chat upstream: finish_reason "length" in the middle of the arguments, after some text
  'c-cut-length': { body: chatSse('c-cut-length', [delta({ role: 'assistant', content: 'Let me look.' }), call(0, 'call_cut', 'bash', CUT.slice(0, 12)), call(0, undefined, undefined, CUT.slice(12)), delta({}, 'length'), usageChunk(20, 1000)]) },
  // vLLM: "tool_calls" on a turn cut at max_tokens; the first of two parallel calls is whole
  'c-cut-vllm': { body: chatSse('c-cut-vllm', [call(0, 'call_whole', 'bash', '{"command":"pwd"}'), call(1, 'call_cut', 'bash', CUT), delta({}, 'tool_calls'), usageChunk(20, 1000)]) },
  'c-cut-json': { headers: JSON_HEAD, body: chatJson('c-cut-json', { content: 'Let me look.', tool_calls: [{ id: 'call_cut', type: 'function', function: { name: 'bash', arguments: CUT } }] }, 'length') },
  // from a Responses upstream: the function call never done, the response incomplete
  'r-cut': {
    body: responsesSse(
      { type: 'response.created', response: upResponse('in_progress', []) },
      { type: 'response.output_item.added', output_index: 0, item: { ...upText, status: 'in_progress', content: [] } },
      { type: 'response.content_part.added', item_id: 'msg_up_0', output_index: 0, content_index: 0, part: { type: 'output_text', text: '', annotations: [] } },
      { type: 'response.output_text.delta', item_id: 'msg_up_0', output_index: 0, content_index: 0, delta: 'Let me look.' },
      { type: 'response.output_item.done', output_index: 0, item: upText },
      { type: 'response.output_item.added', output_index: 1, item: { id: 'fc_up_1', type: 'function_call', status: 'in_progress', call_id: 'call_cut', name: 'bash', arguments: '' } },
      { type: 'response.function_call_arguments.delta', item_id: 'fc_up_1', output_index: 1, delta: CUT },
      { type: 'response.incomplete', response: upResponse('incomplete', [upText, { id: 'fc_up_1', type: 'function_call', status: 'incomplete', call_id: 'call_cut', name: 'bash', arguments: CUT }], 'max_output_tokens') },
    ),
  },
  'r-cut-json': {
    headers: JSON_HEAD,
    body: JSON.stringify(upResponse('incomplete', [upText, { id: 'fc_up_1', type: 'function_call', status: 'incomplete', call_id: 'call_cut', name: 'bash', arguments: CUT }], 'max_output_tokens', 'r-cut-json')),
  },
  // from an Anthropic upstream: the tool_use block left open (and, from a relay, closed) before max_tokens
  'a-cut-open': { body: anthropicCut('a-cut-open', false) },
  'a-cut-closed': { body: anthropicCut('a-cut-closed', true) },
  // F6: pieces of two calls interleave (index 0, 1, 0, 1); and at a reused index 0, by id
  'c-interleave': {
    body: chatSse('c-interleave', [call(0, 'call_a', 'bash', '{"command":'), call(1, 'call_b', 'bash', '{"command":"pw'), call(0, undefined, undefined, '"ls"}'), call(1, undefined, undefined, 'd"}'), delta({}, 'tool_calls'), usageChunk(20, 9)]),
  },
  'c-interleave-reused': {
    body: chatSse('c-interleave-reused', [call(0, 'call_a', 'bash', '{"command":'), call(0, 'call_b', 'bash', '{"command":"pwd"}'), call(0, 'call_a', undefined, '"ls"}'), delta({}, 'tool_calls'), usageChunk(20, 9)]),
  },
  // same index, same id (or none) for every call: a call named again after whole arguments is a new one
  'r-interleave': { body: responsesInterleaved() },
  'c-same-index-no-id': {
    body: chatSse('c-same-index-no-id', [call(0, 'call_s', 'bash', '{"command":"ls"}'), call(0, undefined, 'bash', '{"command":"pwd"}'), delta({}, 'tool_calls'), usageChunk(20, 9)]),
  },
};

const models: { name: string; api: Api }[] = [
  ...['c-cut-length', 'c-cut-vllm', 'c-cut-json', 'c-interleave', 'c-interleave-reused', 'c-same-index-no-id'].map((name) => ({ name, api: 'chat' as Api })),
  { name: 'r-cut', api: 'responses' },
  { name: 'r-cut-json', api: 'responses' },
  { name: 'r-interleave', api: 'responses' },
  { name: 'a-cut-open', api: 'messages' },
  { name: 'a-cut-closed', api: 'messages' },
];

/** The whole calls a client of each dialect would run, as `command` values, and how the turn ended. */
function messagesStreamCalls(t: Test, a: Answer): { commands: string[]; stop: string | null } {
  t.equal(a.status, 200, a.text.slice(0, 300));
  const closed = new Set<number>();
  const tools = new Map<number, string>();
  for (const d of a.data) {
    if (d?.type === 'content_block_start' && d.content_block.type === 'tool_use') tools.set(d.index, '');
    if (d?.type === 'content_block_delta' && d.delta.type === 'input_json_delta') tools.set(d.index, tools.get(d.index)! + d.delta.partial_json);
    if (d?.type === 'content_block_stop') closed.add(d.index);
  }
  t.equal(a.frames.at(-1)?.event, 'message_stop', 'ends with message_stop');
  // Claude Code runs a tool_use block when it stops; one that never stops is a call cut at the limit
  const commands = [...tools].filter(([i]) => closed.has(i)).map(([, json]) => JSON.parse(json).command);
  return { commands, stop: a.data.find((d) => d?.type === 'message_delta')?.delta.stop_reason ?? null };
}

/** Anthropic writes blocks one after the other: none starts while another is open. */
function overlaps(a: Answer): string[] {
  let open = -1;
  const problems: string[] = [];
  for (const d of a.data) {
    if (d?.type === 'content_block_start') {
      if (open !== -1) problems.push(`block ${d.index} started while block ${open} is open`);
      open = d.index;
    } else if (d?.type === 'content_block_delta' && d.index !== open) problems.push(`delta for block ${d.index} while block ${open} is open`);
    else if (d?.type === 'content_block_stop') open = -1;
  }
  return problems;
}

t.test('F5 and F6 through every client dialect', async (t) => {
  const { gw } = await startFm(t, script, models);

  for (const m of ['c-cut-length', 'c-cut-vllm', 'c-cut-json', 'r-cut', 'r-cut-json', 'a-cut-open', 'a-cut-closed']) {
    const whole = m === 'c-cut-vllm' ? ['pwd'] : [];
    t.test(`F5 ${m} → Messages stream: stop_reason max_tokens, the cut tool_use block never closed`, async (t) => {
      const a = await send(gw, 'messages', ask('messages', m, true));
      const { commands, stop } = messagesStreamCalls(t, a);
      t.equal(stop, 'max_tokens');
      t.same(commands, whole, 'only whole calls stop');
      const cut = a.data.filter((d) => d?.type === 'content_block_start' && d.content_block.type === 'tool_use').at(-1);
      t.ok(cut, 'the cut call was announced as it streamed');
      t.notOk(a.data.some((d) => d?.type === 'content_block_stop' && d.index === cut.index), 'no content_block_stop for the cut block');
    });
    t.test(`F5 ${m} → Messages JSON: stop_reason max_tokens, no cut tool_use`, async (t) => {
      const a = await send(gw, 'messages', ask('messages', m, false));
      t.equal(a.status, 200, a.text.slice(0, 300));
      t.equal(a.json.stop_reason, 'max_tokens');
      t.same(a.json.content.filter((b: any) => b.type === 'tool_use').map((b: any) => b.input.command), whole);
    });
    t.test(`F5 ${m} → Chat stream: finish_reason length, never tool_calls`, async (t) => {
      const a = await send(gw, 'chat', ask('chat', m, true));
      checkChatStream(t, a);
      t.equal(accumulateChat(a).finish_reason, 'length');
    });
    t.test(`F5 ${m} → Chat JSON: finish_reason length, no call with arguments that are not JSON`, async (t) => {
      const a = await send(gw, 'chat', ask('chat', m, false));
      t.equal(a.status, 200, a.text.slice(0, 300));
      const choice = a.json.choices[0];
      t.equal(choice.finish_reason, 'length');
      t.same((choice.message.tool_calls ?? []).map((c: any) => JSON.parse(c.function.arguments).command), whole);
    });
    t.test(`F5 ${m} → Responses stream: response.incomplete (max_output_tokens), the cut call never done nor in output`, async (t) => {
      const a = await send(gw, 'responses', ask('responses', m, true));
      checkResponsesCut(t, a, whole);
      t.notOk(a.data.some((d) => d?.type === 'response.function_call_arguments.done' && d.arguments === CUT), 'no arguments.done for the cut call');
    });
    t.test(`F5 ${m} → Responses JSON: status incomplete, no cut function_call`, async (t) => {
      const a = await send(gw, 'responses', ask('responses', m, false));
      t.equal(a.status, 200, a.text.slice(0, 300));
      t.equal(a.json.status, 'incomplete');
      t.same(a.json.incomplete_details, { reason: 'max_output_tokens' });
      t.same(a.json.output.filter((o: any) => o.type === 'function_call').map((o: any) => JSON.parse(o.arguments).command), whole);
    });
  }

  for (const m of ['c-interleave', 'c-interleave-reused', 'c-same-index-no-id', 'r-interleave']) {
    const want = ['ls', 'pwd'];
    t.test(`F6 ${m} → Messages: separate sequential tool_use blocks`, async (t) => {
      for (const stream of [true, false]) {
        const a = await send(gw, 'messages', ask('messages', m, stream));
        if (stream) {
          checkMessagesStream(t, a);
          t.same(overlaps(a), [], 'blocks one after the other');
        }
        else t.equal(a.status, 200, a.text.slice(0, 300));
        const blocks = stream ? accumulateMessages(a).blocks : a.json.content;
        t.same(blocks.map((b: any) => b.input?.command), want, `commands (stream ${stream})`);
        t.equal(new Set(blocks.map((b: any) => b.id)).size, want.length, 'distinct ids');
        t.equal(stream ? accumulateMessages(a).stop_reason : a.json.stop_reason, 'tool_use');
      }
    });
    t.test(`F6 ${m} → Chat: one call per index`, async (t) => {
      const a = await send(gw, 'chat', ask('chat', m, true));
      checkChatStream(t, a);
      const acc = accumulateChat(a);
      t.same(acc.tool_calls.map((c) => JSON.parse(c.function.arguments).command), want);
      t.equal(new Set(acc.tool_calls.map((c) => c.id)).size, want.length, 'distinct ids');
      t.equal(acc.finish_reason, 'tool_calls');
      const j = await send(gw, 'chat', ask('chat', m, false));
      t.same(j.json.choices[0].message.tool_calls.map((c: any) => JSON.parse(c.function.arguments).command), want, 'JSON');
    });
    t.test(`F6 ${m} → Responses: separate function_call items`, async (t) => {
      const final = checkResponsesStream(t, await send(gw, 'responses', ask('responses', m, true)));
      t.same(final.output.map((o: any) => JSON.parse(o.arguments).command), want);
      t.equal(new Set(final.output.map((o: any) => o.call_id)).size, want.length, 'distinct call ids');
    });
  }
});
