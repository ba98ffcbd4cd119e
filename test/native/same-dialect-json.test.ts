// The native path for a non-streaming Chat answer from a Chat upstream (through-json.ts):
// - every recorded Chat JSON answer (fixtures/upstream/openai-chat/*.json) replayed through the
//   production stages as the gateway writes it now and with every event re-encoded (the path before):
//   the client gets the same answer modulo the documented upstream fields (`service_tier`,
//   `system_fingerprint`, `annotations: []`), the same usage and cost; answers with a refusal, tool
//   calls or annotations are re-encoded exactly as before;
// - through bin/gateway, a plain answer reaches the client as the upstream's bytes (its spacing, its
//   escapes, its member order) with only `created`, the model, the usage and the `gateway` object
//   changed, and the re-encoder's null members added.
import { readdirSync, readFileSync } from 'node:fs';
import t from 'tap';
import { replay, type ReplayOptions } from '../../lib/replay/index.js';
import { fixture } from '../helpers/paths.js';
import { send } from '../failure-modes/clients.js';
import { modelId, startFm, type Script } from '../failure-modes/upstream.js';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const served: ReplayOptions['served'] = { modelId: 'openai/served-model', pricing: { input: 1.25, output: 10, cacheRead: 0.125 } };

/** A chat.completion without the upstream fields a native answer keeps. */
function view(text: string): unknown {
  const data = JSON.parse(text) as Obj;
  for (const k of ['service_tier', 'system_fingerprint']) delete data[k];
  for (const c of Array.isArray(data.choices) ? data.choices : []) {
    const m = isObj(c) ? c.message : undefined;
    if (isObj(m) && Array.isArray(m.annotations) && m.annotations.length === 0) delete m.annotations;
  }
  return data;
}

const recordings = readdirSync(fixture('upstream', 'openai-chat')).filter((f) => f.endsWith('.json')).sort();
const through: string[] = [];

for (const name of recordings) {
  t.test(`openai-chat/${name}`, async (t) => {
    const bytes = readFileSync(fixture('upstream', 'openai-chat', name));
    for (const chunks of [undefined, 1, 'random'] as const) {
      const how = chunks === undefined ? 'whole' : `chunks ${chunks}`;
      const native = replay(bytes, { from: 'openai-chat', output: 'json', chunks, seed: 5, served, now: 1234 });
      const old = replay(bytes, { from: 'openai-chat', output: 'json', chunks, seed: 5, served, now: 1234, reencode: true });
      t.equal(native.status, old.status, `${how}: the same status`);
      t.same(view(native.text), view(old.text), `${how}: the same answer, modulo the documented upstream fields`);
      t.same((JSON.parse(native.text) as Obj).usage, (JSON.parse(old.text) as Obj).usage, `${how}: the same usage and cost`);
      if (chunks === undefined && native.text !== old.text) through.push(name);
    }
  });
}

t.test('plain answers go through, the others are re-encoded', async (t) => {
  t.same(through, ['cached-tokens.json', 'length.json', 'text.json'], 'the plain text answers went through');
  const text = replay(readFileSync(fixture('upstream', 'openai-chat', 'text.json')), { from: 'openai-chat', output: 'json', served }).text;
  t.match(text, /"system_fingerprint": "fp_7f8eb7d1f9"/, 'the upstream\'s bytes, its spacing kept');
  t.notMatch(text, /gpt-4\.1-nano/, 'with the model the client is served as');
  const answer = JSON.parse(text) as Obj;
  t.match(answer, { created: 0, model: 'openai/served-model', usage: { prompt_tokens: 14, completion_tokens: 8, total_tokens: 22, cost: Number }, gateway: Object });
  t.match(answer, { choices: [{ logprobs: null, message: { refusal: null, tool_calls: null, reasoning: null, reasoning_details: null } }] }, 'the re-encoder\'s null members');
  t.same(Object.keys(answer).slice(-1), ['gateway'], 'the gateway object last');
});

const UPSTREAM_BODY = `{"id":"chatcmpl-up", "object":"chat.completion","created":7,"model":"c-json-2025-01-31","choices":[{"index":0,"message":{"role":"assistant","content":"caf\\u00e9 \\/ ok","refusal":null,"annotations":[]},"logprobs":null,"finish_reason":"stop"}],"usage":{"prompt_tokens":9,"completion_tokens":3,"total_tokens":12},"system_fingerprint":"fp_json"}\n`;

const script: Script = {
  'c-json': { headers: { 'content-type': 'application/json' }, body: UPSTREAM_BODY },
  'c-refusal': {
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ id: 'chatcmpl-r', object: 'chat.completion', created: 7, model: 'c-refusal', choices: [{ index: 0, message: { role: 'assistant', content: null, refusal: 'No.' }, finish_reason: 'stop' }], usage: { prompt_tokens: 9, completion_tokens: 1, total_tokens: 10 } }),
  },
};

t.test('Chat → Chat JSON through bin/gateway: the upstream\'s bytes with the gateway\'s members spliced in', async (t) => {
  const { gw } = await startFm(t, script, [
    { name: 'c-json', api: 'chat' },
    { name: 'c-refusal', api: 'chat' },
  ]);
  const a = await send(gw, 'chat', { model: modelId('c-json'), messages: [{ role: 'user', content: 'hi' }] });
  t.equal(a.status, 200, a.text.slice(0, 300));
  const createdAt = a.text.indexOf('"created":');
  t.equal(a.text.slice(0, createdAt), UPSTREAM_BODY.slice(0, UPSTREAM_BODY.indexOf('"created":')), 'the upstream\'s bytes up to `created`');
  t.ok(Math.abs(a.json.created - Date.now() / 1000) < 60, 'created: the gateway\'s clock');
  const choices = UPSTREAM_BODY.slice(UPSTREAM_BODY.indexOf(',"choices"'), UPSTREAM_BODY.indexOf('"annotations":[]') + 16);
  t.ok(a.text.includes(`${choices},"tool_calls":null,"reasoning":null,"reasoning_details":null}`), 'the choices as they came (escapes kept), the re-encoder\'s nulls added');
  t.equal(a.json.model, modelId('c-json'), 'the model the client is served as');
  t.match(a.json.usage, { prompt_tokens: 9, completion_tokens: 3, total_tokens: 12, cost: Number });
  t.ok(a.json.usage.cost > 0, 'the usage with the cost settle charges');
  t.match(a.json.gateway, { routed: false }, 'the gateway object');
  t.equal(a.json.system_fingerprint, 'fp_json');
  t.ok(a.text.endsWith('}'), 'nothing after the object');

  const r = await send(gw, 'chat', { model: modelId('c-refusal'), messages: [{ role: 'user', content: 'hi' }] });
  t.equal(r.status, 200, r.text.slice(0, 300));
  t.match(r.json.choices[0].message, { role: 'assistant', content: 'No.', refusal: null, tool_calls: null }, 'a refusal is re-encoded as before');
});
