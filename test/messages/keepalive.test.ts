// `ping` keep-alive on a Messages stream during provider silence (a gateway of its own: the ping
// interval is global and short here, which the exact pass-through tests must not see).
import t from 'tap';
import { baseConfig, startGateway, withModels, type RunningGateway } from '../helpers/gateway.js';
import { dataOf, msg, parseSse, post } from '../helpers/messages.js';

const config = withModels(baseConfig({ pingIntervalMs: 20 }), [
  {
    id: 'anthropic/claude-slow',
    family: 'anthropic',
    deployments: [{ provider: 'sim-anthropic', model: 'claude-slow;delay=80;deltas=2' }],
    pricing: { input: 1, output: 5 },
  },
]);
let gw: RunningGateway;
t.before(async () => {
  gw = await startGateway(config);
});
t.teardown(() => gw?.stop());

t.test('pings are written while the provider is silent, and the stream still ends cleanly', async (t) => {
  const r = await post(gw, msg('anthropic/claude-slow', { stream: true }));
  t.equal(r.status, 200);
  const frames = parseSse(r.text);
  const pings = frames.filter((f) => f.event === 'ping');
  // the simulated provider sends one ping of its own; the rest are the gateway's
  t.ok(pings.length > 1, `${pings.length} pings`);
  for (const p of pings) t.same(dataOf(p), { type: 'ping' });
  // pings start before any provider answered (FAILURE-MODES F73); the first event is still message_start
  t.equal(frames.find((f) => f.event !== 'ping')?.event, 'message_start', 'message_start is the first event');
  t.equal(frames.at(-1)?.event, 'message_stop', 'no ping after message_stop');
  const text = frames
    .filter((f) => f.event === 'content_block_delta')
    .map((f) => dataOf(f).delta.text as string)
    .join('');
  t.equal(text, 'Hello from claude-slow;delay=80;deltas=2! You said: Hello there', 'content intact between pings');
});

t.test('a non-streaming answer gets no pings', async (t) => {
  const r = await post(gw, msg('anthropic/claude-slow'));
  t.equal(r.status, 200);
  t.equal(JSON.parse(r.text).type, 'message');
});
