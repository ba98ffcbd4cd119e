// `gateway-auto` and replayed signed thinking within a session: Claude Code always asks for thinking
// and sends `x-claude-code-session-id`, so its second `gateway-auto` turn carries back the thinking
// block the routed model signed. The session's pinned model serves it (the provider verifies the
// signature); without a session the gateway still refuses (spec: pin one explicit model).
import t from 'tap';
import { startGateway, type RunningGateway } from '../helpers/gateway.js';
import { expectError, post, upstreamCalls } from '../helpers/messages.js';
import { clientsConfig } from '../clients/config.js';

let gw: RunningGateway;
t.before(async () => {
  gw = await startGateway(clientsConfig());
});
t.teardown(() => gw?.stop());

const tools = [{ name: 'get_weather', description: 'weather', input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } }];
const first = { model: 'gateway-auto', max_tokens: 4096, thinking: { type: 'adaptive' }, tools, messages: [{ role: 'user', content: 'weather in Paris?' }] };

t.test('a session pinned by gateway-auto continues with its signed thinking on the same model', async (t) => {
  await gw.clearSim();
  const session = { 'x-claude-code-session-id': 'sess-auto-1' };
  const r1 = await post(gw, first, { headers: session });
  t.equal(r1.status, 200, r1.text);
  const m1 = JSON.parse(r1.text) as { content: Record<string, unknown>[]; gateway?: Record<string, unknown> };
  t.match(m1.gateway, { routed: true, routed_model: 'anthropic/claude-sonnet-5' });
  t.match(m1.content, [{ type: 'thinking', signature: String }, { type: 'tool_use' }]);
  const toolUse = m1.content.find((b) => b.type === 'tool_use')!;
  const second = {
    ...first,
    messages: [...first.messages, { role: 'assistant', content: m1.content }, { role: 'user', content: [{ type: 'tool_result', tool_use_id: toolUse.id, content: 'sunny' }] }],
  };
  const r2 = await post(gw, second, { headers: session });
  t.equal(r2.status, 200, r2.text);
  const m2 = JSON.parse(r2.text) as { content: Record<string, unknown>[]; gateway?: Record<string, unknown> };
  t.match(m2.gateway, { routed: true, routed_model: 'anthropic/claude-sonnet-5' });
  t.match(m2.content.at(-1), { type: 'text', text: 'Tool result received: sunny' });
  const sent = await upstreamCalls(gw);
  t.same(sent.map((c) => c.body.model), ['claude-sonnet-5', 'claude-sonnet-5'], 'both turns on the model that signed the thinking');

  await gw.clearSim();
  expectError(t, await post(gw, second), 400, 'invalid_request_error', 'Pin one explicit model');
  expectError(t, await post(gw, second, { headers: { 'x-claude-code-session-id': 'sess-unknown' } }), 400, 'invalid_request_error', 'Pin one explicit model');
  t.same(await upstreamCalls(gw), [], 'without the pinned session: refused before the provider');
});
