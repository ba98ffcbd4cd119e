// Native pass-through on POST /v1/messages: every recorded Anthropic stream reaches the client as
// the same events with the same `data` strings (only message_start's model becomes the requested
// value), every recorded JSON body as the same message; unknown events and deltas pass through.
//
// A fixture is served under its real model name: the deployment dispatches the model the
// recording answered with (so the integrity check compares like with like), and the provider's
// `x-sim-model` header tells the simulated provider which recording to replay.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { baseConfig, startGateway, withModels, type RunningGateway } from '../helpers/gateway.js';
import { dataOf, events, msg, parseSse, post, upstreamCalls } from '../helpers/messages.js';
import { fixture } from '../helpers/paths.js';

const DIR = fixture('upstream', 'anthropic');
const files = readdirSync(DIR);
const streams = files.filter((f) => f.endsWith('.sse')).map((f) => f.slice(0, -4)).sort();
const bodies = files.filter((f) => f.endsWith('.json')).map((f) => f.slice(0, -5)).sort();

const sseModel = (name: string): string => dataOf(parseSse(readFileSync(join(DIR, `${name}.sse`), 'utf8'))[0]).message.model as string;
const jsonModel = (name: string): string => (JSON.parse(readFileSync(join(DIR, `${name}.json`), 'utf8')) as { model: string }).model;

function fixtureModels(kind: 'sse' | 'json', names: string[]): { providers: Record<string, unknown>[]; models: Record<string, unknown>[] } {
  const providers = names.map((n) => ({ id: `fx-${kind}-${n}`, protocol: 'anthropic', simulated: true, timeoutMs: 5000, headers: { 'x-sim-model': `fixture:anthropic/${n}.${kind}` } }));
  const models = names.map((n) => ({
    id: `fx-${kind}/${n}`,
    family: 'anthropic',
    deployments: [{ provider: `fx-${kind}-${n}`, model: kind === 'sse' ? sseModel(n) : jsonModel(n) }],
    pricing: { input: 1, output: 5, cacheRead: 0.1, cacheWrite: 1.25 },
    maxOutputTokens: 64000,
  }));
  return { providers, models };
}

const sse = fixtureModels('sse', streams);
const json = fixtureModels('json', bodies);
const base = baseConfig();
const config = withModels(
  { ...base, providers: [...(base.providers as Record<string, unknown>[]), ...sse.providers, ...json.providers] },
  [
    ...sse.models,
    ...json.models,
    {
      id: 'anthropic/claude-future',
      family: 'anthropic',
      deployments: [{ provider: 'sim-anthropic', model: 'claude-future;future' }],
      pricing: { input: 1, output: 5 },
    },
  ],
);

let gw: RunningGateway;
t.before(async () => {
  gw = await startGateway(config);
});
t.teardown(() => gw?.stop());

t.test('fixtures are there', async (t) => {
  t.ok(streams.length >= 15, `${streams.length} streams`);
  t.ok(bodies.length >= 8, `${bodies.length} bodies`);
});

for (const name of streams) {
  t.test(`stream ${name}: the upstream events, data strings unchanged`, async (t) => {
    const upstream = parseSse(readFileSync(join(DIR, `${name}.sse`), 'utf8'));
    const client = `fx-sse/${name}`;
    await gw.clearSim();
    const r = await post(gw, msg(client, { stream: true }));
    t.equal(r.status, 200, r.text.slice(0, 300));
    t.match(r.headers.get('content-type'), /^text\/event-stream/);
    t.ok(r.headers.get('request-id'), 'request-id header');
    const got = parseSse(r.text);
    t.ok(
      r.text.split('\n\n').filter((b) => b.trim() !== '').every((b) => b.startsWith('event: ')),
      'every frame carries an event: line',
    );
    t.same(events(got), events(upstream), 'same events in the same order');
    for (let i = 1; i < upstream.length; i++) {
      if (got[i]?.data !== upstream[i]!.data) {
        t.equal(got[i]?.data, upstream[i]!.data, `frame ${i} (${upstream[i]!.event}) data is byte-identical`);
        return;
      }
    }
    const start = dataOf(got[0]);
    const want = dataOf(upstream[0]);
    want.message.model = client;
    t.same(start, want, 'message_start: only the model differs');
    const calls = await upstreamCalls(gw);
    t.equal(calls.length, 1);
    t.equal(calls[0]?.body.model, sseModel(name), 'the real model name was dispatched');
  });
}

for (const name of bodies) {
  t.test(`json ${name}: the upstream message, model echoed`, async (t) => {
    const upstream = JSON.parse(readFileSync(join(DIR, `${name}.json`), 'utf8')) as Record<string, unknown>;
    const client = `fx-json/${name}`;
    const r = await post(gw, msg(client));
    t.equal(r.status, 200, r.text.slice(0, 300));
    t.match(r.headers.get('content-type'), /^application\/json/);
    t.same(JSON.parse(r.text), { ...upstream, model: client });
    t.same(Object.keys(JSON.parse(r.text) as object), Object.keys(upstream), 'key order kept');
  });
}

t.test('unknown events and deltas pass through', async (t) => {
  const r = await post(gw, msg('anthropic/claude-future', { stream: true }));
  t.equal(r.status, 200);
  const frames = parseSse(r.text);
  const future = frames.find((f) => f.event === 'some_future_event');
  t.ok(future, 'the unknown event reached the client');
  t.same(dataOf(future), { type: 'some_future_event', detail: { note: 'not yet documented' } });
  const delta = frames.find((f) => f.event === 'content_block_delta' && dataOf(f).delta.type === 'future_delta');
  t.same(dataOf(delta), { type: 'content_block_delta', index: 0, delta: { type: 'future_delta', payload: [1, 2] } });
  t.equal(frames.at(-1)?.event, 'message_stop');
  const plain = await post(gw, msg('anthropic/claude-future'));
  t.match(JSON.parse(plain.text), { type: 'message', content: [{ type: 'text' }], stop_reason: 'end_turn' }, 'non-streaming ignores them');
});

t.test('streaming is decided by the body, never by Accept', async (t) => {
  const r = await post(gw, msg('opus', { stream: true }), { headers: { accept: 'application/json' } });
  t.match(r.headers.get('content-type'), /^text\/event-stream/);
  const j = await post(gw, msg('opus'), { headers: { accept: 'text/event-stream' } });
  t.match(j.headers.get('content-type'), /^application\/json/);
  t.equal(JSON.parse(j.text).type, 'message');
});
