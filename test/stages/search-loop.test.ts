// The search loop stage on canonical events (decisions §11): without a `search` note it changes
// nothing; a round that mixes search calls with a client tool call ends the answer with the client's
// call and runs no search; the reservation covers every round and search the plan allows.
import t from 'tap';
import type { CanonicalEvent, RoutedRequest } from '../../lib/chunks.js';
import { emptyUsage } from '../../lib/chunks.js';
import { estimateUnits } from '../../lib/pricing.js';
import type { SearchOutcome, SearchRunner } from '../../lib/search/runner.js';
import { searchLoop, type SearchLoopOutput } from '../../stages/search-loop.js';
import type { Stage } from '../../lib/stage.js';
import type { RequestContext } from '../../lib/context.js';
import { isNote, type ChainNote, type SearchNote } from '../../lib/notes.js';
import { makeContext, makeRouted, makeServices, testConfig } from '../helpers/context.js';
import { run } from './harness.js';

function round(blocks: CanonicalEvent[][], stop: 'tool-calls' | 'end'): CanonicalEvent[] {
  return [
    { type: 'message-start', id: 'msg_1', model: 'm', usage: { ...emptyUsage(), input: 10 } },
    ...blocks.flat(),
    { type: 'message-delta', stop: { kind: stop }, usage: { output: 7 } },
    { type: 'message-stop' },
  ];
}

const call = (index: number, name: string, json: string): CanonicalEvent[] => [
  { type: 'block-start', index, block: { kind: 'tool-call', id: `call_${index}`, name, input: null } },
  { type: 'tool-input-delta', index, json },
  { type: 'block-stop', index },
];
const text = (index: number, s: string): CanonicalEvent[] => [
  { type: 'block-start', index, block: { kind: 'text', text: '' } },
  { type: 'text-delta', index, text: s },
  { type: 'block-stop', index },
];

function setup(outcomes: (q: string) => SearchOutcome = (q) => ({ kind: 'empty', query: q, backend: 'brave', results: [], attempts: [] })): { ctx: ReturnType<typeof makeContext>; queries: string[][]; note: SearchNote } {
  const config = testConfig({ webSearch: { backends: [{ type: 'brave', baseUrl: 'http://127.0.0.1:9', apiKey: 'k' }] } });
  const queries: string[][] = [];
  const runner: SearchRunner = {
    enabled: true,
    search: () => Promise.reject(new Error('not used')),
    searchAll: (qs) => {
      queries.push([...qs]);
      return Promise.resolve(qs.map(outcomes));
    },
  };
  const ctx = makeContext({ config, services: { ...makeServices(config), search: runner } });
  const routed = makeRouted('anthropic/claude-opus-5');
  const note: SearchNote = { note: 'search', routed: { ...routed, search: { maxSearches: 5, maxRounds: 4, feedTokens: 1000 } } };
  return { ctx, queries, note };
}

/** What a stage output before it failed (runStage keeps nothing of a failed run). */
async function collect(stage: Stage<CanonicalEvent, SearchLoopOutput>, note: SearchNote, events: CanonicalEvent[], ctx: RequestContext): Promise<{ values: CanonicalEvent[]; notes: ChainNote[]; error: unknown }> {
  const values: CanonicalEvent[] = [];
  const notes: ChainNote[] = [];
  stage.note?.(note, ctx);
  try {
    for (const ev of events) {
      const out = stage.step(ev, ctx);
      if (out == null) continue;
      for await (const o of out as AsyncIterable<SearchLoopOutput>) {
        if (isNote(o)) notes.push(o);
        else values.push(o);
      }
    }
  } catch (error) {
    return { values, notes, error };
  }
  return { values, notes, error: undefined };
}

t.test('no search note: every event goes on as it came', async (t) => {
  const { ctx } = setup();
  const events = round([text(0, 'hi'), call(1, 'web_search', '{"query":"x"}')], 'tool-calls');
  const got = await run(searchLoop()(ctx), events, ctx);
  t.same(got.values, events);
});

t.test('a search call beside a client call: the client call ends the answer, no search runs', async (t) => {
  const { ctx, queries, note } = setup();
  const events = round([text(0, 'Let me look.'), call(1, 'web_search', '{"query":"x"}'), call(2, 'lookup', '{"q":"y"}')], 'tool-calls');
  const got = await run(searchLoop()(ctx), [note, ...events], ctx);
  t.equal(got.error, undefined);
  t.same(queries, [], 'nothing searched');
  const starts = got.values.filter((e) => e.type === 'block-start');
  t.same(starts.map((e) => (e.type === 'block-start' ? [e.index, e.block.kind] : null)), [[0, 'text'], [1, 'tool-call']], 'the search call is gone, the client call renumbered');
  const client = got.values.find((e) => e.type === 'tool-input-delta');
  t.match(client, { index: 1, json: '{"q":"y"}' });
  t.match(got.values.find((e) => e.type === 'message-delta'), { stop: { kind: 'tool-calls' }, usage: { input: 10, output: 7, webSearches: 0 } });
  t.equal(got.values.filter((e) => e.type === 'message-stop').length, 1);
});

t.test('a round\'s search calls run together; each shows as a web-search block, billed when it has a source', async (t) => {
  const source = { id: 'ws_aaaaaaaaaa', url: 'https://a.example/', title: 'A', snippet: 'a' };
  const { ctx, queries, note } = setup((q) => (q === 'first' ? { kind: 'results', query: q, backend: 'brave', results: [source], attempts: [] } : { kind: 'empty', query: q, backend: 'brave', results: [], attempts: [] }));
  const events = round([text(0, 'Looking.'), call(1, 'web_search', '{"query":"first"}'), call(2, 'web_search', '{"query":"second"}'), call(3, 'web_search', '{"nope":1}')], 'tool-calls');
  // the next round's dispatch has no provider here: the run ends there, after what this test checks
  const got = await collect(searchLoop()(ctx), note, events, ctx);
  t.same(queries, [['first', 'second']], 'one parallel batch; the call without a query is refused, not run');
  const blocks = got.values.flatMap((e) => (e.type === 'block-start' && e.block.kind === 'web-search' ? [[e.index, e.block.call] as const] : []));
  t.same(blocks.map(([i]) => i), [1, 2, 3], 'after the text block');
  t.match(blocks.map(([, c]) => c), [
    { query: 'first', status: 'completed', billed: true, sources: [source] },
    { query: 'second', status: 'completed', billed: false, sources: [] },
    { status: 'failed', billed: false, errorCode: 'invalid_input' },
  ]);
  t.ok(got.values.some((e) => e.type === 'ping'), 'a keep-alive while they run');
  const usage = got.notes.filter((n) => n.note === 'usage').pop();
  t.match(usage, { usage: { input: 10, output: 7, webSearches: 1 } }, 'the billed search is in the usage before the client sees it');
  t.ok(got.error, 'then the next round is dispatched');
});

t.test('the reservation covers every allowed round and search', async (t) => {
  const config = testConfig();
  const catalog = makeServices(config).catalog;
  const model = catalog.get('anthropic/claude-opus-5')!;
  const routed: RoutedRequest = makeRouted(model.id, { inputTokenBound: 1000, maxTokens: 100 });
  const plain = estimateUnits(model, routed);
  const plan = { maxSearches: 3, maxRounds: 4, feedTokens: 5000 };
  const searched = estimateUnits(model, { ...routed, search: plan });
  // opus: $5/M input (cache write $6.25/M is the highest input-side price), $25/M output
  const inputTokens = 4 * (1000 + 5000) + (100 * 4 * 3) / 2;
  const usd = inputTokens * 6.25e-6 + 4 * 100 * 25e-6 + 3 * 0.01;
  t.equal(searched, Math.ceil(usd * 1e9), 'rounds × (input + results) + replayed output, rounds × output, searches × $0.01');
  t.ok(searched > plain);
});
