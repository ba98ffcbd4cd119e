// Usage of a translated Messages stream (decisions §10), through bin/gateway from an OpenAI Chat and
// an OpenAI Responses upstream: message_start.usage.input_tokens is 0 (those upstreams report input
// only at the end, and an estimate would be added again), message_delta.usage carries the final
// input_tokens and cache fields as Anthropic's current API does, and what the Anthropic SDK
// accumulates equals the usage of the same request answered as JSON.
import Anthropic from '@anthropic-ai/sdk';
import t from 'tap';
import { baseConfig, startGateway, TEST_KEY, withModels, type RunningGateway } from '../helpers/gateway.js';
import { parseSse, post } from '../helpers/messages.js';

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

let gw: RunningGateway;
t.before(async () => {
  gw = await startGateway(withModels(baseConfig(), [
    { id: 'openai/gpt-5-mini', family: 'openai', deployments: [{ provider: 'sim-openai', model: 'gpt-5-mini', api: 'responses' }], pricing: { input: 0.25, output: 2 }, input: ['text'], reasoning: true },
  ]));
});
t.teardown(() => gw?.stop());

for (const model of ['gpt-5', 'gpt-5-mini']) {
  t.test(`${model}: exact usage in the translated stream`, async (t) => {
    const body = { model, max_tokens: 200, messages: [{ role: 'user' as const, content: 'Hello there, my friend' }] };
    const json = JSON.parse((await post(gw, body)).text) as Obj;
    t.ok(json.usage.input_tokens > 0, 'the JSON answer reports input tokens');
    const frames = parseSse((await post(gw, { ...body, stream: true })).text);
    const start = JSON.parse(frames.find((f) => f.event === 'message_start')!.data) as Obj;
    const delta = JSON.parse(frames.find((f) => f.event === 'message_delta')!.data) as Obj;
    t.equal(start.message.usage.input_tokens, 0, 'message_start: no estimate');
    t.match(delta.usage, { input_tokens: json.usage.input_tokens, output_tokens: json.usage.output_tokens, cache_read_input_tokens: Number, cache_creation_input_tokens: Number }, 'message_delta: the final figures');
    const client = new Anthropic({ apiKey: TEST_KEY, baseURL: gw.url, maxRetries: 0 });
    const final = await client.messages.stream(body).finalMessage();
    t.match(final.usage, { input_tokens: json.usage.input_tokens, output_tokens: json.usage.output_tokens }, 'the SDK accumulates the same usage as the JSON answer');
  });
}
