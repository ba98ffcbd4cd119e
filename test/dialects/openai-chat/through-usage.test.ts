// The usage chunk of a Chat stream that goes through to a Chat client (encode-through.ts) is the
// upstream's bytes with only the gateway's members spliced in: the served model, the gateway's
// `usage` (validated tokens and the cost) in place of the upstream's, and `gateway` appended. So
// what the upstream wrote around them (an escape as it was written, `obfuscation`) reaches the
// client as it came, as on every other frame that goes through.
import t from 'tap';
import { replay } from '../../../lib/replay/index.js';

const served = { modelId: 'x/served', pricing: { input: 1, output: 2 } };
const HEAD = '{"id":"chatcmpl-a\\/b","object":"chat.completion.chunk","created":1,"model":"up-model","service_tier":"default","system_fingerprint":"fp_\\u0041"';
const chunk = (rest: string): string => `data: ${HEAD},${rest}}\n\n`;
const first = chunk('"choices":[{"index":0,"delta":{"role":"assistant","content":"","refusal":null},"logprobs":null,"finish_reason":null}],"usage":null');
const text = chunk('"choices":[{"index":0,"delta":{"content":"hi"},"logprobs":null,"finish_reason":null}],"usage":null');
const finish = chunk('"choices":[{"index":0,"delta":{},"logprobs":null,"finish_reason":"stop"}],"usage":null');
const USAGE = '{"prompt_tokens":3,"completion_tokens":2,"total_tokens":5,"prompt_tokens_details":{"cached_tokens":0,"audio_tokens":0},"completion_tokens_details":{"reasoning_tokens":0,"audio_tokens":0,"accepted_prediction_tokens":0,"rejected_prediction_tokens":0}}';

function usageFrame(sse: string): string {
  const out = replay(Buffer.from(sse), { from: 'openai-chat', served }).text.split('\n\n');
  return out.find((f) => f.includes('"choices":[],"usage":{'))!;
}

t.test('the usage chunk: upstream bytes, the gateway usage, model and gateway spliced in', async (t) => {
  for (const tail of ['', ',"obfuscation":"Zx9"']) {
    const frame = usageFrame(first + text + finish + chunk(`"choices":[],"usage":${USAGE}${tail}`) + 'data: [DONE]\n\n');
    const prefix = `data: ${HEAD.replace('"up-model"', '"x/served"')},"choices":[],"usage":{"prompt_tokens":3,"completion_tokens":2,"total_tokens":5,`;
    t.ok(frame.startsWith(prefix), `the upstream's id and fingerprint as written, the served model: ${frame.slice(0, 200)}`);
    const parsed = JSON.parse(frame.slice(6)) as Record<string, any>;
    t.match(parsed.usage, { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5, cost: Number }, 'the gateway usage with the cost');
    t.same(Object.keys(parsed), ['id', 'object', 'created', 'model', 'service_tier', 'system_fingerprint', 'choices', 'usage', ...(tail === '' ? [] : ['obfuscation']), 'gateway'], 'member order');
    if (tail !== '') t.equal(parsed.obfuscation, 'Zx9');
    t.ok(frame.endsWith(`${tail},"gateway":${JSON.stringify(parsed.gateway)}}`), 'gateway appended last');
  }
});
