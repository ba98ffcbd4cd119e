// gateway-auto applies every hard constraint before the router weighs quality and cost. Six models
// of equal quality profile, priced in ascending order, each of the five cheapest lacking one
// capability: the router always wants the cheapest, so a request with needs 1..k is served by model
// k+1, which shows that need k (and only it) ruled model k out. When nothing fits, the 400 names
// every unmet need and the config field behind it.
import t from 'tap';
import { startGateway, type RunningGateway } from '../helpers/gateway.js';
import { chat, labConfig, labModel, messages, PIXEL, responses, TEST_KEY } from './lab.js';

const NARROW_KEY = 'sk-test-narrow-0000';
const NO_M1_KEY = 'sk-test-no-m1-0000';
const TEXT_ONLY_KEY = 'sk-test-m1-only-0000';

const models = [
  labModel('lab/m1', { input: 1, output: 5 }, 3, { input: ['text'], webSearch: false }),
  labModel('lab/m2', { input: 2, output: 10 }, 3, { tools: false }),
  labModel('lab/m3', { input: 3, output: 15 }, 3, { reasoning: false, webSearch: false }),
  labModel('lab/m4', { input: 4, output: 20 }, 3, { speeds: ['standard'], webSearch: false }),
  labModel('lab/m5', { input: 5, output: 25 }, 3, { contextWindow: 2000 }),
  labModel('lab/m6', { input: 6, output: 30 }, 3),
];
const { config } = labConfig(models, {
  keys: [
    { id: 'full', key: TEST_KEY, org: 'acme' },
    { id: 'narrow', key: NARROW_KEY, org: 'acme', models: ['lab/m1', 'lab/m2', 'lab/m3', 'lab/m4', 'lab/m5'] },
    { id: 'no-m1', key: NO_M1_KEY, org: 'acme', models: ['lab/m2', 'lab/m3', 'lab/m4', 'lab/m5', 'lab/m6'] },
    { id: 'm1-only', key: TEXT_ONLY_KEY, org: 'acme', models: ['lab/m1'] },
  ],
});

let gw: RunningGateway;
t.before(async () => {
  gw = await startGateway(config);
});
t.teardown(() => gw?.stop());

const image = { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PIXEL } };
const tool = { name: 'lookup', description: 'look something up', input_schema: { type: 'object', properties: { q: { type: 'string' } } } };
const FAST = { 'anthropic-beta': 'fast-mode-2026-02-01' };

/** The Messages request with the first `k` needs: image, tools, reasoning, fast mode, a long context. */
function withNeeds(k: number): { body: Record<string, unknown>; headers: Record<string, string> } {
  const content: unknown[] = [{ type: 'text', text: k >= 5 ? `Summarise: ${'lorem ipsum '.repeat(600)}` : 'Describe this.' }];
  if (k >= 1) content.push(image);
  const body: Record<string, unknown> = { model: 'gateway-auto', max_tokens: 2048, messages: [{ role: 'user', content }] };
  if (k >= 2) body.tools = [tool];
  if (k >= 3) body.thinking = { type: 'enabled', budget_tokens: 1024 };
  if (k >= 4) body.speed = 'fast';
  return { body, headers: k >= 4 ? FAST : {} };
}

t.test('each hard need rules out exactly the model that lacks it; the router takes the cheapest of the rest', async (t) => {
  const expected = ['lab/m1', 'lab/m2', 'lab/m3', 'lab/m4', 'lab/m5', 'lab/m6'];
  const needs = ['none', 'image input', 'tool use', 'reasoning', 'fast mode', 'a long context'];
  for (let k = 0; k <= 5; k++) {
    const { body, headers } = withNeeds(k);
    const a = await messages(gw, body, headers);
    t.equal(a.status, 200, `needs 1..${k}: ${a.text.slice(0, 300)}`);
    t.equal(a.routed, expected[k], `with ${needs[k]} the cheapest fitting model serves`);
  }
});

t.test("the key's allowlist is a hard need too", async (t) => {
  const a = await messages(gw, withNeeds(0).body, {}, NO_M1_KEY);
  t.equal(a.routed, 'lab/m2', 'the cheapest model the key may use');
  const refused = await messages(gw, withNeeds(5).body, FAST, NARROW_KEY);
  t.equal(refused.status, 400, refused.text);
  t.equal(refused.body.error?.type, 'invalid_request_error');
  t.match(refused.body.error?.message, /no model available to "gateway-auto" meets this request's needs/);
  for (const need of ['image input', 'tool use', 'reasoning', 'fast mode', 'a context window of', "the key's model allowlist"]) {
    t.ok(String(refused.body.error?.message).includes(need), `the 400 names "${need}": ${refused.body.error?.message}`);
  }
  t.match(refused.body.error?.message, /`models\[\]\.input`.*`keys\[\]\.models`|`keys\[\]\.models`/, 'and the config fields behind them');
});

t.test('search-only requests go to a model flagged webSearch (decisions §11)', async (t) => {
  const search = { type: 'web_search_20250305', name: 'web_search', max_uses: 1 };
  const plain = await messages(gw, { model: 'gateway-auto', max_tokens: 256, tools: [tool], messages: [{ role: 'user', content: 'news today?' }] });
  t.equal(plain.routed, 'lab/m1', 'with a function tool: the cheapest');
  const only = await messages(gw, { model: 'gateway-auto', max_tokens: 256, tools: [search], messages: [{ role: 'user', content: 'news today?' }] });
  t.equal(only.status, 200, only.text.slice(0, 300));
  t.equal(only.routed, 'lab/m5', 'web search as the only tool: the cheapest webSearch model with tool use (m1, m3, m4 are not flagged; m2 has no tool use)');
  const responsesOnly = await responses(gw, { model: 'gateway-auto', tools: [{ type: 'web_search' }], input: 'news today?', reasoning: { effort: 'low' } });
  t.equal(responsesOnly.status, 200, responsesOnly.text.slice(0, 300));
  t.equal(responsesOnly.routed, 'lab/m2', 'on Responses the hosted search is no function tool: the cheapest webSearch model');
  const refused = await messages(gw, { model: 'gateway-auto', max_tokens: 256, tools: [search], messages: [{ role: 'user', content: 'news today?' }] }, {}, TEXT_ONLY_KEY);
  t.equal(refused.status, 400);
  t.match(refused.body.error?.message, /web search.*`models\[\]\.webSearch`/, `names the flag: ${refused.body.error?.message}`);
});

t.test('Chat: a modality no candidate reads is 400 unsupported_modality', async (t) => {
  const wav = Buffer.concat([Buffer.from('RIFF'), Buffer.alloc(40)]).toString('base64');
  const a = await chat(gw, { model: 'gateway-auto', messages: [{ role: 'user', content: [{ type: 'text', text: 'what is said?' }, { type: 'input_audio', input_audio: { data: wav, format: 'wav' } }] }] });
  t.equal(a.status, 400, a.text);
  t.equal(a.body.error?.code, 'unsupported_modality');
  t.match(a.body.error?.message, /audio input.*`models\[\]\.input`/);
});
