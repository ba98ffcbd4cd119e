// A 2xx stream whose preamble, first content frame and more arrive in ONE chunk (as a fast provider,
// or the bench's upstream, sends a short answer), through bin/gateway, for each upstream dialect:
// the answer check reads that chunk only up to its first content frame (lib/providers/answer-check.ts),
// and must still decide exactly as if it had read the whole chunk:
// - a malformed frame right before the first content frame is a failed answer: the next deployment;
// - bytes that are not UTF-8 after the first content frame, in the same chunk, are too (nothing of
//   the chunk was handed on yet);
// - a malformed frame after the first content frame is not the check's to see: the answer is the
//   client's, and the strict decoding downstream fails it with an integrity error (no failover).
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import { baseConfig, startGateway, withModels, type RunningGateway } from '../helpers/gateway.js';
import { dataOf, events, msg, parseSse, post, upstreamCalls } from '../helpers/messages.js';
import { fixture } from '../helpers/paths.js';

type Upstream = 'messages' | 'chat' | 'responses';

interface Recorded {
  /** the recorded stream, frame by frame (each ends in its blank line) */
  frames: string[];
  /** index of its first content frame */
  content: number;
  /** the model it answered as, without its date */
  model: string;
  /** a frame the upstream dialect's decoder refuses */
  malformed: string;
}

function recorded(dir: string, file: string, isContent: (frame: string) => boolean, malformed: string): Recorded {
  const text = readFileSync(fixture('upstream', dir, file), 'utf8');
  const frames = text.split(/(?<=\n\n)/);
  const model = /"model":"([^"]+)"/.exec(text)![1]!.replace(/-(\d{8}|\d{4}-\d{2}-\d{2})$/, '');
  return { frames, content: frames.findIndex(isContent), model, malformed };
}

const RECORDED: Record<Upstream, Recorded> = {
  messages: recorded('anthropic', 'text-basic.sse', (f) => f.startsWith('event: content_block_delta'), 'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,\n\n'),
  chat: recorded('openai-chat', 'text-usage.sse', (f) => /"delta":\{"content":"[^"]/.test(f), 'data: {"id":"chatcmpl-broken","choices":[\n\n'),
  responses: recorded('openai-responses', 'text.sse', (f) => f.startsWith('event: response.output_text.delta'), 'event: response.output_text.delta\ndata: {"type":"response.output_text.delta",\n\n'),
};

/** the faults, each placed around the recorded stream's first content frame, the whole sent in one write */
const VARIANTS: Record<string, (r: Recorded) => Buffer> = {
  'malformed-before': (r) => Buffer.from([...r.frames.slice(0, r.content), r.malformed, ...r.frames.slice(r.content)].join('')),
  'bad-utf8-after': (r) =>
    Buffer.concat([Buffer.from(r.frames.slice(0, r.content + 1).join('')), Buffer.from(': not utf-8 '), Buffer.from([0xff, 0xfe]), Buffer.from('\n\n'), Buffer.from(r.frames.slice(r.content + 1).join(''))]),
  'malformed-after': (r) => Buffer.from([...r.frames.slice(0, r.content + 1), r.malformed, ...r.frames.slice(r.content + 1)].join('')),
};

/** A loopback upstream: `/<variant>/v1/<api>` answers with that variant of the dialect's recorded stream, in one write. */
async function craftedUpstream(): Promise<{ url: string; close: () => Promise<void> }> {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const [, variant, , api] = (req.url ?? '').split('/');
      const upstream: Upstream = api === 'messages' ? 'messages' : api === 'chat' ? 'chat' : 'responses';
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(VARIANTS[variant!]!(RECORDED[upstream]));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

const UPSTREAMS: Upstream[] = ['messages', 'chat', 'responses'];
const GOOD: Record<Upstream, { provider: string; model: string; api?: string }> = {
  messages: { provider: 'sim-anthropic', model: 'claude-good' },
  chat: { provider: 'sim-openai', model: 'gpt-good', api: 'chat' },
  responses: { provider: 'sim-openai', model: 'gpt-good', api: 'responses' },
};

let gw: RunningGateway;
t.before(async () => {
  const up = await craftedUpstream();
  t.teardown(up.close);
  const base = baseConfig();
  const providers = [...(base.providers as Record<string, unknown>[])];
  const models: Record<string, unknown>[] = [];
  for (const variant of Object.keys(VARIANTS)) {
    providers.push({ id: `${variant}-a`, protocol: 'anthropic', baseUrl: `${up.url}/${variant}`, apiKey: 'sk-upstream-unused' });
    providers.push({ id: `${variant}-o`, protocol: 'openai', baseUrl: `${up.url}/${variant}/v1`, apiKey: 'sk-upstream-unused' });
    for (const u of UPSTREAMS) {
      const crafted = u === 'messages' ? { provider: `${variant}-a`, model: RECORDED[u].model } : { provider: `${variant}-o`, model: RECORDED[u].model, api: u };
      models.push({ id: `fc/${u}/${variant}`, family: u === 'messages' ? 'anthropic' : 'openai', deployments: [crafted, GOOD[u]], pricing: { input: 1, output: 1 }, input: ['text'], maxOutputTokens: 4096 });
    }
  }
  gw = await startGateway(withModels({ ...base, providers }, models));
});
t.teardown(() => gw?.stop());

for (const variant of ['malformed-before', 'bad-utf8-after']) {
  t.test(`${variant} the first content frame, in the same chunk: the next deployment answers`, async (t) => {
    for (const u of UPSTREAMS) {
      await gw.clearSim();
      const r = await post(gw, msg(`fc/${u}/${variant}`, { stream: true }));
      t.equal(r.status, 200, `${u}: ${r.text.slice(0, 300)}`);
      const frames = parseSse(r.text);
      const names = events(frames);
      t.equal(names.filter((e) => e === 'message_start').length, 1, `${u}: one message_start (${names.join(',')})`);
      t.equal(names.at(-1), 'message_stop', `${u}: a complete stream`);
      const text = frames.filter((f) => f.event === 'content_block_delta').map((f) => dataOf(f).delta.text as string).join('');
      t.match(text, new RegExp(`^Hello from ${GOOD[u].model}!`), `${u}: the healthy deployment's answer only`);
      t.same((await upstreamCalls(gw)).map((c) => c.body.model), [GOOD[u].model], `${u}: the healthy deployment was called`);
    }
  });
}

t.test('a malformed frame after the first content frame, in the same chunk: no failover, an integrity error', async (t) => {
  for (const u of UPSTREAMS) {
    await gw.clearSim();
    const r = await post(gw, msg(`fc/${u}/malformed-after`, { stream: true }));
    t.match(r.text, /integrity/i, `${u}: the client is told the answer failed its integrity check (${r.status})`);
    t.notMatch(r.text, /Hello from/, `${u}: nothing of another deployment`);
    t.same(await upstreamCalls(gw), [], `${u}: no other deployment was tried`);
  }
});
