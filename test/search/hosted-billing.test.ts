// Messages to an Anthropic deployment pass the hosted web_search tool through (decisions §11), and
// the bill counts a search only for a successful correlated result: a `web_search_tool_result` with
// results answering a `server_tool_use` of the same response ($0.01 each), never an error result, an
// orphan result or a call the stream paused before answering, and never more than Anthropic reported.
// Through bin/gateway, on the recorded streams and on scripted ones; the usage row is read from the store.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { send } from '../failure-modes/clients.js';
import { anthropicSse, fmConfig, JSON_HEAD, messageStart, recordedStream, scriptedUpstream, SSE, type Script } from '../failure-modes/upstream.js';
import { expectedCost, LedgerView, localRequestId } from '../helpers/billing.js';
import { startGateway } from '../helpers/gateway.js';

const PRICING = { input: 1, output: 2, cacheRead: 0.1, cacheWrite: 1.25 };
const result = (id: string, n: number): Record<string, unknown> => ({
  type: 'web_search_tool_result',
  tool_use_id: id,
  content: Array.from({ length: n }, (_, i) => ({ type: 'web_search_result', title: `R${i}`, url: `https://r${i}.example/`, encrypted_content: 'EqQBCioIAhgB', page_age: null })),
});
const use = (id: string): Record<string, unknown> => ({ type: 'server_tool_use', id, name: 'web_search', input: { query: 'q' } });

/** A stream with the given whole blocks and the reported `web_search_requests`. */
function scripted(model: string, blocks: Record<string, unknown>[], reported: number | null): string {
  const usage: Record<string, unknown> = { input_tokens: 1000, output_tokens: 50 };
  if (reported !== null) usage.server_tool_use = { web_search_requests: reported, web_fetch_requests: 0 };
  return anthropicSse(
    messageStart(model, { input_tokens: 1000, output_tokens: 1 }),
    ...blocks.flatMap((content_block, index) => [{ type: 'content_block_start', index, content_block }, { type: 'content_block_stop', index }]),
    { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage },
    { type: 'message_stop' },
  );
}

const script: Script = {
  // the recorded answers name dated snapshots of these
  'claude-haiku-4-5': (req) => (req.body.stream ? { headers: SSE, body: recordedStream('anthropic/web-search-citations.sse') } : { headers: JSON_HEAD, body: recordedStream('anthropic/web-search-citations.json') }),
  'claude-sonnet-4-5': { headers: SSE, body: recordedStream('anthropic/pause-turn-web-search.sse') },
  // one call with results, one with an error result, a result answering no call; Anthropic reports 3
  'hs-mixed': {
    headers: SSE,
    body: scripted('hs-mixed', [use('srvtoolu_a'), result('srvtoolu_a', 2), use('srvtoolu_b'), { type: 'web_search_tool_result', tool_use_id: 'srvtoolu_b', content: { type: 'web_search_tool_result_error', error_code: 'unavailable' } }, result('srvtoolu_orphan', 3), { type: 'text', text: 'done' }], 3),
  },
  // results, but an empty list for the second call: one search
  'hs-empty': { headers: SSE, body: scripted('hs-empty', [use('srvtoolu_a'), result('srvtoolu_a', 1), use('srvtoolu_b'), result('srvtoolu_b', 0), { type: 'text', text: 'x' }], 2) },
  // Anthropic reported no search: none is charged, whatever the blocks say
  'hs-unreported': { headers: SSE, body: scripted('hs-unreported', [use('srvtoolu_a'), result('srvtoolu_a', 1), { type: 'text', text: 'x' }], 0) },
};

const models = ['claude-haiku-4-5', 'claude-sonnet-4-5', 'hs-mixed', 'hs-empty', 'hs-unreported'].map((name) => ({ name, api: 'messages' as const, extra: { pricing: PRICING } }));

t.test('hosted web search on an Anthropic deployment is charged per successful correlated result', async (t) => {
  const up = await scriptedUpstream(script);
  const db = join(mkdtempSync(join(tmpdir(), 'gw-hosted-')), 'gw.db');
  const gw = await startGateway(fmConfig(up.url, models, { store: `sqlite:${db}` }));
  const view = new LedgerView(db);
  t.teardown(async () => {
    view.close();
    await gw.stop();
    await up.close();
  });
  const tools = [{ type: 'web_search_20250305', name: 'web_search', max_uses: 10 }];

  const cases: { model: string; stream: boolean; searches: number; input: number; output: number; what: string }[] = [
    { model: 'claude-haiku-4-5', stream: true, searches: 1, input: 9447, output: 114, what: 'recorded stream: one call, its results' },
    { model: 'claude-haiku-4-5', stream: false, searches: 1, input: -1, output: -1, what: 'recorded message (non-streaming)' },
    { model: 'claude-sonnet-4-5', stream: true, searches: 10, input: -1, output: -1, what: 'recorded pause_turn: 11 calls, the last unanswered' },
    { model: 'hs-mixed', stream: true, searches: 1, input: 1000, output: 50, what: 'error result and orphan result free, though 3 reported' },
    { model: 'hs-empty', stream: true, searches: 1, input: 1000, output: 50, what: 'a result with no entries is free' },
    { model: 'hs-unreported', stream: true, searches: 0, input: 1000, output: 50, what: 'never more than Anthropic reported' },
  ];
  for (const c of cases) {
    const a = await send(gw, 'messages', { model: `fm/${c.model}`, max_tokens: 2000, stream: c.stream, tools, messages: [{ role: 'user', content: 'search it' }] });
    t.equal(a.status, 200, `${c.what}: ${a.text.slice(0, 200)}`);
    const row = await view.row('acme', localRequestId(a.headers));
    t.ok(row, `${c.what}: a usage row`);
    if (!row) continue;
    t.equal(row.web_searches, c.searches, `${c.what}: ${c.searches} searches charged`);
    const u = { input: row.input_tokens, output: row.output_tokens, cacheRead: row.cache_read_tokens, cacheWrite: row.cache_write_tokens };
    if (c.input >= 0) t.same([u.input, u.output], [c.input, c.output], `${c.what}: tokens`);
    t.equal(row.cost, expectedCost(PRICING, { ...u, webSearches: c.searches }), `${c.what}: cost = tokens + $0.01 × searches`);
  }
  // the client still receives Anthropic's frames byte for byte (its own usage figure included)
  const a = await send(gw, 'messages', { model: 'fm/hs-mixed', max_tokens: 2000, stream: true, tools, messages: [{ role: 'user', content: 'again' }] });
  t.ok(a.text.includes('"server_tool_use":{"web_search_requests":3'), 'the upstream usage frame is passed through unchanged');
});
