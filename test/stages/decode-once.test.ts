// What the answer check decoded of an answer while dispatch held it back goes on with the `upstream`
// note (lib/providers/checked-answer.ts): the stages after dispatch do not decode it again. Here the
// real dispatch, sse-decode and provider-decode stages, against a scripted loopback upstream that
// writes a JSON answer in pieces (cut inside UTF-8 characters): its bytes are decoded to text once,
// and the events are those of the answer decoded from scratch.
import t from 'tap';
import type { Config } from '../../lib/config.js';
import { ProviderPool } from '../../lib/providers/pool.js';
import { chain, runStage } from '../../lib/stage.js';
import { upstreamDecoders } from '../../lib/dialects/index.js';
import { dispatch } from '../../stages/dispatch.js';
import { providerDecode } from '../../stages/provider-decode.js';
import { routeRequest } from '../../stages/route.js';
import { sseDecode } from '../../stages/sse-decode.js';
import { JSON_HEAD, scriptedUpstream } from '../failure-modes/upstream.js';
import { makeServices, testConfig } from '../helpers/context.js';
import { clientContext, clientRequest } from './harness.js';

const BODY = JSON.stringify({
  id: 'msg_up',
  type: 'message',
  role: 'assistant',
  model: 'up-model',
  content: [{ type: 'text', text: 'Café ☕ naïve 😀 日本語' }],
  stop_reason: 'end_turn',
  stop_sequence: null,
  usage: { input_tokens: 9, output_tokens: 12 },
});
const BYTES = Buffer.from(BODY, 'utf8');
const at = (ch: string, k: number): number => BYTES.indexOf(Buffer.from(ch, 'utf8')) + k;
const PIECES = [BYTES.subarray(0, at('é', 1)), BYTES.subarray(at('é', 1), at('😀', 2)), BYTES.subarray(at('😀', 2))];

const up = await scriptedUpstream({ 'up-json': { headers: JSON_HEAD, body: PIECES, gapMs: 10 } });
t.teardown(() => up.close());
const config: Config = testConfig({
  providers: [{ id: 'up', protocol: 'anthropic', baseUrl: up.url, apiKey: 'sk-up' }],
  models: [{ id: 'm/json', deployments: [{ provider: 'up', model: 'up-json' }], pricing: { input: 1, output: 1 }, maxOutputTokens: 4096 }],
});
const services = { ...makeServices(config), providers: new ProviderPool(config, null) };
t.teardown(() => services.providers.close());

t.test('a JSON answer in pieces is decoded to text once', async (t) => {
  const ctx = clientContext('anthropic', { config, services });
  const routed = routeRequest(clientRequest(ctx, { model: 'm/json', max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] }), ctx);
  // every decode of the answer's whole bytes, by any TextDecoder
  const decode = TextDecoder.prototype.decode;
  let decodes = 0;
  type Decoder = InstanceType<typeof TextDecoder>;
  TextDecoder.prototype.decode = function (this: Decoder, ...args: Parameters<Decoder['decode']>): string {
    if (args[0] != null && args[0].byteLength === BYTES.length) decodes++;
    return decode.apply(this, args);
  };
  let events;
  try {
    events = await runStage(chain(dispatch()(ctx), sseDecode(), providerDecode()), [routed], ctx);
  } finally {
    TextDecoder.prototype.decode = decode;
  }
  t.equal(up.calls('up-json').length, 1, 'one upstream call');
  t.same(events, upstreamDecoders.anthropic!().json(BODY), 'the events of the answer decoded from scratch');
  t.equal(decodes, 1, 'its bytes decoded to text once');
});
