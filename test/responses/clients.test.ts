// Real clients of POST /v1/responses: the `openai` SDK (`responses.create`, streaming, and the
// `responses.stream().finalResponse()` helper) and replays of the request bodies Codex CLI 0.169.0
// really sent (/work/shared/clients/codex_*.jsonl, copied under fixtures when present).
import { existsSync, readFileSync } from 'node:fs';
import OpenAI from 'openai';
import t from 'tap';
import { baseConfig, startGateway, TEST_KEY, withModels, type RunningGateway } from '../helpers/gateway.js';
import { parseSse } from '../helpers/messages.js';

const config = withModels(baseConfig(), [
  { id: 'openai/gpt-5-mini', deployments: [{ provider: 'sim-openai', model: 'gpt-5-mini', api: 'responses' }], pricing: { input: 0.25, output: 2 }, input: ['text', 'image'], reasoning: true, family: 'openai' },
]);
let gw: RunningGateway;
t.before(async () => {
  gw = await startGateway(config);
});
t.teardown(() => gw?.stop());

const MODELS = ['anthropic/claude-sonnet-5', 'openai/gpt-5', 'openai/gpt-5-mini'];
const WEATHER = { type: 'function' as const, name: 'get_weather', description: 'weather', strict: true, parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false } };

function client(): OpenAI {
  return new OpenAI({ apiKey: TEST_KEY, baseURL: `${gw.url}/v1`, maxRetries: 0 });
}

for (const model of MODELS) {
  t.test(`openai SDK: responses.create, stream, stream().finalResponse() (${model})`, async (t) => {
    const openai = client();
    const res = await openai.responses.create({ model, input: 'Hello there', instructions: 'Be brief.' });
    t.equal(res.status, 'completed');
    t.equal(res.model, model);
    t.match(res.output_text, /Hello there/, 'the SDK reads output_text from the items');
    t.ok((res.usage?.total_tokens ?? 0) > 0);
    t.ok(((res as unknown as { gateway: { cost: number } }).gateway.cost) > 0);

    const types: string[] = [];
    const stream = await openai.responses.create({ model, input: 'Hello there', stream: true });
    for await (const ev of stream) types.push(ev.type);
    t.equal(types[0], 'response.created');
    t.equal(types.at(-1), 'response.completed');

    const helper = openai.responses.stream({ model, input: 'What is the weather in Paris?', tools: [WEATHER], tool_choice: 'required' });
    let args = '';
    helper.on('response.function_call_arguments.delta', (ev) => {
      args += ev.delta;
    });
    const final = await helper.finalResponse();
    t.equal(final.status, 'completed');
    const call = final.output.find((o) => o.type === 'function_call');
    t.ok(call && call.type === 'function_call' && call.name === 'get_weather', 'a function call');
    if (call?.type !== 'function_call') return;
    t.equal(call.arguments, args, 'streamed arguments add up');

    const next = await openai.responses.create({
      model,
      tools: [WEATHER],
      input: [{ role: 'user', content: 'What is the weather in Paris?' }, ...final.output, { type: 'function_call_output', call_id: call.call_id, output: 'Sunny' }] as OpenAI.Responses.ResponseInput,
    });
    t.match(next.output_text, /Sunny/, 'tool result round trip');
  });
}

t.test('openai SDK: a validation error surfaces as a BadRequestError with code and param', async (t) => {
  const err = await client()
    .responses.create({ model: 'anthropic/claude-sonnet-5', input: 'x', store: true })
    .catch((e: unknown) => e);
  t.ok(err instanceof OpenAI.BadRequestError);
  t.match(err, { status: 400, code: 'unsupported_parameter', param: 'store' });
});

// ---- Codex replay ---------------------------------------------------------------------------------

const CAPTURES = ['/work/shared/clients/codex_basic.jsonl', '/work/shared/clients/codex_more.jsonl'];

interface Captured {
  label: string;
  body: Record<string, unknown>;
  headers: Record<string, string>;
}

function captured(): Captured[] {
  const out: Captured[] = [];
  for (const file of CAPTURES) {
    if (!existsSync(file)) continue;
    for (const line of readFileSync(file, 'utf8').split('\n')) {
      if (line.trim() === '') continue;
      const rec = JSON.parse(line) as { label: string; path: string; method: string; body: unknown; headers: Record<string, string> };
      if (rec.method !== 'POST' || rec.path !== '/v1/responses') continue;
      const body = typeof rec.body === 'string' ? (JSON.parse(rec.body) as Record<string, unknown>) : (rec.body as Record<string, unknown>);
      out.push({ label: rec.label, body, headers: rec.headers });
    }
  }
  return out;
}

const requests = captured();
t.test('Codex CLI request bodies replayed: 200 streams ending in response.completed', { skip: requests.length === 0 ? 'captures not available' : false }, async (t) => {
  for (const req of requests) {
    for (const model of [...MODELS, 'gateway-auto']) {
      const headers: Record<string, string> = { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json', accept: 'text/event-stream' };
      for (const h of ['session-id', 'x-codex-turn-metadata', 'x-codex-window-id', 'originator', 'user-agent']) {
        if (typeof req.headers[h] === 'string') headers[h] = req.headers[h];
      }
      const r = await fetch(`${gw.url}/v1/responses`, { method: 'POST', headers, body: JSON.stringify({ ...req.body, model }) });
      const text = await r.text();
      t.equal(r.status, 200, `${req.label} on ${model}: ${text.slice(0, 300)}`);
      const frames = parseSse(text).map((f) => ({ event: f.event, data: JSON.parse(f.data) as { type: string; response?: { status: string } } }));
      t.equal(frames[0]?.event, 'response.created', `${req.label} on ${model}: starts with response.created`);
      t.equal(frames.at(-1)?.event, 'response.completed', `${req.label} on ${model}: ends with response.completed`);
    }
  }
});
