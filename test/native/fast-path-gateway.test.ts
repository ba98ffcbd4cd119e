// Chat → Chat and Messages → Messages streams through bin/gateway: a client gets the same answer
// whether the upstream's frames take the decoders' fast paths (recognised layouts, objects built
// only when read) or the strict parser (the same frames with a space before their JSON, which no
// recogniser accepts): a recorded stream and the bench's, as they came, with a delta's text replaced
// by raw control characters and bad escapes, and with seeded mutations of one frame. Same status, same frames (their JSON, but for the gateway's own object, the request
// id, a re-encoded frame's `created`, and an error message's offsets), same ending.
import t from 'tap';
import { send, type Answer, type Endpoint } from '../failure-modes/clients.js';
import { SSE, startFm, type Script } from '../failure-modes/upstream.js';
import { bench, edges, mutate, recorded, sse, type Dialect } from '../dialects/fast-path-frames.js';
import { prng } from '../helpers/replay.js';
import type { Frame } from '../helpers/replay.js';

/** the stream the upstream serves for each client message */
const bodies = new Map<string, string>();
const stream = (req: { body: Record<string, any> }): { headers: typeof SSE; body: string } => ({ headers: SSE, body: bodies.get(String(req.body.messages[0].content)) ?? '' });

/** What the client saw, without what differs from request to request. */
function normalised(a: Answer): string {
  const scrub = (v: any): unknown => {
    if (v === undefined || v === null || typeof v !== 'object') return v;
    const out = { ...v };
    delete out.gateway;
    delete out.created;
    if (typeof out.message === 'object' && out.message !== null) out.message = scrub(out.message);
    if (out.error !== undefined) return JSON.parse(JSON.stringify(out).replace(/req_\w+/g, 'req').replace(/\d+/g, '#'));
    return out;
  };
  const frames = a.frames.length > 0 ? a.frames.map((f, i) => [f.event ?? '', a.data[i] === undefined ? f.data : scrub(a.data[i])]) : [scrub(a.json ?? a.text)];
  return JSON.stringify([a.status, frames]);
}

interface Case {
  dialect: Dialect;
  endpoint: Endpoint;
  model: string;
  name: string;
  list: Frame[];
}

const rand = prng(5);
const cases: Case[] = [];
for (const [dialect, endpoint, file, model] of [
  ['openai-chat', 'chat', 'text-usage.sse', 'gpt-4.1-nano'],
  ['anthropic', 'messages', 'text-basic.sse', 'claude-haiku-4-5'],
] as const) {
  const streams: [string, string, Frame[]][] = [[file, model, recorded(dialect).find(([n]) => n === file)![1]], ['bench', 'bench-model', bench(dialect)[1]]];
  for (const [name, upstreamModel, list] of streams) {
    cases.push({ dialect, endpoint, model: upstreamModel, name: `${name} as recorded`, list });
    edges(list).forEach((edge, k) => cases.push({ dialect, endpoint, model: upstreamModel, name: `${name}, edge ${k}`, list: edge }));
    for (let k = 0; k < 12; k++) cases.push({ dialect, endpoint, model: upstreamModel, name: `${name}, mutation ${k}`, list: mutate(list, rand) });
  }
}
cases.forEach((c, i) => {
  bodies.set(`${i} fast`, sse(c.list, false).toString());
  bodies.set(`${i} strict`, sse(c.list, true).toString());
});

/** a catalog model per dialect and upstream model (`fm/<dialect>-<model>`), served the frames' model */
const catalog = [...new Set(cases.map((c) => `${c.dialect} ${c.model}`))].map((k) => {
  const [dialect, model] = k.split(' ') as [Dialect, string];
  const api = dialect === 'anthropic' ? ('messages' as const) : ('chat' as const);
  return { name: `${dialect}-${model}`, api, extra: { deployments: [{ provider: api === 'messages' ? 'up-anthropic' : 'up-openai', model, ...(api === 'chat' ? { api } : {}) }] } };
});
const script: Script = Object.fromEntries(cases.map((c) => [c.model, stream]));

t.test('the fast paths and the strict parser give a client the same stream', async (t) => {
  const { gw } = await startFm(t, script, catalog);
  let ok = 0;
  for (const [i, c] of cases.entries()) {
    const body = (key: string): Record<string, unknown> => ({ model: `fm/${c.dialect}-${c.model}`, max_tokens: 100, stream: true, messages: [{ role: 'user', content: key }] });
    const fast = await send(gw, c.endpoint, body(`${i} fast`));
    const strict = await send(gw, c.endpoint, body(`${i} strict`));
    t.equal(normalised(fast), normalised(strict), `${c.dialect} ${c.name}`);
    if (fast.status === 200 && !fast.text.includes('"error"')) ok++;
  }
  t.ok(ok >= 4, `streams that succeed are among them (${ok})`);
});
