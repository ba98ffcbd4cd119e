// How clients see the searches the gateway ran and the citations of its answer (decisions §11), on the
// canonical stream the search loop produces (searches, then the cited answer), through the citation
// rewriter and each client dialect's encoders (SSE and JSON): event order and fields against the recorded
// OpenAI (`web-search-annotations.sse`) and Anthropic (`web-search-citations.sse`) streams, every
// annotation's span and URL checked on the text the client received, sealed blocks that open.
import { readFileSync } from 'node:fs';
import t, { type Test } from 'tap';
import type { CanonicalEvent, WebSearchCall, WebSearchSource } from '../../lib/chunks.js';
import { jsonEncoders, sseEncoders } from '../../lib/dialects/index.js';
import { EncoderState } from '../../lib/encoder-input.js';
import { offlineContext } from '../../lib/offline-context.js';
import { CITE_CLOSE, CITE_OPEN, createCitationRewriter } from '../../lib/search/citations.js';
import { createSealer } from '../../lib/search/seal.js';
import { fixture } from '../helpers/paths.js';
import { accumulate, frames, runSync, type Frame } from '../helpers/replay.js';

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const SOURCES: WebSearchSource[] = [
  { id: 'ws_aaaaaaaaaa', url: 'https://www.britannica.com/place/Mount-Columbia', title: 'Mount Columbia | Britannica', snippet: 'Mount Columbia, 3,747 m, is the highest point in Alberta.', published: '2024-05-01' },
  { id: 'ws_bbbbbbbbbb', url: 'https://peakbagger.example/😀', title: 'Peakbagger 𝄞', snippet: 'Columbia Icefield peaks.' },
];
const byId = new Map(SOURCES.map((s) => [s.id, s]));
const m = (id: string): string => `${CITE_OPEN}${id}${CITE_CLOSE}`;
const BILLED: WebSearchCall = { id: 'wsc_1', query: 'tallest mountain in Alberta', status: 'completed', sources: SOURCES, billed: true };
const EMPTY: WebSearchCall = { id: 'wsc_2', query: 'nothing here', status: 'completed', sources: [], billed: false };
const FAILED: WebSearchCall = { id: 'wsc_3', query: 'backend down', status: 'failed', sources: [], billed: false, errorCode: 'unavailable' };
const ANSWER = `Alberta's tallest is 𝔐𝔬𝔲𝔫𝔱 Columbia (3,747 m) 🏔.${m('ws_aaaaaaaaaa')} It sits on the icefield.${m('ws_bbbbbbbbbb')}${m('ws_aaaaaaaaaa')} Fake ${m('ws_zzzzzzzzzz')} stays.`;
const TEXT_SEEN = `Alberta's tallest is 𝔐𝔬𝔲𝔫𝔱 Columbia (3,747 m) 🏔. It sits on the icefield. Fake ${m('ws_zzzzzzzzzz')} stays.`;

/** The merged stream of a search loop: three searches (one billed), then the answer's text in `deltas`. */
function loopStream(deltas: string[]): CanonicalEvent[] {
  const calls = [BILLED, EMPTY, FAILED];
  return [
    { type: 'message-start', id: 'msg_loop', model: 'up-model', usage: { input: 10, output: 0, cacheRead: 0, cacheWrite: 0, reasoning: 0, webSearches: 0 } },
    ...calls.flatMap((call, index): CanonicalEvent[] => [{ type: 'block-start', index, block: { kind: 'web-search', call } }, { type: 'block-stop', index }]),
    { type: 'block-start', index: 3, block: { kind: 'text', text: '' } },
    ...deltas.map((text): CanonicalEvent => ({ type: 'text-delta', index: 3, text })),
    { type: 'block-stop', index: 3 },
    { type: 'message-delta', stop: { kind: 'end' }, usage: { output: 30, webSearches: 1 } },
    { type: 'message-stop' },
  ];
}

function rewritten(style: 'spans' | 'blocks', deltas: string[]): CanonicalEvent[] {
  const rw = createCitationRewriter({ source: (id) => byId.get(id), style });
  return [...loopStream(deltas).flatMap((ev) => rw.push(ev)), ...rw.end()];
}

const sealer = createSealer('test seal key, sixteen+ chars');
const input = (): EncoderState => new EncoderState('req_shapes1', undefined, null, sealer);

function sse(dialect: 'openai-responses' | 'anthropic' | 'openai-chat', events: CanonicalEvent[]): Frame[] {
  const enc = sseEncoders[dialect]!({ clientModel: 'client-model', requestId: 'req_shapes1', input: input() });
  return frames(events.map((ev) => enc.encode(ev)).join(''));
}

function json(dialect: 'openai-responses' | 'anthropic', events: CanonicalEvent[]): Obj {
  const out = runSync<string>([jsonEncoders[dialect]!(input(), { clientModel: 'client-model' })], events, offlineContext({ reqId: 'req_shapes1', dialect }));
  return JSON.parse(out[0]!) as Obj;
}

const cps = (s: string): string[] => Array.from(s);
const recorded = (dialect: string, name: string): Frame[] => frames(readFileSync(fixture('upstream', dialect, name), 'utf8'));
const keys = (o: Obj): string[] => Object.keys(o).sort();

/** Every annotation: its span cuts a whole cited sentence out of the text, its URL and title a backend's. */
function checkAnnotations(t: Test, text: string, annotations: Obj[]): void {
  const cited = annotations.map((a) => cps(text).slice(a.start_index, a.end_index).join(''));
  t.same(cited, [`Alberta's tallest is 𝔐𝔬𝔲𝔫𝔱 Columbia (3,747 m) 🏔.`, 'It sits on the icefield.', 'It sits on the icefield.'], 'spans in code points of the received text');
  t.same(annotations.map((a) => a.url), [SOURCES[0]!.url, SOURCES[1]!.url, SOURCES[0]!.url]);
  for (const a of annotations) {
    t.same(keys(a), ['end_index', 'start_index', 'title', 'type', 'url']);
    t.equal(a.title, SOURCES.find((s) => s.url === a.url)!.title);
  }
}

t.test('Responses SSE: one web_search_call item per billed search with OpenAI’s events, url_citation annotations', async (t) => {
  const ref = recorded('openai-responses', 'web-search-annotations.sse');
  const refTypes = ref.map((f) => f.event);
  for (const split of [1, 7, 23, 40]) {
    const list = sse('openai-responses', rewritten('spans', [ANSWER.slice(0, split), ANSWER.slice(split)]));
    const data = list.map((f) => JSON.parse(f.data) as Obj);
    list.forEach((f, i) => t.equal(data[i]!.type, f.event));
    const searchEvents = data.filter((d) => d.type.includes('web_search_call') || d.item?.type === 'web_search_call');
    t.same(searchEvents.map((d) => d.type), refTypes.slice(2, 7), 'the recorded event sequence, once: unbilled searches show nothing');
    const refSearch = ref.slice(2, 7).map((f) => JSON.parse(f.data) as Obj);
    searchEvents.forEach((d, i) => t.same(keys(d), keys(refSearch[i]!), `${d.type}: the recorded fields`));
    t.same(keys(searchEvents[0]!.item), keys(refSearch[0]!.item), 'added item in_progress as recorded');
    const done = searchEvents[4]!.item;
    t.same(done, { id: done.id, type: 'web_search_call', status: 'completed', action: { type: 'search', query: BILLED.query, queries: [BILLED.query], sources: SOURCES.map((s) => ({ type: 'url', url: s.url })) } });
    t.match(done.id, /^ws_/);
    const text = data.filter((d) => d.type === 'response.output_text.delta').map((d) => d.delta as string).join('');
    t.equal(text, TEXT_SEEN, 'markers of known ids removed, others kept as text');
    const added = data.filter((d) => d.type === 'response.output_text.annotation.added');
    t.same(added.map((d) => d.annotation_index), [0, 1, 2]);
    t.same(keys(added[0]!), keys(JSON.parse(ref.find((f) => f.event === 'response.output_text.annotation.added')!.data) as Obj));
    checkAnnotations(t, text, added.map((d) => d.annotation));
    // each annotation is announced after the text it covers and before output_text.done
    const firstDone = data.findIndex((d) => d.type === 'response.output_text.done');
    for (const a of added) {
      const at = data.indexOf(a);
      const before = data.slice(0, at).filter((d) => d.type === 'response.output_text.delta').map((d) => d.delta as string).join('');
      t.ok(cps(before).length >= a.annotation.end_index && at < firstDone, 'annotation after its text');
    }
    const final = data.at(-1)!.response;
    t.equal(final.output.length, 2, 'output: the billed search and the message');
    t.same(final.output[1].content[0].annotations, added.map((d) => d.annotation), 'annotations in response.completed');
    t.same(data.find((d) => d.type === 'response.content_part.done')!.part.annotations, added.map((d) => d.annotation));
  }
});

t.test('Responses JSON: the same items and annotations in the Response object', async (t) => {
  const body = json('openai-responses', rewritten('spans', [ANSWER]));
  t.same(body.output.map((o: Obj) => o.type), ['web_search_call', 'message']);
  t.equal(body.output[0].action.sources.length, 2);
  const part = body.output[1].content[0];
  t.equal(part.text, TEXT_SEEN);
  checkAnnotations(t, part.text, part.annotations);
});

/** The Message an SDK accumulates, and the sealed values checked to open to what the backend returned. */
function checkMessage(t: Test, msg: Obj): void {
  const ref = JSON.parse(readFileSync(fixture('upstream', 'anthropic', 'web-search-citations.json'), 'utf8')) as Obj;
  const types = msg.content.map((b: Obj) => b.type);
  t.same(types.slice(0, 6), ['server_tool_use', 'web_search_tool_result', 'server_tool_use', 'web_search_tool_result', 'server_tool_use', 'web_search_tool_result'], 'every search shows: Messages has error results');
  const [use, result] = msg.content;
  t.same(use, { type: 'server_tool_use', id: 'srvtoolu_gws_wsc_1', name: 'web_search', input: { query: BILLED.query } });
  t.equal(result.tool_use_id, use.id);
  const refResult = ref.content.find((b: Obj) => b.type === 'web_search_tool_result').content[0];
  t.same(keys(result.content[0]), keys(refResult), 'web_search_result fields as recorded');
  t.same(result.content.map((r: Obj) => [r.url, r.title, r.page_age]), SOURCES.map((s) => [s.url, s.title, s.published ?? null]));
  t.same(sealer.open('web_search_result', result.content[0].encrypted_content), { id: SOURCES[0]!.id, url: SOURCES[0]!.url, title: SOURCES[0]!.title, snippet: SOURCES[0]!.snippet, published: '2024-05-01' });
  t.equal(sealer.open('web_search_result_location', result.content[0].encrypted_content), null, 'a sealed result is no sealed citation');
  t.equal(createSealer('another key of sixteen chars').open('web_search_result', result.content[0].encrypted_content), null, 'another key cannot open it');
  t.same(msg.content[3].content, [], 'a search without sources: an empty result');
  t.same(msg.content[5].content, { type: 'web_search_tool_result_error', error_code: 'unavailable' });
  const texts = msg.content.slice(6);
  t.equal(texts.map((b: Obj) => b.text).join(''), TEXT_SEEN, 'the text as received, markers out');
  const cited = texts.filter((b: Obj) => b.citations?.length);
  t.same(cited.map((b: Obj) => b.text.trim()), [`Alberta's tallest is 𝔐𝔬𝔲𝔫𝔱 Columbia (3,747 m) 🏔.`, 'It sits on the icefield.']);
  t.same(cited.map((b: Obj) => b.citations.map((c: Obj) => c.url)), [[SOURCES[0]!.url], [SOURCES[1]!.url, SOURCES[0]!.url]]);
  const refCitation = ref.content.find((b: Obj) => b.citations?.length).citations[0];
  for (const b of cited) {
    for (const c of b.citations) {
      t.same(keys(c), keys(refCitation), 'citation fields as recorded');
      const src = SOURCES.find((s) => s.url === c.url)!;
      t.equal(c.title, src.title);
      t.equal(c.cited_text, src.snippet);
      t.same(sealer.open('web_search_result_location', c.encrypted_index), { id: src.id, url: src.url, title: src.title, cited_text: src.snippet });
    }
  }
  t.equal(msg.usage.server_tool_use.web_search_requests, 1, 'usage counts billed searches');
}

t.test('Messages SSE: server_tool_use + web_search_tool_result blocks, cited text blocks, as recorded', async (t) => {
  const ref = recorded('anthropic', 'web-search-citations.sse').filter((f) => f.event !== 'ping');
  for (const split of [3, 30, 61]) {
    const list = sse('anthropic', rewritten('blocks', [ANSWER.slice(0, split), ANSWER.slice(split)]));
    for (const f of list) t.equal((JSON.parse(f.data) as Obj).type, f.event);
    const starts = list.filter((f) => f.event === 'content_block_start').map((f) => JSON.parse(f.data) as Obj);
    t.same(starts.map((s) => s.index), starts.map((_, i) => i), 'client indexes contiguous');
    // the first search's frames follow the recorded sequence: start, input_json_delta(s), stop, result start, stop
    const collapse = (l: Frame[]): (string | undefined)[] => l.map((f) => f.event).filter((e, i, all) => e !== 'content_block_delta' || all[i - 1] !== e);
    t.same(collapse(list.slice(1, 6)), collapse(ref.slice(1, 13)));
    t.same((JSON.parse(list[1]!.data) as Obj).content_block.input, {}, 'input streams as input_json_delta, as recorded');
    const citedStart = starts.find((s) => Array.isArray(s.content_block.citations))!;
    t.same(citedStart.content_block, JSON.parse(ref.find((f) => f.data.includes('"citations":[]'))!.data).content_block, 'a cited block opens as recorded');
    checkMessage(t, accumulate(list));
  }
});

t.test('Messages JSON: the same blocks in the Message', async (t) => {
  checkMessage(t, json('anthropic', rewritten('blocks', [ANSWER])));
});

t.test('Chat clients: searches and citations show nothing, the text arrives without known markers', async (t) => {
  const list = sse('openai-chat', rewritten('spans', [ANSWER]));
  const text = list.filter((f) => f.data !== '[DONE]').map((f) => (JSON.parse(f.data) as Obj).choices?.[0]?.delta?.content ?? '').join('');
  t.equal(text, TEXT_SEEN);
});
