// The native path for a non-streaming Message from an Anthropic upstream (anthropic/through-json.ts):
// - every recorded Messages JSON answer (fixtures/upstream/anthropic/*.json), as recorded and spaced
//   out, replayed through the production stages as the gateway writes it now and with every event
//   re-encoded (the path before): the client gets the same answer (the re-encoder copies every member,
//   so there is no upstream member to tell apart); answers with tool use, thinking, server tools or
//   citations are re-encoded exactly as before;
// - through bin/gateway, a plain answer reaches the client as the upstream's bytes (its spacing, its
//   escapes) with only the model, private usage members, `diagnostics` and the `gateway` object
//   changed; other answers are re-encoded; an answer that breaks an integrity rule is still refused.
import { readdirSync, readFileSync } from 'node:fs';
import t from 'tap';
import { replay, type ReplayOptions } from '../../lib/replay/index.js';
import { fixture } from '../helpers/paths.js';
import { send } from '../failure-modes/clients.js';
import { JSON_HEAD, modelId, startFm, type Script } from '../failure-modes/upstream.js';

const recordings = readdirSync(fixture('upstream', 'anthropic')).filter((f) => f.endsWith('.json')).sort();
const through: string[] = [];
const opts: ReplayOptions = { from: 'anthropic', output: 'json', seed: 5, now: 1234, clientModel: 'claude-as-asked' };

for (const name of recordings) {
  t.test(`anthropic/${name}`, async (t) => {
    const recorded = readFileSync(fixture('upstream', 'anthropic', name));
    const spaced = Buffer.from(JSON.stringify(JSON.parse(recorded.toString('utf8')), null, 1));
    for (const [form, bytes] of [['recorded', recorded], ['spaced', spaced]] as const) {
      for (const chunks of [undefined, 1, 'random'] as const) {
        const how = `${form}, ${chunks === undefined ? 'whole' : `chunks ${chunks}`}`;
        const native = replay(bytes, { ...opts, chunks });
        const old = replay(bytes, { ...opts, chunks, reencode: true });
        t.equal(native.status, old.status, `${how}: the same status`);
        t.same(JSON.parse(native.text), JSON.parse(old.text), `${how}: the same answer`);
        if (form === 'spaced' && chunks === undefined && native.text !== old.text) through.push(name);
      }
    }
  });
}

t.test('plain answers go through, the others are re-encoded', async (t) => {
  t.same(through, ['cache-read.json', 'cache-write.json', 'max-tokens.json', 'text-basic.json'], 'the plain text answers went through');
  const spaced = JSON.stringify(JSON.parse(readFileSync(fixture('upstream', 'anthropic', 'text-basic.json'), 'utf8')), null, 1);
  const text = replay(Buffer.from(spaced), opts).text;
  t.equal(text, spaced.replace('"model": "claude-haiku-4-5-20251001"', '"model":"claude-as-asked"'), 'the upstream\'s bytes with the model the client asked for');
});

const UPSTREAM_BODY = `{"id": "msg_up", "type": "message", "role": "assistant", "model": "m-json-2025-01-31",
 "content": [{"type": "text", "text": "caf\\u00e9 \\/ ok"}, {"type": "text", "text": "two", "citations": null}],
 "stop_reason": "end_turn", "usage": {"input_tokens": 9, "output_tokens": 3, "cost": 0.5, "service_tier": "standard"}}
`;

const pretty = (o: unknown): string => JSON.stringify(o, null, 2);
const message = (model: string, content: unknown[], stop = 'end_turn'): string =>
  pretty({ id: 'msg_up', type: 'message', role: 'assistant', model, content, stop_reason: stop, stop_sequence: null, usage: { input_tokens: 9, output_tokens: 3 } });
const script: Script = {
  'm-json': { headers: JSON_HEAD, body: UPSTREAM_BODY },
  'm-tool': { headers: JSON_HEAD, body: message('m-tool', [{ type: 'text', text: 'Looking.' }, { type: 'tool_use', id: 'toolu_1', name: 'lookup', input: { q: 'x' } }], 'tool_use') },
  'm-thinking': { headers: JSON_HEAD, body: message('m-thinking', [{ type: 'thinking', thinking: 'hmm', signature: 'c2ln' }, { type: 'text', text: 'ok' }]) },
  'm-broken': { headers: JSON_HEAD, body: UPSTREAM_BODY.replace('m-json-2025-01-31', 'm-broken').replace('"output_tokens": 3', '"output_tokens": -3') },
};

t.test('Messages → Messages JSON through bin/gateway: the upstream\'s bytes with the gateway\'s changes', async (t) => {
  const { gw } = await startFm(t, script, ['m-json', 'm-tool', 'm-thinking', 'm-broken'].map((name) => ({ name, api: 'messages' as const })));
  const body = (name: string, extra: Record<string, unknown> = {}): Record<string, unknown> => ({ model: modelId(name), max_tokens: 256, messages: [{ role: 'user', content: 'hi' }], ...extra });
  const a = await send(gw, 'messages', body('m-json'));
  t.equal(a.status, 200, a.text.slice(0, 300));
  const want = UPSTREAM_BODY.trimEnd()
    .replace('"model": "m-json-2025-01-31"', `"model":"${modelId('m-json')}"`)
    .replace(/"usage": \{.*\}\}$/, '"usage":{"input_tokens":9,"output_tokens":3,"service_tier":"standard"},"stop_sequence":null}');
  t.equal(a.text, want, 'the upstream\'s bytes (spacing, escapes) with the model asked for, the usage without its private cost and the re-encoder\'s stop_sequence');

  const capped = await send(gw, 'messages', body('m-json', { max_tokens: 32000, diagnostics: { previous_message_id: null } }), { headers: { 'anthropic-beta': 'cache-diagnosis-2026-04-07' } });
  t.equal(capped.status, 200, capped.text.slice(0, 300));
  t.ok(capped.text.startsWith(want.slice(0, -1)), 'the same bytes');
  t.match(capped.json, { diagnostics: null, gateway: { max_tokens_capped_to: 8192 } }, 'diagnostics answered and the gateway object added');
  t.same(Object.keys(capped.json).slice(-2), ['diagnostics', 'gateway'], 'last');

  for (const name of ['m-tool', 'm-thinking']) {
    const r = await send(gw, 'messages', body(name));
    t.equal(r.status, 200, r.text.slice(0, 300));
    t.equal(r.text, JSON.stringify(r.json), `${name}: re-encoded (not the upstream's spacing)`);
    t.same(r.json.content, JSON.parse((script[name] as { body: string }).body).content, `${name}: the content as it came`);
    t.equal(r.json.model, modelId(name), `${name}: the model asked for`);
  }

  const broken = await send(gw, 'messages', body('m-broken'));
  // failed over before a byte went out; with no other deployment, the client is told why
  t.equal(broken.status, 503, 'an answer that breaks an integrity rule is refused');
  t.match(broken.json, { type: 'error', error: { message: /integrity check: message\.usage\.output_tokens must be a non-negative integer/ } });
  // the answer's text as sent or decoded (a bare /caf/ also matched a random hex request id)
  t.notMatch(broken.text, /caf(\\u00e9|é)/, 'none of the answer reaches the client');
});
