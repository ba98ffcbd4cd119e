// Every recorded Anthropic response, fed whole, byte by byte and in seeded-random chunks through
// sse-decode → provider-decode → integrity, then through the Messages SSE encoder and the
// non-streaming JSON encoder. Canonical events are compared with <case>.events.ndjson (streams) and
// <case>.message.events.ndjson (non-streaming bodies).
import { readdirSync, readFileSync } from 'node:fs';
import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import t from 'tap';
import { offlineContext } from '../lib/offline-context.js';
import { toTransform } from '../lib/stage.js';
import { sseEncode } from '../stages/sse-encode.js';
import type { CanonicalEvent, Usage } from '../lib/chunks.js';
import { eventToJson } from '../lib/offline-context.js';
import { fixture } from './helpers/paths.js';
import { accumulate, CHUNKINGS, chunk, decode, decodeStages, encodeJson, encodeSse, frames, seedOf } from './helpers/replay.js';

const DIR = fixture('upstream', 'anthropic');
const CLIENT_MODEL = 'gateway-test-model';
const files = readdirSync(DIR);
const streams = files.filter((f) => f.endsWith('.sse')).sort();
const messages = files.filter((f) => f.endsWith('.json')).sort();

function expectedEvents(name: string): unknown[] {
  return readFileSync(`${DIR}/${name}`, 'utf8').trimEnd().split('\n').map((line) => JSON.parse(line) as unknown);
}

const asJson = (events: CanonicalEvent[]): unknown[] => events.map((e) => JSON.parse(JSON.stringify(eventToJson(e))) as unknown);

/** Usage as the integrity stage must leave it: message-start usage, overridden by each message-delta. */
function finalUsage(events: CanonicalEvent[]): Usage {
  let usage: Usage | undefined;
  for (const e of events) {
    if (e.type === 'message-start') usage = { ...e.usage };
    if (e.type === 'message-delta') usage = { ...usage!, ...e.usage };
  }
  return usage!;
}

t.test('fixtures are present', async (t) => {
  t.ok(streams.length >= 15, `${streams.length} streams`);
  t.ok(messages.length >= 8, `${messages.length} messages`);
});

for (const name of streams) {
  const base = name.slice(0, -'.sse'.length);
  t.test(`stream ${name}`, async (t) => {
    const input = readFileSync(`${DIR}/${name}`);
    const expected = expectedEvents(`${base}.events.ndjson`);
    let reference: string | undefined;
    let referenceJson: string | undefined;
    for (const how of CHUNKINGS) {
      const { events, usage } = await decode(chunk(input, how, seedOf(name)));
      t.same(asJson(events), expected, `${how}: canonical events`);
      t.same(usage, finalUsage(events), `${how}: the usage note holds the validated usage`);
      const sse = await encodeSse(events, CLIENT_MODEL);
      const json = await encodeJson(events, CLIENT_MODEL);
      if (reference === undefined) {
        reference = sse;
        referenceJson = json;
      } else {
        t.equal(sse, reference, `${how}: same SSE output as whole`);
        t.equal(json, referenceJson, `${how}: same JSON output as whole`);
      }
    }

    // pass-through: without a model replacement the client receives the upstream bytes exactly
    const { events } = await decode([input]);
    t.equal(await encodeSse(events), input.toString('utf8'), 'byte-identical pass-through');

    // with the client's model: event for event, identical data except message_start.message.model
    const upstream = frames(input.toString('utf8'));
    const client = frames(reference!);
    t.equal(client.length, upstream.length, 'same number of events');
    for (let i = 0; i < upstream.length; i++) {
      const up = upstream[i]!;
      const out = client[i]!;
      if (out.event !== up.event) {
        t.fail(`event ${i}: ${String(out.event)} != ${String(up.event)}`);
        break;
      }
      if (up.event !== 'message_start') {
        if (out.data !== up.data) t.fail(`event ${i} (${up.event}): data differs`);
        continue;
      }
      const want = JSON.parse(up.data) as { message: { model: string } };
      t.not(want.message.model, CLIENT_MODEL);
      want.message.model = CLIENT_MODEL;
      t.same(JSON.parse(out.data), want, 'message_start: only the model is replaced');
    }

    // the JSON encoder gives the message an SDK client would accumulate from the upstream stream
    const sdk = accumulate(upstream);
    sdk.model = CLIENT_MODEL;
    t.same(JSON.parse(referenceJson!), sdk, 'JSON aggregate = SDK accumulation of the upstream stream');
    // and so does an SDK client reading our SSE output
    t.same(accumulate(client), sdk, 'SDK accumulation of the client stream = of the upstream stream');
  });
}

for (const name of messages) {
  const base = name.slice(0, -'.json'.length);
  t.test(`message ${name}`, async (t) => {
    const input = readFileSync(`${DIR}/${name}`);
    const original = JSON.parse(input.toString('utf8')) as Record<string, unknown>;
    const expected = expectedEvents(`${base}.message.events.ndjson`);
    let reference: string | undefined;
    for (const how of CHUNKINGS) {
      const { events, usage } = await decode(chunk(input, how, seedOf(name)));
      t.same(asJson(events), expected, `${how}: canonical events`);
      t.same(usage, finalUsage(events), `${how}: usage note`);
      const sse = await encodeSse(events, CLIENT_MODEL);
      if (reference === undefined) reference = sse;
      else t.equal(sse, reference, `${how}: same SSE output as whole`);
      const json = await encodeJson(events, CLIENT_MODEL);
      t.same(JSON.parse(json), { ...original, model: CLIENT_MODEL }, `${how}: JSON = original with the client model`);
    }
    const { events } = await decode([input]);
    t.equal(await encodeJson(events), input.toString('utf8'), 'without a model replacement the body is rebuilt byte for byte');
    // the same message streamed to an SDK client accumulates to the original
    t.same(accumulate(frames(reference!)), { ...original, model: CLIENT_MODEL }, 'SSE form accumulates to the original');
  });
}

t.test('known values', async (t) => {
  const run = async (name: string): Promise<Record<string, unknown>> => {
    const { events } = await decode([readFileSync(`${DIR}/${name}`)]);
    return JSON.parse(await encodeJson(events)) as Record<string, unknown>;
  };
  const content = (m: Record<string, unknown>): Record<string, unknown>[] => m.content as Record<string, unknown>[];

  const text = await run('text-basic.sse');
  t.same(content(text), [{ type: 'text', text: '1\n2\n3' }]);
  t.match(text, { stop_reason: 'end_turn', usage: { input_tokens: 15, output_tokens: 9 } });

  const tool = await run('tool-use-single.sse');
  t.same(content(tool)[0]!.input, { latitude: '52.5200', longitude: '13.4050' });

  const noArgs = await run('tool-use-parallel-no-args.sse');
  t.same(content(noArgs).map((b) => b.input), [{}, {}], 'empty input_json_delta gives {}');

  const parallel = await run('tool-use-parallel.sse');
  t.same(content(parallel).map((b) => b.type), ['text', 'tool_use', 'tool_use']);
  t.equal(parallel.stop_reason, 'tool_use');

  const thinking = await run('thinking-signature.sse');
  t.ok((content(thinking)[0]!.signature as string).startsWith('EuYDCmMIDBgCKkC05Zda4P'), 'signature from signature_delta');

  const stop = await run('stop-sequence.sse');
  t.match(stop, { stop_reason: 'stop_sequence', stop_sequence: '```' });

  const citations = await run('citations-document.sse');
  t.match(content(citations)[0], { citations: [{ type: 'char_location', document_title: 'facts.txt' }] });

  const compaction = await run('compaction-cache-read.sse');
  t.match(content(compaction)[0], { type: 'compaction', content: /^The user provided a very long context/ });

  const refusal = await run('handwritten-refusal.sse');
  t.match(refusal, { stop_reason: 'refusal', content: [], stop_details: { category: 'cyber' } });

  const search = await decode([readFileSync(`${DIR}/pause-turn-web-search.sse`)]);
  t.match(search.usage, { input: 404500, output: 943, webSearches: 10 });
  const stopEvent = search.events.find((e) => e.type === 'message-delta');
  t.same(stopEvent?.type === 'message-delta' && stopEvent.stop, { kind: 'pause' });
  const cache = await decode([readFileSync(`${DIR}/compaction-cache-read.sse`)]);
  t.same(cache.usage, { input: 181, output: 8, cacheRead: 0, cacheWrite: 0, reasoning: 0, webSearches: 0 }, 'message_delta usage overrides');
});

t.test('the dispatched model: exact, or the dated snapshot of an alias', async (t) => {
  const input = readFileSync(`${DIR}/text-basic.sse`);
  await decode([input], { expectedModel: () => 'claude-haiku-4-5-20251001' });
  await decode([input], { expectedModel: () => 'claude-haiku-4-5' });
  await t.rejects(decode([input], { expectedModel: () => 'claude-haiku-4' }), { code: 'GW_ERR_INTEGRITY', message: /answered with model "claude-haiku-4-5-20251001", but "claude-haiku-4" was dispatched/ });
  await t.rejects(decode([input], { expectedModel: () => 'claude-sonnet-4-5' }), { code: 'GW_ERR_INTEGRITY' });
  const upstream = { id: 'p', protocol: 'anthropic', api: 'messages', upstreamModel: 'other-model', stream: true, timing: { sentAt: 0 } } as const;
  await t.rejects(decode([input], { upstream }), { code: 'GW_ERR_INTEGRITY', message: /"other-model" was dispatched/ }, 'default: the upstream note’s upstreamModel');
});

t.test('through real streams (toTransform + pipeline), in random chunks', async (t) => {
  for (const name of ['web-search-citations.sse', 'thinking-signature.sse', 'tool-use-parallel.json']) {
    const input = readFileSync(`${DIR}/${name}`);
    const ctx = offlineContext({ reqId: 'req_stream' });
    const encoder = sseEncode({ clientModel: CLIENT_MODEL });
    const stages = [...decodeStages(), encoder];
    let got = '';
    const sink = new Writable({
      objectMode: true,
      write(text: string, _enc, cb) {
        got += text;
        cb();
      },
    });
    await pipeline([Readable.from(chunk(input, 'random', seedOf(name))), ...stages.map((s) => toTransform(s, ctx)), sink]);
    const { events } = await decode([input]);
    t.equal(got, await encodeSse(events, CLIENT_MODEL), `${name}: same output as the synchronous run`);
    t.equal(encoder.keepalive, 'event: ping\ndata: {"type": "ping"}\n\n', 'the encoder knows the keep-alive frame');
  }
});
