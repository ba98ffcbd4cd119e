// FAILURE-MODES.md §3 — reasoning and thinking across dialects: signatures carried byte-identical in
// all three client dialects and back, never fabricated; effort and thinking parameters mapped.
import t from 'tap';
import { accumulateChat, accumulateMessages, checkChatStream, checkMessagesStream, checkResponsesStream, send } from './clients.js';
import { anthropicStream, chatSse, delta, modelId, responsesStream, startFm, usageChunk, type Api, type Script } from './upstream.js';

const SIG = 'EqQBCkgIARABGAIiQL0v+sig/with==chars';
const TOOLS_CHAT = [{ type: 'function', function: { name: 'bash', parameters: { type: 'object', properties: { command: { type: 'string' } } } } }];
const TOOLS_MSG = [{ name: 'bash', input_schema: { type: 'object', properties: { command: { type: 'string' } } } }];
const TOOLS_RESP = [{ type: 'function', name: 'bash', parameters: { type: 'object', properties: { command: { type: 'string' } } } }];

const script: Script = {
  'a-think-tool': { body: anthropicStream('a-think-tool', [{ type: 'thinking', thinking: 'I should list.', signature: SIG }, { type: 'tool_use', id: 'toolu_t1', name: 'bash', json: '{"command":"ls"}' }], 'tool_use') },
  'a-echo': { body: anthropicStream('a-echo', [{ type: 'text', text: 'ok' }], 'end_turn') },
  'c-reasoning': {
    body: chatSse('c-reasoning', [
      delta({ role: 'assistant', reasoning_content: 'Thinking it over.' }),
      delta({ tool_calls: [{ index: 0, id: 'call_r1', type: 'function', function: { name: 'bash', arguments: '{"command":"ls"}' } }] }),
      delta({}, 'tool_calls'),
      usageChunk(9, 4),
    ]),
  },
  'c-gemini': {
    body: chatSse('c-gemini', [
      delta({ role: 'assistant', tool_calls: [{ index: 0, id: 'call_g1', type: 'function', function: { name: 'bash', arguments: '{"command":"ls"}' }, extra_content: { google: { thought_signature: 'CtsBAdHtim9' } } }] }),
      delta({}, 'tool_calls'),
      usageChunk(9, 4),
    ]),
  },
  'c-echo': { body: chatSse('c-echo', [delta({ role: 'assistant', content: 'ok' }), delta({}, 'stop'), usageChunk(9, 1)]) },
  'r-echo': { body: responsesStream('r-echo', [{ type: 'message', text: 'ok' }]) },
};

const models: { name: string; api: Api; extra?: Record<string, unknown> }[] = [
  { name: 'a-think-tool', api: 'messages', extra: { reasoning: true } },
  { name: 'a-echo', api: 'messages', extra: { reasoning: true } },
  { name: 'c-reasoning', api: 'chat', extra: { reasoning: true } },
  { name: 'c-echo', api: 'chat', extra: { reasoning: true } },
  { name: 'c-gemini', api: 'chat', extra: { reasoning: true } },
  { name: 'r-echo', api: 'responses', extra: { reasoning: true } },
  { name: 'c-plain', api: 'chat', extra: { reasoning: false } },
];
script['c-plain'] = script['c-echo'] as never;

t.test('failure modes §3', async (t) => {
  const { up, gw } = await startFm(t, { ...script, 'c-plain': { body: chatSse('c-plain', [delta({ role: 'assistant', content: 'ok' }), delta({}, 'stop'), usageChunk(9, 1)]) } }, models);
  const lastBody = (m: string): any => up.calls(m).at(-1)?.body;

  t.test('F20 signature_delta kept on the streaming path, in every client dialect, and back byte-identical', async (t) => {
    const m = await send(gw, 'messages', { model: modelId('a-think-tool'), max_tokens: 2000, stream: true, messages: [{ role: 'user', content: 'go' }], tools: TOOLS_MSG });
    checkMessagesStream(t, m);
    t.equal(accumulateMessages(m).blocks[0].signature, SIG, 'Messages: signature_delta passed on');

    const c = await send(gw, 'chat', { model: modelId('a-think-tool'), stream: true, messages: [{ role: 'user', content: 'go' }], tools: TOOLS_CHAT });
    checkChatStream(t, c);
    const acc = accumulateChat(c);
    t.match(acc.reasoning, [{ type: 'reasoning.text', text: 'I should list.', signature: SIG }], 'Chat: reasoning_details carry the signature');
    // F22 the same history sent back: thinking first, signature intact, before the tool_use
    await send(gw, 'chat', {
      model: modelId('a-echo'),
      messages: [
        { role: 'user', content: 'go' },
        { role: 'assistant', content: null, tool_calls: acc.tool_calls, reasoning_details: acc.reasoning },
        { role: 'tool', tool_call_id: acc.tool_calls[0].id, content: 'a.txt' },
      ],
      tools: TOOLS_CHAT,
    });
    t.match(lastBody('a-echo').messages[1].content, [{ type: 'thinking', thinking: 'I should list.', signature: SIG }, { type: 'tool_use', id: 'toolu_t1' }], 'F22 Chat history → thinking block first, signature intact');

    const r = await send(gw, 'responses', { model: modelId('a-think-tool'), stream: true, input: 'go', tools: TOOLS_RESP, include: ['reasoning.encrypted_content'] });
    const final = checkResponsesStream(t, r);
    const rs = final.output.find((o: any) => o.type === 'reasoning');
    t.ok(rs?.encrypted_content, 'Responses: reasoning item with encrypted_content');
    // F25 the output items sent back as input (Codex's pattern), the reasoning item's id blanked as some clients do
    const input = [{ role: 'user', content: 'go' }, ...final.output.map((o: any) => (o.type === 'reasoning' ? { ...o, id: '' } : o)), { type: 'function_call_output', call_id: 'toolu_t1', output: 'a.txt' }];
    const again = await send(gw, 'responses', { model: modelId('a-echo'), input, tools: TOOLS_RESP });
    t.equal(again.status, 200, `F25 reasoning item with "id": "" accepted: ${again.text.slice(0, 300)}`);
    t.match(lastBody('a-echo').messages[1].content, [{ type: 'thinking', signature: SIG }, { type: 'tool_use', id: 'toolu_t1' }], 'F25 reasoning item → thinking before tool_use');
  });

  t.test('F21 no signature fabricated: unsigned reasoning from another model never reaches Claude as a signed block', async (t) => {
    const c = await send(gw, 'chat', { model: modelId('c-reasoning'), stream: true, messages: [{ role: 'user', content: 'go' }], tools: TOOLS_CHAT });
    const acc = accumulateChat(c);
    await send(gw, 'chat', {
      model: modelId('a-echo'),
      messages: [
        { role: 'user', content: 'go' },
        { role: 'assistant', content: null, tool_calls: acc.tool_calls, ...(acc.reasoning.length ? { reasoning_details: acc.reasoning } : {}) },
        { role: 'tool', tool_call_id: acc.tool_calls[0].id, content: 'a.txt' },
      ],
      tools: TOOLS_CHAT,
    });
    const blocks = lastBody('a-echo').messages[1].content as any[];
    t.notOk(blocks.some((b) => b.type === 'thinking'), 'no thinking block sent to Claude for reasoning it did not sign');
  });

  t.test('F23 thinking held by a Messages client is replayed as reasoning_content to a Chat upstream', async (t) => {
    const m = await send(gw, 'messages', { model: modelId('c-reasoning'), max_tokens: 2000, stream: true, messages: [{ role: 'user', content: 'go' }], tools: TOOLS_MSG });
    checkMessagesStream(t, m);
    const blocks = accumulateMessages(m).blocks;
    await send(gw, 'messages', {
      model: modelId('c-echo'),
      max_tokens: 2000,
      messages: [
        { role: 'user', content: 'go' },
        { role: 'assistant', content: blocks },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: blocks.find((b) => b.type === 'tool_use').id, content: 'a.txt' }] },
      ],
      tools: TOOLS_MSG,
    });
    const sent = lastBody('c-echo').messages[1];
    t.equal(sent.reasoning_content, 'Thinking it over.', 'assistant tool-call message carries reasoning_content');
  });

  t.test('F23 reasoning held by a Chat client (reasoning_details, as returned) is replayed as reasoning_content to a Chat upstream', async (t) => {
    const first = await send(gw, 'chat', { model: modelId('c-reasoning'), messages: [{ role: 'user', content: 'go' }], tools: TOOLS_CHAT });
    t.equal(first.status, 200, first.text.slice(0, 200));
    const assistant = first.json.choices[0].message;
    t.ok(Array.isArray(assistant.reasoning_details), 'the answer carries reasoning_details');
    const back = await send(gw, 'chat', {
      model: modelId('c-echo'),
      messages: [{ role: 'user', content: 'go' }, assistant, { role: 'tool', tool_call_id: assistant.tool_calls[0].id, content: 'a.txt' }],
      tools: TOOLS_CHAT,
    });
    t.equal(back.status, 200, back.text.slice(0, 200));
    const sent = lastBody('c-echo').messages[1];
    t.equal(sent.reasoning_content, 'Thinking it over.', 'assistant tool-call message carries reasoning_content');
    t.equal(sent.reasoning_details, undefined, 'the gateway\'s own round-trip state does not go upstream');
  });

  t.test('F23 reasoning held by a Responses client (its reasoning item, as returned) is replayed as reasoning_content to a Chat upstream', async (t) => {
    const tools = [{ type: 'function', name: 'bash', parameters: TOOLS_CHAT[0]!.function.parameters }];
    // as Codex asks (store: false): the reasoning comes back only as encrypted content
    const first = await send(gw, 'responses', { model: modelId('c-reasoning'), input: 'go', tools, store: false, include: ['reasoning.encrypted_content'] });
    t.equal(first.status, 200, first.text.slice(0, 200));
    const output = first.json.output as any[];
    const call = output.find((i) => i.type === 'function_call');
    t.ok(output.some((i) => i.type === 'reasoning' && typeof i.encrypted_content === 'string'), 'the answer carries a reasoning item with encrypted_content');
    const back = await send(gw, 'responses', { model: modelId('c-echo'), input: [{ role: 'user', content: 'go' }, ...output, { type: 'function_call_output', call_id: call.call_id, output: 'a.txt' }], tools });
    t.equal(back.status, 200, back.text.slice(0, 200));
    const sent = lastBody('c-echo').messages.find((m: any) => m.role === 'assistant');
    t.equal(sent.reasoning_content, 'Thinking it over.', 'assistant tool-call message carries reasoning_content');
    t.equal(sent.reasoning_details, undefined, 'the gateway\'s own round-trip state does not go upstream');
  });

  t.test('F21 a Messages client switching to Claude mid-session: thinking the gateway made from reasoning_content is not sent to Claude', async (t) => {
    const m = await send(gw, 'messages', { model: modelId('c-reasoning'), max_tokens: 2000, stream: true, messages: [{ role: 'user', content: 'go' }], tools: TOOLS_MSG });
    const blocks = accumulateMessages(m).blocks;
    await send(gw, 'messages', {
      model: modelId('a-echo'),
      max_tokens: 2000,
      messages: [{ role: 'user', content: 'go' }, { role: 'assistant', content: blocks }, { role: 'user', content: [{ type: 'tool_result', tool_use_id: blocks.find((b) => b.type === 'tool_use').id, content: 'a.txt' }] }],
      tools: TOOLS_MSG,
    });
    t.notOk(lastBody('a-echo').messages[1].content.some((b: any) => b.type === 'thinking'), 'no unverifiable thinking block reaches Claude');
  });

  t.test('F24 Gemini thought signatures on Chat tool calls reach the client and come back', async (t) => {
    const c = await send(gw, 'chat', { model: modelId('c-gemini'), stream: true, messages: [{ role: 'user', content: 'go' }], tools: TOOLS_CHAT });
    checkChatStream(t, c);
    const first = c.data.find((d) => d?.choices?.[0]?.delta?.tool_calls)?.choices[0].delta.tool_calls[0];
    t.same(first?.extra_content, { google: { thought_signature: 'CtsBAdHtim9' } }, 'extra_content reaches the client, in the first delta of the call');
    const j = await send(gw, 'chat', { model: modelId('c-gemini'), messages: [{ role: 'user', content: 'go' }], tools: TOOLS_CHAT });
    t.equal(j.status, 200, j.text.slice(0, 200));
    t.same(j.json.choices[0].message.tool_calls[0].extra_content, { google: { thought_signature: 'CtsBAdHtim9' } }, 'and on the call of a JSON answer');
    // the returned call, sent back as the client got it
    const returned = j.json.choices[0].message.tool_calls[0];
    const back = await send(gw, 'chat', {
      model: modelId('c-gemini'),
      messages: [{ role: 'user', content: 'go' }, { role: 'assistant', content: null, tool_calls: [returned] }, { role: 'tool', tool_call_id: 'call_g1', content: 'a' }],
      tools: TOOLS_CHAT,
    });
    t.equal(back.status, 200, back.text.slice(0, 200));
    t.same(lastBody('c-gemini').messages[1].tool_calls[0].extra_content, { google: { thought_signature: 'CtsBAdHtim9' } }, 'and back to the upstream unchanged');
    // the same history to Claude: the signature is Gemini's, never sent to a Messages upstream
    const claude = await send(gw, 'chat', {
      model: modelId('a-echo'),
      messages: [{ role: 'user', content: 'go' }, { role: 'assistant', content: null, tool_calls: [returned] }, { role: 'tool', tool_call_id: 'call_g1', content: 'a' }],
      tools: TOOLS_CHAT,
    });
    t.equal(claude.status, 200, claude.text.slice(0, 200));
    t.match(lastBody('a-echo').messages[1].content, [{ type: 'tool_use', name: 'bash' }], 'the call itself goes');
    t.notMatch(JSON.stringify(lastBody('a-echo')), /CtsBAdHtim9|extra_content/, 'dropped for a Messages upstream');
    const bad = await send(gw, 'chat', {
      model: modelId('c-gemini'),
      messages: [{ role: 'user', content: 'go' }, { role: 'assistant', content: null, tool_calls: [{ id: 'call_g1', type: 'function', function: { name: 'bash', arguments: '{}' }, extra_content: 'CtsBAdHtim9' }] }, { role: 'tool', tool_call_id: 'call_g1', content: 'a' }],
    });
    t.equal(bad.status, 400, 'extra_content must be an object');
    t.match(bad.json.error.message, /extra_content/);
  });

  t.test('F26 item_reference is refused with an explicit message', async (t) => {
    const a = await send(gw, 'responses', { model: modelId('r-echo'), input: [{ type: 'item_reference', id: 'rs_123' }, { role: 'user', content: 'hi' }] });
    t.equal(a.status, 400);
    t.match(a.json.error.message, /store/, 'says how to avoid it (store = false)');
  });

  t.test('F27 reasoning arrives in the reasoning field of each dialect, never as <think> text', async (t) => {
    const c = await send(gw, 'chat', { model: modelId('a-think-tool'), stream: true, messages: [{ role: 'user', content: 'go' }], tools: TOOLS_CHAT });
    const acc = accumulateChat(c);
    t.notMatch(acc.content, /<think>|I should list/, 'not in content');
    t.ok(acc.chunks.some((ch) => typeof ch.choices[0]?.delta?.reasoning === 'string' || ch.choices[0]?.delta?.reasoning_details), 'in reasoning / reasoning_details');
    t.test('F27 Messages: reasoning_content → thinking block', async (t) => {
      const m = await send(gw, 'messages', { model: modelId('c-reasoning'), max_tokens: 2000, stream: true, messages: [{ role: 'user', content: 'go' }], tools: TOOLS_MSG });
      t.match(accumulateMessages(m).blocks[0], { type: 'thinking', thinking: 'Thinking it over.' });
    });
    const r = await send(gw, 'responses', { model: modelId('c-reasoning'), stream: true, input: 'go', tools: TOOLS_RESP });
    checkResponsesStream(t, r);
    t.notOk(r.data.some((d) => d?.type === 'response.output_text.delta' && /Thinking/.test(d.delta)), 'Responses: not output_text');
  });

  t.test('F28 effort and token limits mapped per upstream', async (t) => {
    await send(gw, 'messages', { model: modelId('c-echo'), max_tokens: 500, messages: [{ role: 'user', content: 'hi' }], output_config: { effort: 'high' } });
    const chatBody = lastBody('c-echo');
    t.equal(chatBody.reasoning_effort, 'high', 'output_config.effort → reasoning_effort');
    t.equal(chatBody.max_tokens, undefined, 'no max_tokens to a Chat upstream');
    t.equal(chatBody.max_completion_tokens, 500, 'max_completion_tokens instead');
    await send(gw, 'messages', { model: modelId('r-echo'), max_tokens: 500, messages: [{ role: 'user', content: 'hi' }], output_config: { effort: 'max' } });
    const effort = lastBody('r-echo').reasoning?.effort;
    t.ok(['low', 'medium', 'high', 'xhigh'].includes(effort), `effort max capped to an OpenAI value: ${effort}`);
    // Codex always sends reasoning; a model without reasoning must not receive it
    await send(gw, 'responses', { model: modelId('c-plain'), input: 'hi', reasoning: { effort: 'medium', summary: 'auto' }, include: ['reasoning.encrypted_content'] });
    t.equal(lastBody('c-plain').reasoning_effort, undefined, 'no reasoning_effort to a model without reasoning');
  });

  t.test('F29 forced tool_choice with thinking enabled is refused up front, naming the conflict', async (t) => {
    for (const m of ['a-echo', 'c-echo']) {
      const a = await send(gw, 'messages', { model: modelId(m), max_tokens: 4000, thinking: { type: 'enabled', budget_tokens: 2000 }, tool_choice: { type: 'any' }, tools: TOOLS_MSG, messages: [{ role: 'user', content: 'hi' }] });
      t.equal(a.status, 400, `${m}: ${a.text.slice(0, 200)}`);
      t.match(a.json.error.message, /tool_choice/);
    }
  });
});
