// Shared by the search loop tests: a gateway on the simulated provider whose web searches go to a
// simulated search backend this test process runs, on a file store whose ledger the tests read; and
// small clients for the Responses and Messages endpoints that return what the billing checks need.
import { startGateway, TEST_KEY, type RunningGateway } from '../helpers/gateway.js';
import { expectedCost, fileStoreConfig, LedgerView, localRequestId, rowUsage, type UsageRow } from '../helpers/billing.js';
import { startSimSearch, type SimSearch } from '../../lib/sim/search-server.js';
import { UNITS_PER_USD } from '../../lib/store/types.js';

export const PRICING = { input: 1.25, output: 10, cacheRead: 0.125 } as const;

/** Test models: one per upstream dialect, a failover pair, and a slow second round. */
export function searchModels(): Record<string, unknown>[] {
  const m = (id: string, deployments: Record<string, unknown>[], extra: Record<string, unknown> = {}): Record<string, unknown> => ({
    id, family: 'openai', deployments, pricing: { ...PRICING }, input: ['text'], maxOutputTokens: 4000, reasoning: true, ...extra,
  });
  return [
    m('test/chat', [{ provider: 'sim-openai', model: 'gpt-5', api: 'chat' }]),
    m('test/responses', [{ provider: 'sim-openai', model: 'gpt-5-mini', api: 'responses' }]),
    m('test/messages', [{ provider: 'sim-anthropic', model: 'claude-sim' }], { family: 'anthropic' }),
    m('test/chat-3', [{ provider: 'sim-openai', model: 'gpt-5;searches=3', api: 'chat' }]),
    m('test/mixed', [{ provider: 'sim-openai', model: 'gpt-5;with=lookup', api: 'chat' }]),
    m('test/failover', [
      { provider: 'sim-openai', model: 'fault:500;after-search', api: 'chat' },
      { provider: 'sim-openai', model: 'gpt-5', api: 'chat' },
    ]),
    m('test/slow-round', [{ provider: 'sim-openai', model: 'fault:slow;ms=4000;after-search', api: 'chat' }]),
    m('test/search-only', [{ provider: 'sim-openai', model: 'gpt-5', api: 'chat' }], { webSearch: true }),
  ];
}

export interface SearchGateway {
  gw: RunningGateway;
  search: SimSearch;
  ledger: LedgerView;
  close(): Promise<void>;
}

/** `webSearch` may name backends by `SIM` (the simulated backend's URL, filled in here). */
export async function startSearchGateway(webSearch: Record<string, unknown> | null, extra: Record<string, unknown> = {}): Promise<SearchGateway> {
  const search = await startSimSearch();
  const ws = webSearch === null ? {} : { webSearch: JSON.parse(JSON.stringify(webSearch).replaceAll('SIM', search.url)) as Record<string, unknown> };
  const store = fileStoreConfig(searchModels(), { ...ws, router: { candidates: ['anthropic/claude-sonnet-5', 'test/search-only'] }, ...extra });
  const gw = await startGateway(store.config);
  const ledger = new LedgerView(store.db);
  return {
    gw,
    search,
    ledger,
    async close() {
      ledger.close();
      await gw.stop();
      await search.close();
    },
  };
}

export const brave = (url = 'SIM'): Record<string, unknown> => ({ type: 'brave', baseUrl: url, apiKey: 'brave-key-0001' });

export interface Answer {
  status: number;
  requestId: string | null;
  /** the JSON body, or for a stream the terminal event's data (Responses `response`, Messages merged usage) */
  body: Record<string, unknown>;
  /** the raw SSE text of a stream */
  sse: string;
}

function sseEvents(text: string): { event: string; data: Record<string, unknown> }[] {
  const out: { event: string; data: Record<string, unknown> }[] = [];
  for (const frame of text.split('\n\n')) {
    const event = /^event: (.*)$/m.exec(frame)?.[1];
    const data = /^data: (.*)$/m.exec(frame)?.[1];
    if (event !== undefined && data !== undefined) out.push({ event, data: JSON.parse(data) as Record<string, unknown> });
  }
  return out;
}

export async function responses(gw: RunningGateway, body: Record<string, unknown>, key = TEST_KEY): Promise<Answer> {
  const res = await fetch(`${gw.url}/v1/responses`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` }, body: JSON.stringify(body) });
  const text = await res.text();
  const requestId = localRequestId(res.headers);
  if (body.stream !== true || res.status !== 200) return { status: res.status, requestId, body: JSON.parse(text) as Record<string, unknown>, sse: '' };
  const done = sseEvents(text).find((e) => e.event === 'response.completed');
  return { status: res.status, requestId, body: (done?.data.response as Record<string, unknown>) ?? {}, sse: text };
}

export async function messages(gw: RunningGateway, body: Record<string, unknown>): Promise<Answer> {
  const res = await fetch(`${gw.url}/v1/messages`, { method: 'POST', headers: { 'content-type': 'application/json', 'anthropic-version': '2023-06-01', 'x-api-key': TEST_KEY }, body: JSON.stringify(body) });
  const text = await res.text();
  const requestId = localRequestId(res.headers);
  if (body.stream !== true || res.status !== 200) return { status: res.status, requestId, body: JSON.parse(text) as Record<string, unknown>, sse: '' };
  const events = sseEvents(text);
  const delta = events.find((e) => e.event === 'message_delta')?.data ?? {};
  return { status: res.status, requestId, body: { ...delta, starts: events.filter((e) => e.event === 'message_start').length, events: events.map((e) => e.event) }, sse: text };
}

/** The text of a Responses answer (every output_text part) or a Messages answer (every text block). */
export function answerText(a: Answer): string {
  const out = (a.body.output as Record<string, unknown>[] | undefined) ?? [];
  const parts = out.flatMap((i) => ((i.content as Record<string, unknown>[] | undefined) ?? []).map((c) => (c.text as string | undefined) ?? ''));
  const blocks = ((a.body.content as Record<string, unknown>[] | undefined) ?? []).map((b) => (b.type === 'text' ? (b.text as string) : ''));
  const streamed = [...a.sse.matchAll(/"(?:text_delta","text|delta)":"((?:[^"\\]|\\.)*)"/g)].map((m) => JSON.parse(`"${m[1]}"`) as string);
  return [...parts, ...blocks, ...streamed].join('');
}

/** The ledger row of a request, and the cost the prices give its usage (searches at $0.01). */
export async function charged(ledger: LedgerView, requestId: string | null, org = 'acme'): Promise<{ row: UsageRow; expected: number }> {
  const row = await ledger.row(org, requestId);
  if (row === undefined) throw new Error(`no usage row for ${requestId}`);
  return { row, expected: expectedCost({ ...PRICING }, rowUsage(row)) };
}

/** A Responses answer's `gateway.cost` in units. */
export function reportedUnits(a: Answer): number {
  return Math.round(((a.body.gateway as { cost: number }).cost) * UNITS_PER_USD);
}

export const SEARCH_PRICE_UNITS = 0.01 * UNITS_PER_USD;
