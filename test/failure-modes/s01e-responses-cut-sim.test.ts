// FAILURE-MODES.md F5 from a Responses upstream, through bin/gateway with the simulated provider:
// whether a function call at the token limit is whole is what the upstream itself said of it, not
// whether its JSON parses. `<model>;cut-tool=done`: the call said done (`function_call_arguments.done`,
// `output_item.done` with status completed), then `response.incomplete` (max_output_tokens): every
// client gets the call whole. `<model>;cut-tool=closed`: the call's arguments are whole JSON, but no
// done event came before `response.incomplete` (a whole answer: its item `incomplete`): every client
// sees it cut, as a cut call from any other upstream (Messages: the tool_use never stopped, or left out;
// Chat: length, the call left out of a JSON answer; Responses: never done nor listed).
import t from 'tap';
import { baseConfig, startGateway, withModels } from '../helpers/gateway.js';
import { accumulateChat, checkChatStream, checkResponsesCut, send, type Endpoint } from './clients.js';
import { toolRequest } from './tool-request.js';

const ask = (ep: Endpoint, model: string, stream: boolean): Record<string, unknown> => toolRequest(ep, model, stream, 'run bash');
/** what the demo model runs */
const COMMAND = 'echo gateway-tool-ok';

const model = (id: string, cut: string): Record<string, unknown> => ({
  id, family: 'openai', deployments: [{ provider: 'sim-openai', model: `gpt-5;${cut}`, api: 'responses' }],
  pricing: { input: 1, output: 2 }, input: ['text'], contextWindow: 200000, maxOutputTokens: 32000,
});
/** each deployment, and the calls every client keeps: the upstream's word decides */
const CASES = [
  { id: 'test/r-cut-done', cut: 'cut-tool=done', whole: [COMMAND] },
  { id: 'test/r-cut-closed', cut: 'cut-tool=closed', whole: [] },
];

t.test('a Responses function call at the limit: whole only when the upstream said it was done', async (t) => {
  const gw = await startGateway(withModels(baseConfig(), CASES.map((c) => model(c.id, c.cut))));
  t.teardown(() => gw.stop());

  for (const { id, whole } of CASES) {
    const what = whole.length > 0 ? 'said done: whole' : 'never said done: cut';
    t.test(`${id} → Messages stream: max_tokens, ${what}`, async (t) => {
      const a = await send(gw, 'messages', ask('messages', id, true));
      t.equal(a.status, 200, a.text.slice(0, 300));
      const use = a.data.find((d) => d?.type === 'content_block_start' && d.content_block.type === 'tool_use');
      t.ok(use, 'the call was announced');
      const json = a.data.filter((d) => d?.type === 'content_block_delta' && d.delta.type === 'input_json_delta').map((d) => d.delta.partial_json).join('');
      t.same(JSON.parse(json), { command: COMMAND }, 'its JSON is whole either way');
      const stopped = a.data.some((d) => d?.type === 'content_block_stop' && d.index === use?.index);
      t.equal(stopped, whole.length > 0, whole.length > 0 ? 'its block stops' : 'no content_block_stop for it');
      t.equal(a.data.find((d) => d?.type === 'message_delta')?.delta.stop_reason, 'max_tokens');
      t.equal(a.frames.at(-1)?.event, 'message_stop');
    });
    t.test(`${id} → Messages JSON: max_tokens, ${what}`, async (t) => {
      const a = await send(gw, 'messages', ask('messages', id, false));
      t.equal(a.status, 200, a.text.slice(0, 300));
      t.equal(a.json.stop_reason, 'max_tokens');
      t.same(a.json.content.filter((b: any) => b.type === 'tool_use').map((b: any) => b.input.command), whole);
    });
    t.test(`${id} → Chat stream: length, the call with its arguments as they came`, async (t) => {
      const a = await send(gw, 'chat', ask('chat', id, true));
      checkChatStream(t, a);
      const acc = accumulateChat(a);
      t.equal(acc.finish_reason, 'length');
      t.same(acc.tool_calls.map((c) => JSON.parse(c.function.arguments).command), [COMMAND]);
    });
    t.test(`${id} → Chat JSON: length, ${what}`, async (t) => {
      const a = await send(gw, 'chat', ask('chat', id, false));
      t.equal(a.status, 200, a.text.slice(0, 300));
      t.equal(a.json.choices[0].finish_reason, 'length');
      t.same((a.json.choices[0].message.tool_calls ?? []).map((c: any) => JSON.parse(c.function.arguments).command), whole);
    });
    t.test(`${id} → Responses stream: incomplete, ${what}`, async (t) => {
      checkResponsesCut(t, await send(gw, 'responses', ask('responses', id, true)), whole);
    });
    t.test(`${id} → Responses JSON: incomplete, ${what}`, async (t) => {
      const a = await send(gw, 'responses', ask('responses', id, false));
      t.equal(a.status, 200, a.text.slice(0, 300));
      t.equal(a.json.status, 'incomplete');
      t.same(a.json.incomplete_details, { reason: 'max_output_tokens' });
      t.same(a.json.output.filter((o: any) => o.type === 'function_call').map((o: any) => JSON.parse(o.arguments).command), whole);
    });
  }
});
