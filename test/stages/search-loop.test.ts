// The search loop stage on canonical events (decisions §11): without a `search` note it changes
// nothing; a round that mixes search calls with a client tool call ends the answer with the client's
// call and runs no search; the reservation covers every round and search the plan allows.
import t from 'tap';
import type { CanonicalEvent, RoutedRequest } from '../../lib/chunks.js';
import { emptyUsage } from '../../lib/chunks.js';
import type { SearchNote } from '../../lib/notes.js';
import { estimateUnits } from '../../lib/pricing.js';
import type { SearchRunner } from '../../lib/search/runner.js';
import { searchLoop } from '../../stages/search-loop.js';
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

function setup(): { ctx: ReturnType<typeof makeContext>; queries: string[]; note: SearchNote } {
  const config = testConfig({ webSearch: { backends: [{ type: 'brave', baseUrl: 'http://127.0.0.1:9', apiKey: 'k' }] } });
  const queries: string[] = [];
  const runner: SearchRunner = {
    enabled: true,
    search: () => Promise.reject(new Error('not used')),
    searchAll: (qs) => {
      queries.push(...qs);
      return Promise.resolve([]);
    },
  };
  const ctx = makeContext({ config, services: { ...makeServices(config), search: runner } });
  const routed = makeRouted('anthropic/claude-opus-5');
  const note: SearchNote = { note: 'search', routed: { ...routed, search: { maxSearches: 5, maxRounds: 4, feedTokens: 1000 } } };
  return { ctx, queries, note };
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
