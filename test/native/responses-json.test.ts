// The native path for a non-streaming Response from a Responses upstream (openai-responses/through-json.ts):
// - every recorded Responses JSON answer (fixtures/upstream/openai-responses/*.json) replayed through the
//   production stages as the gateway writes it now and with every event re-encoded (the path before):
//   the client gets the same answer modulo the documented upstream members (`billing`, `moderation`,
//   `prompt_cache_retention`, `tool_usage`), the same usage and cost; answers with function calls,
//   reasoning state, a refusal, citations or an unfinished item are re-encoded exactly as before;
// - through bin/gateway, a plain answer reaches the client as the upstream's bytes (its spacing, its
//   escapes) with the Response's own members the gateway's and the message's id the gateway's item id
//   (the one the streamed answer gives it); other answers are re-encoded; an answer that breaks an
//   integrity rule is still refused.
import { readdirSync, readFileSync } from 'node:fs';
import t from 'tap';
import { replay, type ReplayOptions } from '../../lib/replay/index.js';
import { fixture } from '../helpers/paths.js';
import { send } from '../failure-modes/clients.js';
import { JSON_HEAD, modelId, startFm, type Script } from '../failure-modes/upstream.js';

type Obj = Record<string, unknown>;
const served: ReplayOptions['served'] = { modelId: 'openai/served-model', pricing: { input: 1.25, output: 10, cacheRead: 0.125 } };
/** the upstream's own members a Response that goes through keeps, which the re-encoder never wrote */
const UPSTREAM_MEMBERS = ['billing', 'moderation', 'prompt_cache_retention', 'tool_usage'];

/** A Response without the upstream members a native answer keeps. */
function view(text: string): unknown {
  const data = JSON.parse(text) as Obj;
  for (const k of UPSTREAM_MEMBERS) delete data[k];
  return data;
}

const recordings = readdirSync(fixture('upstream', 'openai-responses')).filter((f) => f.endsWith('.json')).sort();
const through: string[] = [];

for (const name of recordings) {
  t.test(`openai-responses/${name}`, async (t) => {
    const bytes = readFileSync(fixture('upstream', 'openai-responses', name));
    for (const chunks of [undefined, 1, 'random'] as const) {
      const how = chunks === undefined ? 'whole' : `chunks ${chunks}`;
      const native = replay(bytes, { from: 'openai-responses', output: 'json', chunks, seed: 5, served, now: 1234 });
      const old = replay(bytes, { from: 'openai-responses', output: 'json', chunks, seed: 5, served, now: 1234, reencode: true });
      t.equal(native.status, old.status, `${how}: the same status`);
      t.same(view(native.text), view(old.text), `${how}: the same answer, modulo the documented upstream members`);
      const usage = (text: string): unknown => [(JSON.parse(text) as Obj).usage, ((JSON.parse(text) as Obj).gateway as Obj | undefined)?.cost];
      t.same(usage(native.text), usage(old.text), `${how}: the same usage and cost`);
      if (chunks === undefined && native.text !== old.text) through.push(name);
    }
  });
}

t.test('plain answers go through, the others are re-encoded', async (t) => {
  t.same(through, ['cached-tokens.json'], 'the plain text answer went through');
  const text = replay(readFileSync(fixture('upstream', 'openai-responses', 'cached-tokens.json')), { from: 'openai-responses', output: 'json', served }).text;
  t.match(text, /\n {2}"billing": \{\n {4}"payer": "developer"\n {2}\},\n/, 'the upstream\'s bytes, its spacing kept');
  t.match(text, /"content": \[\n {8}\{\n {10}"type": "output_text",/, 'the message as it came');
  const answer = JSON.parse(text) as Obj;
  t.match(answer, { id: 'resp_replay', model: 'openai/served-model', store: false, service_tier: null, output: [{ id: 'msg_replay_0', type: 'message' }] }, 'the gateway\'s members and item id');
  t.same(Object.keys(answer).slice(-1), ['gateway'], 'the gateway object last');
});

const UPSTREAM_BODY = `{
  "id": "resp_up", "object": "response", "created_at": 7, "status": "completed", "billing": {"payer": "developer"},
  "model": "r-json-2025-01-31", "store": true, "instructions": "the upstream's echo", "service_tier": "default",
  "output": [
    {"id": "rs_up", "type": "reasoning", "summary": []},
    {"id": "msg_up", "type": "message", "status": "completed", "content": [{"type": "output_text", "annotations": [], "text": "caf\\u00e9 \\/ ok"}], "role": "assistant"}
  ],
  "usage": {"input_tokens": 9, "input_tokens_details": {"cached_tokens": 0}, "output_tokens": 3, "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 12}
}
`;

const pretty = (o: unknown): string => JSON.stringify(o, null, 2);
const USAGE = { input_tokens: 9, input_tokens_details: { cached_tokens: 0 }, output_tokens: 3, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 12 };
const script: Script = {
  'r-json': { headers: JSON_HEAD, body: UPSTREAM_BODY },
  'r-call': {
    headers: JSON_HEAD,
    body: pretty({ id: 'resp_up', object: 'response', status: 'completed', model: 'r-call', output: [{ id: 'fc_up', type: 'function_call', status: 'completed', call_id: 'call_1', name: 'lookup', arguments: '{"q":"x"}' }], usage: USAGE }),
  },
  'r-refusal': {
    headers: JSON_HEAD,
    body: pretty({ id: 'resp_up', object: 'response', status: 'completed', model: 'r-refusal', output: [{ id: 'msg_up', type: 'message', status: 'completed', content: [{ type: 'refusal', refusal: 'No.' }], role: 'assistant' }], usage: USAGE }),
  },
  'r-broken': {
    headers: JSON_HEAD,
    body: UPSTREAM_BODY.replace('r-json-2025-01-31', 'r-broken').replace('"cached_tokens": 0', '"cached_tokens": 10'),
  },
};

t.test('Responses → Responses JSON through bin/gateway: the upstream\'s bytes with the gateway\'s members written in', async (t) => {
  const { gw } = await startFm(t, script, ['r-json', 'r-call', 'r-refusal', 'r-broken'].map((name) => ({ name, api: 'responses' as const })));
  const body = (name: string): Obj => ({ model: modelId(name), input: 'hi', instructions: 'be brief' });
  const a = await send(gw, 'responses', body('r-json'));
  t.equal(a.status, 200, a.text.slice(0, 300));
  const output = UPSTREAM_BODY.slice(UPSTREAM_BODY.indexOf('"output": ['), UPSTREAM_BODY.indexOf('"id": "msg_up"'));
  t.ok(a.text.includes(output), 'the output as it came, up to the message (the reasoning item byte for byte)');
  const base = String(a.json.id).replace(/^resp_/, '');
  const message = `{"id":"msg_${base}_0", "type": "message", "status": "completed", "content": [{"type": "output_text", "annotations": [], "text": "caf\\u00e9 \\/ ok","logprobs":[]}], "role": "assistant"}`;
  t.ok(a.text.includes(message), 'the message with the gateway\'s item id, its text bytes as they came (escapes kept), the re-encoder\'s empty logprobs added');
  t.ok(a.text.startsWith('{\n  "id":"resp_'), 'the upstream\'s spacing, the gateway\'s response id');
  t.match(a.json, { object: 'response', status: 'completed', model: modelId('r-json'), store: false, instructions: 'be brief', service_tier: null, billing: { payer: 'developer' } });
  t.ok(a.json.created_at > 1e9 && a.json.completed_at >= a.json.created_at, 'the gateway\'s clock');
  t.same(a.json.output[0], { id: 'rs_up', type: 'reasoning', summary: [] }, 'a reasoning item without state, as the upstream sent it');
  t.same(a.json.usage, USAGE, 'the validated usage');
  t.ok(a.json.gateway.cost > 0, 'the gateway object with the cost settle charges');
  t.same(Object.keys(a.json).slice(-1), ['gateway'], 'the gateway object last');
  t.ok(a.text.endsWith('}'), 'nothing after the object');

  for (const [name, item] of [['r-call', { type: 'function_call', call_id: 'call_1', name: 'lookup', arguments: '{"q":"x"}' }], ['r-refusal', { type: 'message', content: [{ type: 'output_text', text: 'No.' }] }]] as const) {
    const r = await send(gw, 'responses', body(name));
    t.equal(r.status, 200, r.text.slice(0, 300));
    t.equal(r.text, JSON.stringify(r.json), `${name}: re-encoded (not the upstream's spacing)`);
    t.match(r.json.output[0], { ...item, id: new RegExp(`_${String(r.json.id).replace(/^resp_/, '')}_0$`) }, `${name}: the re-encoded item with the gateway's id`);
  }

  const broken = await send(gw, 'responses', body('r-broken'));
  // failed over before a byte went out; with no other deployment, the client is told why
  t.equal(broken.status, 503, 'an answer that breaks an integrity rule is refused');
  t.match(broken.json, { error: { code: 'provider_unavailable', message: /integrity check: response\.usage: cached tokens \(10\) exceed input_tokens \(9\)/ } });
  t.notMatch(broken.text, /caf/, 'none of the answer reaches the client');
});
