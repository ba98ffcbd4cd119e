// The native path for a non-streaming Response from a Responses upstream (openai-responses/through-json.ts):
// - every recorded Responses JSON answer (fixtures/upstream/openai-responses/*.json), as recorded and
//   with its texts' first letter escaped (\u0041 for A: bytes the re-encoder would not write), replayed
//   through the production stages as the gateway writes it now and with every event re-encoded (the
//   path before): the client gets the same answer, the same usage and cost; a plain answer keeps the
//   upstream's text bytes; answers with function calls, reasoning state, a refusal, citations or an
//   unfinished item are re-encoded exactly as before;
// - through bin/gateway, a plain answer is the gateway's Response with the message's text as the
//   upstream's bytes (its escapes) under the gateway's item id (the one the streamed answer gives it);
//   other answers are re-encoded; an answer that breaks an integrity rule is still refused.
import { readdirSync, readFileSync } from 'node:fs';
import t from 'tap';
import { replay, type ReplayOptions } from '../../lib/replay/index.js';
import { fixture } from '../helpers/paths.js';
import { send } from '../failure-modes/clients.js';
import { JSON_HEAD, modelId, responsesStream, startFm, type Script } from '../failure-modes/upstream.js';

type Obj = Record<string, unknown>;
const served: ReplayOptions['served'] = { modelId: 'openai/served-model', pricing: { input: 1.25, output: 10, cacheRead: 0.125 } };

/** The recording with the first letter of each `text` written as a \u escape. */
function escaped(bytes: Buffer): Buffer {
  return Buffer.from(bytes.toString('utf8').replace(/("text": ?")([A-Za-z])/g, (_m, head: string, c: string) => `${head}\\u00${c.charCodeAt(0).toString(16)}`));
}

const recordings = readdirSync(fixture('upstream', 'openai-responses')).filter((f) => f.endsWith('.json')).sort();
const through: string[] = [];

for (const name of recordings) {
  t.test(`openai-responses/${name}`, async (t) => {
    const recorded = readFileSync(fixture('upstream', 'openai-responses', name));
    for (const [form, bytes] of [['recorded', recorded], ['escaped', escaped(recorded)]] as const) {
      for (const chunks of [undefined, 1, 'random'] as const) {
        const how = `${form}, ${chunks === undefined ? 'whole' : `chunks ${chunks}`}`;
        const native = replay(bytes, { from: 'openai-responses', output: 'json', chunks, seed: 5, served, now: 1234 });
        const old = replay(bytes, { from: 'openai-responses', output: 'json', chunks, seed: 5, served, now: 1234, reencode: true });
        t.equal(native.status, old.status, `${how}: the same status`);
        t.same(JSON.parse(native.text), JSON.parse(old.text), `${how}: the same answer, usage and cost`);
        if (form === 'escaped' && chunks === undefined && native.text !== old.text) through.push(name);
      }
    }
  });
}

t.test('plain answers go through, the others are re-encoded', async (t) => {
  t.same(through, ['cached-tokens.json'], 'the plain text answer went through');
  const native = replay(escaped(readFileSync(fixture('upstream', 'openai-responses', 'cached-tokens.json'))), { from: 'openai-responses', output: 'json', served });
  const answer = JSON.parse(native.text) as Obj;
  t.match(answer, { id: 'resp_replay', model: 'openai/served-model', store: false, service_tier: null, output: [{ id: 'msg_replay_0', type: 'message', content: [{ text: 'OK' }] }] }, 'the gateway\'s members and item id');
  t.equal(native.text, JSON.stringify(answer).replace('"text":"OK"', '"text":"\\u004fK"'), 'the gateway\'s Response, the message\'s text bytes the upstream\'s');
  t.notOk('billing' in answer, 'the Response\'s members are the gateway\'s alone');
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
  'r-json-sse': { body: responsesStream('r-json-sse', [{ type: 'message', text: 'café / ok' }], { usage: USAGE }) },
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

t.test('Responses → Responses JSON through bin/gateway: the gateway\'s Response with the upstream\'s text bytes', async (t) => {
  const { gw } = await startFm(t, script, ['r-json', 'r-json-sse', 'r-call', 'r-refusal', 'r-broken'].map((name) => ({ name, api: 'responses' as const })));
  const body = (name: string): Obj => ({ model: modelId(name), input: 'hi', instructions: 'be brief' });
  const a = await send(gw, 'responses', body('r-json'));
  t.equal(a.status, 200, a.text.slice(0, 300));
  const base = String(a.json.id).replace(/^resp_/, '');
  t.match(a.json.output[1], { id: `msg_${base}_0`, type: 'message', content: [{ type: 'output_text', text: 'café / ok' }] }, 'the message under the gateway\'s item id');
  t.equal(a.text, JSON.stringify(a.json).replace('"text":"café / ok"', '"text":"caf\\u00e9 \\/ ok"'), 'the gateway\'s Response, the message\'s text bytes as they came (escapes kept)');
  t.match(a.json, { object: 'response', status: 'completed', model: modelId('r-json'), store: false, instructions: 'be brief', service_tier: null });
  t.notOk('billing' in a.json, 'the Response\'s members are the gateway\'s alone');
  t.ok(a.json.created_at > 1e9 && a.json.completed_at >= a.json.created_at, 'the gateway\'s clock');
  t.same(a.json.output[0], { id: 'rs_up', type: 'reasoning', summary: [] }, 'a reasoning item without state, as the upstream sent it');
  t.same(a.json.usage, USAGE, 'the validated usage');
  t.ok(a.json.gateway.cost > 0, 'the gateway object with the cost settle charges');
  t.same(Object.keys(a.json).slice(-1), ['gateway'], 'the gateway object last');

  const streamed = await send(gw, 'responses', { ...body('r-json-sse'), stream: true });
  const completed = streamed.data.find((d) => d?.type === 'response.completed')?.response;
  const same = (r: Obj): Obj => ({ ...r, id: '', created_at: 0, completed_at: 0, output: [], model: '', gateway: { ...(r.gateway as Obj), cost: 0 } });
  t.same(same(a.json), same(completed), 'the Response the streamed answer ends with (but for its id, clock, model and items)');
  const message = (r: Obj, i: number): Obj => ({ ...(r.output as Obj[])[i], id: String((r.output as Obj[])[i]!.id).replace(/_[^_]+_0$/, '') });
  t.same(message(a.json, 1), message(completed, 0), 'and its message item');
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
