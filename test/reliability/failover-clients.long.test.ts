// Failover after the provider's 200 head seen from the OpenAI-style endpoints (issue #18): a Chat
// Completions or Responses client, streamed or not, whose model's first deployment fails before any
// content (silence after its preamble, an in-band error) gets the second deployment's answer whole,
// translated or not, and never the first one's opening chunk or `response.created`.
import t, { type Test } from 'tap';
import { baseConfig, startGateway, TEST_KEY, withModels, type RunningGateway } from '../helpers/gateway.js';
import { parseSse, upstreamCalls } from '../helpers/messages.js';

type Client = 'chat' | 'responses';
type Upstream = 'messages' | 'chat' | 'responses';
const FAULTS = ['stall-preamble', 'error-preamble'];
const UPSTREAMS: Upstream[] = ['messages', 'chat', 'responses'];
const GOOD: Record<Upstream, string> = { messages: 'claude-good', chat: 'gpt-good', responses: 'gpt-good' };

function deployment(upstream: Upstream, provider: string, model: string): Record<string, unknown> {
  return upstream === 'messages' ? { provider, model } : { provider, model, api: upstream };
}

const base = baseConfig();
const quick = (id: string, protocol: string): Record<string, unknown> => ({ id, protocol, simulated: true, timeoutMs: 2000, idleTimeoutMs: 300 });
const config = withModels({ ...base, providers: [...(base.providers as Record<string, unknown>[]), quick('quick-anthropic', 'anthropic'), quick('quick-openai', 'openai')] },
  UPSTREAMS.flatMap((u) => FAULTS.map((k) => ({
    id: `fo/${u}/${k}`,
    family: u === 'messages' ? 'anthropic' : 'openai',
    deployments: [
      deployment(u, u === 'messages' ? 'quick-anthropic' : 'quick-openai', `fault:${k}`),
      deployment(u, u === 'messages' ? 'sim-anthropic' : 'sim-openai', GOOD[u]),
    ],
    pricing: { input: 1, output: 10 },
    input: ['text'],
    maxOutputTokens: 32000,
  }))));

let gw: RunningGateway;
t.before(async () => {
  gw = await startGateway(config);
});
t.teardown(() => gw?.stop());

async function send(client: Client, model: string, stream: boolean): Promise<{ status: number; text: string }> {
  const body = client === 'chat'
    ? { model, stream, messages: [{ role: 'user', content: 'Hello there' }], max_completion_tokens: 256 }
    : { model, stream, input: 'Hello there', max_output_tokens: 256 };
  const res = await fetch(`${gw.url}/v1/${client === 'chat' ? 'chat/completions' : 'responses'}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, text: await res.text() };
}

/** The answer's text, after checking it is whole and opens once. */
function answerText(t: Test, client: Client, stream: boolean, text: string, what: string): string {
  if (!stream) {
    const body = JSON.parse(text) as Record<string, any>;
    if (client === 'chat') return body.choices[0].message.content as string;
    t.equal(body.status, 'completed', `${what}: completed`);
    return body.output.flatMap((o: any) => o.content ?? []).map((c: any) => c.text).join('');
  }
  const frames = parseSse(text);
  if (client === 'chat') {
    t.equal(frames.at(-1)?.data, '[DONE]', `${what}: ends with [DONE]`);
    const chunks = frames.filter((f) => f.data !== '[DONE]').map((f) => JSON.parse(f.data) as Record<string, any>);
    t.notOk(chunks.some((c) => c.error !== undefined), `${what}: no error chunk`);
    t.equal(chunks.filter((c) => c.choices?.[0]?.delta?.role === 'assistant').length, 1, `${what}: one opening chunk`);
    t.equal(new Set(chunks.map((c) => c.id)).size, 1, `${what}: one completion id`);
    return chunks.map((c) => c.choices?.[0]?.delta?.content ?? '').join('');
  }
  const names = frames.map((f) => f.event);
  t.equal(names.filter((e) => e === 'response.created').length, 1, `${what}: one response.created`);
  t.equal(names[0], 'response.created', `${what}: nothing before it`);
  t.equal(names.at(-1), 'response.completed', `${what}: completed (${names.join(',')})`);
  return frames.filter((f) => f.event === 'response.output_text.delta').map((f) => JSON.parse(f.data).delta as string).join('');
}

t.test('the OpenAI-style endpoints get the healthy deployment answer whole', async (t) => {
  for (const client of ['chat', 'responses'] as const) {
    for (const upstream of UPSTREAMS) {
      for (const kind of FAULTS) {
        for (const stream of [true, false]) {
          const what = `${client} client, ${upstream} upstream, ${kind}, stream=${stream}`;
          await gw.clearSim();
          const r = await send(client, `fo/${upstream}/${kind}`, stream);
          t.equal(r.status, 200, `${what}: ${r.text.slice(0, 300)}`);
          if (r.status !== 200) continue;
          t.match(answerText(t, client, stream, r.text, what), new RegExp(`^Hello from ${GOOD[upstream]}! You said: Hello there`), `${what}: the healthy answer`);
          t.same((await upstreamCalls(gw)).map((c) => c.body.model), [`fault:${kind}`, GOOD[upstream]], `${what}: failed over`);
        }
      }
    }
  }
});
