// The native same-dialect path against the path it replaced. Every recorded Chat and Responses upstream
// stream (fixtures/upstream, the same bytes as ../shared/fixtures/upstream) is replayed whole, byte by
// byte and in seeded random chunks through the production stages twice: as the gateway runs it now
// (frames marked `through` written as they came, with only the gateway's fields changed) and with every
// event re-encoded from its canonical fields (`reencode`, the path before). The client must receive the
// same frames, as JSON, modulo the documented differences, the same usage and cost, and the same
// failure (rule and offset) on a recording that breaks a rule. Documented differences, upstream fields
// a Chat frame that goes through keeps and the re-encoder never wrote: `created` (the upstream's
// clock), `service_tier`, `system_fingerprint`, `obfuscation`, `usage: null` on every chunk,
// `logprobs: null` and Azure's `content_filter_results` on a choice, `refusal: null` in a delta.
// Responses frames have none: a delta frame keeps only its `delta` and `logprobs` bytes.
import { readdirSync, readFileSync } from 'node:fs';
import t from 'tap';
import { replay, type ReplayDialect, type ReplayOptions, type ReplayResult } from '../lib/replay/index.js';
import { fixture } from './helpers/paths.js';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

const SOURCES: ReplayDialect[] = ['openai-chat', 'openai-responses'];
const served: ReplayOptions['served'] = { modelId: 'openai/served-model', pricing: { input: 1.25, output: 10, cacheRead: 0.125 } };

/** The frames of an SSE text: event name and parsed data ([DONE] as the string). */
function frames(text: string): { event: string | undefined; data: unknown }[] {
  return text.split('\n\n').filter((f) => f !== '').map((f) => {
    let event: string | undefined;
    let data = '';
    for (const line of f.split('\n')) {
      if (line.startsWith('event: ')) event = line.slice(7);
      else if (line.startsWith('data: ')) data = line.slice(6);
    }
    return { event, data: data === '[DONE]' ? data : (JSON.parse(data) as unknown) };
  });
}

function drop(o: Obj, key: string, when?: unknown): void {
  if (key in o && (when === undefined || o[key] === when)) delete o[key];
}

/** A Chat chunk without the upstream fields a through frame keeps. */
function chatView(data: unknown): unknown {
  if (!isObj(data)) return data;
  for (const k of ['created', 'service_tier', 'system_fingerprint', 'obfuscation']) drop(data, k);
  drop(data, 'usage', null);
  for (const c of Array.isArray(data.choices) ? data.choices : []) {
    if (!isObj(c)) continue;
    drop(c, 'logprobs', null);
    drop(c, 'content_filter_results');
    if (isObj(c.delta)) drop(c.delta, 'refusal', null);
  }
  return data;
}


const summary = (r: ReplayResult) => ({ status: r.status, failure: r.failure && { offset: r.failure.offset, rule: r.failure.rule } });

/** The usage the client was told (Chat: the usage chunk; Responses: the terminal Response). */
function billed(from: ReplayDialect, text: string): unknown {
  const all = frames(text).map((f) => f.data).filter(isObj);
  if (from === 'openai-chat') return all.find((d) => isObj(d.usage))?.usage;
  const end = all.find((d) => d.type === 'response.completed' || d.type === 'response.incomplete');
  return isObj(end) && isObj(end.response) ? end.response.usage : undefined;
}

const recordings = SOURCES.flatMap((from) =>
  readdirSync(fixture('upstream', from)).filter((f) => f.endsWith('.sse')).sort().map((name) => ({ from, name, bytes: readFileSync(fixture('upstream', from, name)) })),
);

let passedThrough = 0;
for (const { from, name, bytes } of recordings) {
  t.test(`${from}/${name}`, async (t) => {
    const view = from === 'openai-chat' ? chatView : (d: unknown): unknown => d;
    for (const chunks of [undefined, 1, 'random'] as const) {
      const how = chunks === undefined ? 'whole' : `chunks ${chunks}`;
      const native = replay(bytes, { from, chunks, seed: 11, served });
      const old = replay(bytes, { from, chunks, seed: 11, served, reencode: true });
      t.same(summary(native), summary(old), `${how}: same status and failure`);
      const got = frames(native.text);
      const want = frames(old.text);
      t.same(got.map((f) => ({ event: f.event, data: view(f.data) })), want.map((f) => ({ event: f.event, data: view(f.data) })), `${how}: the same frames, modulo the documented upstream fields`);
      t.same(billed(from, native.text), billed(from, old.text), `${how}: the same usage and cost`);
      if (chunks === undefined && native.text !== old.text) passedThrough++;
    }
  });
}

t.test('the comparison is not vacuous: frames really went through, usage carries the cost', async (t) => {
  t.ok(passedThrough >= 4, `${passedThrough} Chat recordings were written (partly) as they came`);
  // Responses deltas keep their bytes: an escape shows it (the re-encoder writes the plain character)
  const escaped = Buffer.from(readFileSync(fixture('upstream', 'openai-responses', 'text.sse'), 'utf8').replace('"delta":"420"', '"delta":"4\\u0032\\u0030"'));
  t.match(replay(escaped, { served }).text, '"delta":"4\\u0032\\u0030","logprobs":[]}', 'a Responses delta frame goes through');
  t.match(replay(escaped, { served, reencode: true }).text, '"delta":"420","logprobs":[]}', 'and is re-encoded on the old path');
  const usage = billed('openai-chat', replay(readFileSync(fixture('upstream', 'openai-chat', 'text-usage.sse')), { served }).text);
  t.match(usage, { prompt_tokens: 14, completion_tokens: 7, cost: Number }, 'the usage chunk: validated tokens and the cost');
  t.ok(isObj(usage) && (usage.cost as number) > 0);
  const text = replay(readFileSync(fixture('upstream', 'openai-chat', 'text-usage.sse')), { served }).text;
  t.match(text, /"system_fingerprint":"fp_7f8eb7d1f9"/, 'Chat content frames are the upstream\'s');
  t.notMatch(text, /gpt-4\.1-nano/, 'with the model the client is served as in every frame');
});
