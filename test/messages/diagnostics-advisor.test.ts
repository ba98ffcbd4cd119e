// Two Messages answers of decisions §10, through bin/gateway on an Anthropic upstream and a
// translated (OpenAI Chat) one: `diagnostics` (beta cache-diagnosis-2026-04-07) is answered, null on
// a first turn and `unavailable` for a prior message id, in the JSON Message and in message_start;
// an advisor tool naming a model that is not a catalog advisor is refused before any upstream call.
import t from 'tap';
import { baseConfig, startGateway, type RunningGateway } from '../helpers/gateway.js';
import { parseSse, post } from '../helpers/messages.js';

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

let gw: RunningGateway;
t.before(async () => {
  const config = baseConfig();
  for (const m of config.models as Obj[]) if (m.id === 'anthropic/claude-opus-5') m.advisor = true;
  gw = await startGateway(config);
});
t.teardown(() => gw?.stop());

const BETA = { 'anthropic-beta': 'cache-diagnosis-2026-04-07' };

for (const model of ['claude-sonnet-5', 'gpt-5']) {
  t.test(`${model}: diagnostics answered`, async (t) => {
    const base = { model, max_tokens: 256, messages: [{ role: 'user', content: 'Hi' }] };
    for (const [previous, want] of [[null, null], ['msg_01prior', { cache_miss_reason: { type: 'unavailable' } }]] as const) {
      const body = { ...base, diagnostics: { previous_message_id: previous } };
      const json = await post(gw, body, { headers: BETA });
      t.equal(json.status, 200, json.text.slice(0, 300));
      const message = JSON.parse(json.text) as Obj;
      t.ok('diagnostics' in message, `previous_message_id ${previous}: the JSON Message answers diagnostics`);
      t.same(message.diagnostics, want);
      const streamed = await post(gw, { ...body, stream: true }, { headers: BETA });
      const start = parseSse(streamed.text).find((f) => f.event === 'message_start');
      const envelope = (JSON.parse(start!.data) as Obj).message as Obj;
      t.ok('diagnostics' in envelope, `previous_message_id ${previous}: message_start answers diagnostics`);
      t.same(envelope.diagnostics, want);
    }
    const plain = JSON.parse((await post(gw, base)).text) as Obj;
    t.notOk('diagnostics' in plain, 'not asked, not answered');
  });

  t.test(`${model}: an advisor tool must name a catalog advisor model`, async (t) => {
    const advisor = (name: string) => ({ model, max_tokens: 256, messages: [{ role: 'user', content: 'Hi' }], tools: [{ type: 'advisor_20260301', name: 'advisor', model: name, max_uses: 2 }] });
    for (const name of ['claude-sonnet-5', 'anthropic/claude-opus-4.8', 'no-such-model']) {
      await gw.clearSim();
      const r = await post(gw, advisor(name));
      t.equal(r.status, 400, `${name}: refused`);
      const err = JSON.parse(r.text) as Obj;
      t.equal(err.error.type, 'invalid_request_error');
      t.match(err.error.message, /capability_rejected: tools\[0\]\.model: advisor model ".*" is not available/, 'names the field path');
      t.match(err.error.message, /"advisor": true/, 'and says what an advisor model is');
      t.same(await gw.simRequests(), [], 'nothing sent upstream');
    }
    // an advisor model passes; a Chat upstream then cannot run the hosted tool (another refusal)
    const ok = await post(gw, advisor('claude-opus-5'));
    t.notMatch(ok.text, /tools\[0\]\.model/, 'an advisor model passes validation');
    if (model === 'claude-sonnet-5') t.equal(ok.status, 200, ok.text.slice(0, 300));
  });
}
