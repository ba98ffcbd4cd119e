// FAILURE-MODES.md F5 with the simulated provider's `<model>;cut-tool` option, through bin/gateway:
// the demo model's call cut by the token limit, streamed and whole, from a Messages, a Chat and a
// Responses deployment, to every client dialect. A whole Anthropic Message cut there keeps the
// tool_use as its last block with an object `input` and says max_tokens (no JSON end shows the cut):
// no client gets a call to run, and each turn ends as the client's own API ends a cut turn. With
// `cut-tool=closed` the streamed call's JSON is whole and its block stopped; the turn's end says it was cut.
import t from 'tap';
import { baseConfig, startGateway, withModels } from '../helpers/gateway.js';
import { accumulateChat, checkChatStream, send, type Endpoint } from './clients.js';
import { toolRequest } from './tool-request.js';

const ask = (ep: Endpoint, model: string, stream: boolean): Record<string, unknown> => toolRequest(ep, model, stream, 'run bash');

const model = (id: string, family: string, provider: string, upstream: string, api?: string, cut = 'cut-tool'): Record<string, unknown> => ({
  id, family, deployments: [{ provider, model: `${upstream};${cut}`, ...(api === undefined ? {} : { api }) }],
  pricing: { input: 1, output: 2 }, input: ['text'], contextWindow: 200000, maxOutputTokens: 32000,
});
const DEPLOYMENTS = [
  { id: 'test/cut-messages', upstream: model('test/cut-messages', 'anthropic', 'sim-anthropic', 'claude-opus-5') },
  { id: 'test/cut-chat', upstream: model('test/cut-chat', 'openai', 'sim-openai', 'gpt-5', 'chat') },
  { id: 'test/cut-responses', upstream: model('test/cut-responses', 'openai', 'sim-openai', 'gpt-5', 'responses') },
  // cut just after the arguments' last piece: the JSON whole, the block stopped, only the turn's end says it was cut
  { id: 'test/cut-messages-closed', upstream: model('test/cut-messages-closed', 'anthropic', 'sim-anthropic', 'claude-opus-5', undefined, 'cut-tool=closed') },
  { id: 'test/cut-chat-closed', upstream: model('test/cut-chat-closed', 'openai', 'sim-openai', 'gpt-5', 'chat', 'cut-tool=closed') },
];

t.test('the sim cut-tool option through every client dialect', async (t) => {
  const gw = await startGateway(withModels(baseConfig(), DEPLOYMENTS.map((d) => d.upstream)));
  t.teardown(() => gw.stop());

  for (const { id } of DEPLOYMENTS) {
    const closed = id.endsWith('-closed');
    // an Anthropic Message is the same with `closed` (its input an object), and a Chat stream ends with length either way
    const whole = id !== 'test/cut-messages-closed';
    if (whole) t.test(`${id} → Messages JSON: max_tokens, no tool_use`, async (t) => {
      const a = await send(gw, 'messages', ask('messages', id, false));
      t.equal(a.status, 200, a.text.slice(0, 300));
      t.equal(a.json.stop_reason, 'max_tokens');
      t.same(a.json.content.filter((b: any) => b.type === 'tool_use'), []);
    });
    if (whole) t.test(`${id} → Chat JSON: length, no tool call`, async (t) => {
      const a = await send(gw, 'chat', ask('chat', id, false));
      t.equal(a.status, 200, a.text.slice(0, 300));
      t.equal(a.json.choices[0].finish_reason, 'length');
      t.same(a.json.choices[0].message.tool_calls ?? [], []);
    });
    if (whole) t.test(`${id} → Responses JSON: incomplete, no function_call`, async (t) => {
      const a = await send(gw, 'responses', ask('responses', id, false));
      t.equal(a.status, 200, a.text.slice(0, 300));
      t.equal(a.json.status, 'incomplete');
      t.same(a.json.incomplete_details, { reason: 'max_output_tokens' });
      t.same(a.json.output.filter((o: any) => o.type === 'function_call'), []);
    });
    t.test(`${id} → Messages stream: max_tokens, the tool_use block never stopped`, async (t) => {
      const a = await send(gw, 'messages', ask('messages', id, true));
      t.equal(a.status, 200, a.text.slice(0, 300));
      const use = a.data.find((d) => d?.type === 'content_block_start' && d.content_block.type === 'tool_use');
      t.ok(use, 'the call was announced');
      t.notOk(a.data.some((d) => d?.type === 'content_block_stop' && d.index === use?.index), 'no content_block_stop for it');
      t.equal(a.data.find((d) => d?.type === 'message_delta')?.delta.stop_reason, 'max_tokens');
      const json = a.data.filter((d) => d?.type === 'content_block_delta' && d.delta.type === 'input_json_delta').map((d) => d.delta.partial_json).join('');
      if (closed) t.doesNotThrow(() => JSON.parse(json), 'its JSON is whole');
    });
    if (!closed) t.test(`${id} → Chat stream: length`, async (t) => {
      const a = await send(gw, 'chat', ask('chat', id, true));
      checkChatStream(t, a);
      t.equal(accumulateChat(a).finish_reason, 'length');
    });
  }
});
