// The Vercel AI SDK (`ai` 7 with `@ai-sdk/anthropic` 4 and `@ai-sdk/openai` 4) against bin/gateway:
// generateText and streamText with a tool (a two-step loop: tool call, then the answer), through
// Messages (`createAnthropic({baseURL: '<gateway>/v1'})`) and through Chat Completions
// (`createOpenAI({baseURL: '<gateway>/v1'}).chat(...)`), each on a model served by an
// Anthropic-protocol deployment and one served by an OpenAI-Chat deployment.
import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAI } from '@ai-sdk/openai';
import { generateText, stepCountIs, streamText, tool, type LanguageModel } from 'ai';
import t from 'tap';
import { z } from 'zod';
import { startGateway, TEST_KEY, type RunningGateway } from '../helpers/gateway.js';
import { clientsConfig } from './config.js';

let gw: RunningGateway;
t.before(async () => {
  gw = await startGateway(clientsConfig());
});
t.teardown(() => gw?.stop());

const executed: string[] = [];
const weather = tool({
  description: 'Current weather for a city',
  inputSchema: z.object({ city: z.string() }),
  execute: async ({ city }) => {
    executed.push(city);
    return `sunny in ${city}`;
  },
});

interface Path {
  name: string;
  model: () => LanguageModel;
  /** the gateway endpoint the SDK calls */
  endpoint: string;
  /** where the deployment sends it */
  upstream: string;
}

const paths: Path[] = [
  { name: 'Messages → claude (native)', model: () => createAnthropic({ apiKey: TEST_KEY, baseURL: `${gw.url}/v1` })('claude-opus-5'), endpoint: 'messages', upstream: '/v1/messages' },
  { name: 'Messages → gpt-5 (OpenAI-Chat deployment)', model: () => createAnthropic({ apiKey: TEST_KEY, baseURL: `${gw.url}/v1` })('gpt-5'), endpoint: 'messages', upstream: '/v1/chat/completions' },
  { name: 'Chat Completions → claude (Anthropic deployment)', model: () => createOpenAI({ apiKey: TEST_KEY, baseURL: `${gw.url}/v1` }).chat('claude-opus-5'), endpoint: 'chat.completions', upstream: '/v1/messages' },
  { name: 'Chat Completions → gpt-5 (native)', model: () => createOpenAI({ apiKey: TEST_KEY, baseURL: `${gw.url}/v1` }).chat('gpt-5'), endpoint: 'chat.completions', upstream: '/v1/chat/completions' },
];

/** The gateway's access-log records since `from` (one per request). */
function requestLogs(from: number): Record<string, unknown>[] {
  return gw.logs.slice(from).filter((l) => l.msg === 'request');
}

async function settleLogs(from: number, n: number): Promise<Record<string, unknown>[]> {
  for (let i = 0; i < 250 && requestLogs(from).length < n; i++) await new Promise((r) => setTimeout(r, 20));
  return requestLogs(from);
}

for (const p of paths) {
  t.test(p.name, async (t) => {
    t.test('generateText with a tool', async (t) => {
      await gw.clearSim();
      executed.length = 0;
      const from = gw.logs.length;
      const r = await generateText({ model: p.model(), prompt: 'What is the weather in Paris?', tools: { weather }, stopWhen: stepCountIs(3), maxOutputTokens: 1024, maxRetries: 0 });
      t.equal(r.steps.length, 2, 'tool step, then the answer');
      t.equal(r.steps[0]?.finishReason, 'tool-calls');
      t.match(r.steps[0]?.toolCalls, [{ toolName: 'weather', input: { city: 'x' } }]);
      t.same(executed, ['x'], 'the tool ran once');
      t.equal(r.text, 'Tool result received: sunny in x');
      t.equal(r.finishReason, 'stop');
      t.ok((r.totalUsage.outputTokens ?? 0) > 0, 'usage');
      const sims = (await gw.simRequests()).filter((s) => s.path === p.upstream);
      t.equal(sims.length, 2, `two calls to ${p.upstream}`);
      const logs = await settleLogs(from, 2);
      t.same(logs.map((l) => [l.endpoint, l.status]), [[p.endpoint, 200], [p.endpoint, 200]], 'two 200s on the gateway');
    });

    t.test('streamText with a tool', async (t) => {
      await gw.clearSim();
      executed.length = 0;
      const from = gw.logs.length;
      const errors: unknown[] = [];
      const r = streamText({
        model: p.model(), prompt: 'Weather in Rome?', tools: { weather }, stopWhen: stepCountIs(3), maxOutputTokens: 1024, maxRetries: 0,
        onError: ({ error }) => {
          errors.push(error);
        },
      });
      let streamed = '';
      for await (const d of r.textStream) streamed += d;
      t.same(errors, [], 'no stream errors');
      t.equal(streamed, 'Tool result received: sunny in x');
      t.equal(await r.text, 'Tool result received: sunny in x');
      t.equal(await r.finishReason, 'stop');
      t.equal((await r.steps).length, 2);
      t.same(executed, ['x']);
      t.equal((await gw.simRequests()).filter((s) => s.path === p.upstream).length, 2);
      const logs = await settleLogs(from, 2);
      t.same(logs.map((l) => [l.endpoint, l.status]), [[p.endpoint, 200], [p.endpoint, 200]], 'two 200s on the gateway');
    });
  });
}
