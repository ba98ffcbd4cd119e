// A native message_start goes to a Messages client as the upstream's bytes with only the gateway's
// changes spliced in (encode-sse.ts) when the decoder recognised its layout: the client's model in
// place, `diagnostics` and `gateway` appended to the message. The client reads what the re-serialised
// frame said (same members, same order); the upstream's own spelling of its strings is kept. A frame
// in another layout, or with private cost fields to remove, is re-serialised as before.
import t from 'tap';
import { decodeAnthropicSse } from '../../../lib/dialects/anthropic/events.js';
import { AnthropicSseEncoder } from '../../../lib/dialects/anthropic/encode-sse.js';

const GATEWAY = { routed: true, routed_model: 'x/served', routing_latency_ms: 1 };
const DIAGNOSTICS = { advice: [] };
const message = (id: string, usage = '{"input_tokens":3,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":1}'): string =>
  `{"type":"message_start","message":{"id":"${id}","type":"message","role":"assistant","model":"claude-up","content":[],"stop_reason":null,"stop_sequence":null,"usage":${usage}}}`;

function encode(data: string, clientModel: string | undefined, diagnostics?: object): string {
  const [ev] = decodeAnthropicSse({ event: 'message_start', data });
  const enc = new AnthropicSseEncoder({ clientModel, requestId: 'req_1', gateway: GATEWAY, diagnostics: diagnostics as never });
  const out = enc.encode(ev!);
  t.ok(out.startsWith('event: message_start\ndata: ') && out.endsWith('\n\n'), 'one message_start frame');
  return out.slice('event: message_start\ndata: '.length, -2);
}

t.test('a recognised frame: spliced, saying what the re-serialised frame said', async (t) => {
  for (const clientModel of [undefined, 'my-model', 'claude-up']) {
    for (const diagnostics of [undefined, DIAGNOSTICS]) {
      const data = message('msg_1');
      const parsed = JSON.parse(data) as { message: Record<string, unknown> };
      const envelope: Record<string, unknown> = { ...parsed.message, ...(clientModel === undefined ? {} : { model: clientModel }) };
      if (diagnostics !== undefined) envelope.diagnostics = diagnostics;
      envelope.gateway = GATEWAY;
      t.equal(encode(data, clientModel, diagnostics), JSON.stringify({ type: 'message_start', message: envelope }), `model ${clientModel}, diagnostics ${diagnostics !== undefined}`);
    }
  }
});

t.test("the upstream's spelling of its strings is kept", async (t) => {
  const out = encode(message('msg_\\u0041\\/1'), 'my-model');
  t.match(out, /^\{"type":"message_start","message":\{"id":"msg_\\u0041\\\/1","type":"message","role":"assistant","model":"my-model",/);
  t.same((JSON.parse(out) as { message: { id: string; gateway: unknown } }).message.id, 'msg_A/1');
});

t.test('another layout, or private cost fields: re-serialised as before', async (t) => {
  const spaced = message('msg_1').replace('"content":[]', '"content": []');
  t.equal(encode(spaced, 'my-model'), JSON.stringify({ type: 'message_start', message: { ...(JSON.parse(spaced) as { message: object }).message, model: 'my-model', gateway: GATEWAY } }));
  const costly = message('msg_1', '{"input_tokens":3,"output_tokens":1,"cost":5}');
  const out = JSON.parse(encode(costly, undefined)) as { message: { usage: object; gateway: unknown } };
  t.same(out.message.usage, { input_tokens: 3, output_tokens: 1 }, 'the private cost field removed');
  t.same(out.message.gateway, GATEWAY);
});
