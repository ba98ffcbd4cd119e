// FAILURE-MODES.md §6 — prompt caching, usage accounting and cost: cache_control across translation,
// byte-stable bodies, token semantics in each dialect, cost counted once.
import t from 'tap';
import { send } from './clients.js';
import { anthropicJson, chatJson, JSON_HEAD, modelId, startFm, type Api, type Script } from './upstream.js';

// pricing of every fm/ model, USD per million tokens (upstream.ts): input 1, output 2, cacheRead 0.1, cacheWrite 1.25
const A_USAGE = { input_tokens: 400, cache_read_input_tokens: 600, cache_creation_input_tokens: 100, output_tokens: 20 };
const COST = (400 * 1 + 20 * 2 + 600 * 0.1 + 100 * 1.25) / 1e6;

const script: Script = {
  'a-cached': { headers: JSON_HEAD, body: anthropicJson('a-cached', [{ type: 'text', text: 'ok' }], 'end_turn', A_USAGE) },
  'c-cached': { headers: JSON_HEAD, body: chatJson('c-cached', { content: 'ok' }, 'stop', { prompt_tokens: 1000, completion_tokens: 20, total_tokens: 1020, prompt_tokens_details: { cached_tokens: 600 } } as never) },
  'r-cached': {
    headers: JSON_HEAD,
    body: JSON.stringify({
      id: 'resp_c', object: 'response', created_at: 1, model: 'r-cached', status: 'completed',
      output: [{ id: 'msg_c', type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'ok', annotations: [] }] }],
      usage: { input_tokens: 1000, input_tokens_details: { cached_tokens: 600 }, output_tokens: 20, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 1020 },
    }),
  },
};
const models: { name: string; api: Api }[] = [
  { name: 'a-cached', api: 'messages' },
  { name: 'c-cached', api: 'chat' },
  { name: 'r-cached', api: 'responses' },
];

const CC_BODY = {
  max_tokens: 100,
  system: [{ type: 'text', text: 'You are Claude Code.', cache_control: { type: 'ephemeral', ttl: '1h' } }],
  tools: [{ name: 'bash', input_schema: { type: 'object', properties: {} }, cache_control: { type: 'ephemeral', ttl: '1h' } }],
  messages: [{ role: 'user', content: [{ type: 'text', text: 'hi', cache_control: { type: 'ephemeral', ttl: '1h' } }] }],
};

t.test('failure modes §6', async (t) => {
  const { up, gw } = await startFm(t, script, models);
  const last = (m: string) => up.calls(m).at(-1)!;

  t.test('F46 cache_control: Chat and Responses clients on Claude get a breakpoint', async (t) => {
    await send(gw, 'chat', { model: modelId('a-cached'), messages: [{ role: 'system', content: 'long prefix' }, { role: 'user', content: 'hi' }] });
    t.same(last('a-cached').body.cache_control, { type: 'ephemeral' }, 'from Chat');
    await send(gw, 'responses', { model: modelId('a-cached'), instructions: 'long prefix', input: 'hi' });
    t.same(last('a-cached').body.cache_control, { type: 'ephemeral' }, 'from Responses');
    await send(gw, 'messages', { model: modelId('a-cached'), ...CC_BODY });
    t.same(last('a-cached').body.system, CC_BODY.system, 'a Messages client’s own breakpoints reach Claude unchanged');
  });

  t.test('F47 cache_control (ttl 1h) never reaches an upstream that does not know it', async (t) => {
    for (const m of ['c-cached', 'r-cached']) {
      const a = await send(gw, 'messages', { model: modelId(m), ...CC_BODY });
      t.equal(a.status, 200, a.text.slice(0, 200));
      t.notOk(last(m).raw.toString().includes('cache_control'), `${m}: no cache_control upstream`);
    }
  });

  t.test('F48 byte-stable bodies: the same request gives the same upstream bytes (native and translated)', async (t) => {
    const raw = JSON.stringify({ model: modelId('a-cached'), ...CC_BODY });
    const before = up.calls('a-cached').length;
    for (let i = 0; i < 3; i++) await send(gw, 'messages', undefined, { raw });
    const native = up.calls('a-cached').slice(before).map((r) => r.raw.toString());
    t.equal(new Set(native).size, 1, 'native: three identical upstream bodies');
    t.equal(native[0], raw.replace(`"model":"${modelId('a-cached')}"`, '"model":"a-cached"'), 'native: the client’s bytes, only the model name changed');
    const chatBody = { model: modelId('a-cached'), messages: [{ role: 'system', content: 'prefix' }, { role: 'user', content: 'hi' }], tools: [{ type: 'function', function: { name: 'bash', parameters: { type: 'object', properties: {} } } }] };
    const mark = up.calls('a-cached').length;
    for (let i = 0; i < 3; i++) await send(gw, 'chat', chatBody);
    t.equal(new Set(up.calls('a-cached').slice(mark).map((r) => r.raw.toString())).size, 1, 'translated: three identical upstream bodies');
  });

  t.test('F49 input-token meaning per dialect: Anthropic input excludes cache reads and writes, OpenAI totals include them', async (t) => {
    const c = await send(gw, 'chat', { model: modelId('a-cached'), messages: [{ role: 'user', content: 'hi' }] });
    t.match(c.json.usage, { prompt_tokens: 1100, completion_tokens: 20, prompt_tokens_details: { cached_tokens: 600 } }, 'Claude → Chat: prompt_tokens = input + reads + writes');
    const r = await send(gw, 'responses', { model: modelId('a-cached'), input: 'hi' });
    t.match(r.json.usage, { input_tokens: 1100, output_tokens: 20, input_tokens_details: { cached_tokens: 600 } }, 'Claude → Responses');
    for (const m of ['c-cached', 'r-cached']) {
      const a = await send(gw, 'messages', { model: modelId(m), max_tokens: 100, messages: [{ role: 'user', content: 'hi' }] });
      t.match(a.json.usage, { input_tokens: 400, cache_read_input_tokens: 600, output_tokens: 20 }, `${m} → Messages: input_tokens excludes the cached part`);
    }
  });

  t.test('F50 cost counted once: cache reads and writes at their own prices, nothing twice', async (t) => {
    const c = await send(gw, 'chat', { model: modelId('a-cached'), messages: [{ role: 'user', content: 'hi' }] });
    const r = await send(gw, 'responses', { model: modelId('a-cached'), input: 'hi' });
    const costs = [c.json.usage?.cost ?? c.json.gateway?.cost, r.json.gateway?.cost ?? r.json.usage?.cost];
    for (const cost of costs) t.ok(Math.abs(Number(cost) - COST) < 1e-9, `cost ${cost} = ${COST}`);
  });
});
