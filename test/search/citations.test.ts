// The citation rewriter (lib/search/citations.ts): markers leave the text, citations name only sources
// the answer's searches returned, and each span covers exactly the cited sentence of the text the client
// receives, counted in code points (astral characters included) — whether the markers arrive whole or
// split across deltas at any byte or code-unit boundary.
import t from 'tap';
import { prng as rng } from '../helpers/replay.js';
import type { CanonicalEvent, JsonObject, WebSearchSource } from '../../lib/chunks.js';
import { CITE_CLOSE, CITE_OPEN, createCitationRewriter } from '../../lib/search/citations.js';

const SOURCES: WebSearchSource[] = [
  { id: 'ws_aaaaaaaaaa', url: 'https://a.example/', title: 'A', snippet: 'Alpha snippet' },
  { id: 'ws_bbbbbbbbbb', url: 'https://b.example/x', title: 'B 😀', snippet: 'Beta snippet' },
];
const byId = new Map(SOURCES.map((s) => [s.id, s]));
const m = (id: string): string => `${CITE_OPEN}${id}${CITE_CLOSE}`;

/** A text block with the given deltas, between a search block and a tool call (other blocks keep their place). */
function answer(deltas: string[]): CanonicalEvent[] {
  return [
    { type: 'message-start', id: 'msg_1', model: 'm', usage: { input: 1, output: 0, cacheRead: 0, cacheWrite: 0, reasoning: 0, webSearches: 0 } },
    { type: 'block-start', index: 0, block: { kind: 'web-search', call: { id: 'wsc_1', query: 'q', status: 'completed', sources: SOURCES, billed: true } } },
    { type: 'block-stop', index: 0 },
    { type: 'block-start', index: 1, block: { kind: 'text', text: '' } },
    ...deltas.map((text): CanonicalEvent => ({ type: 'text-delta', index: 1, text })),
    { type: 'block-stop', index: 1 },
    { type: 'message-delta', stop: { kind: 'end' }, usage: { output: 5 } },
    { type: 'message-stop' },
  ];
}

function run(style: 'spans' | 'blocks', deltas: string[]): CanonicalEvent[] {
  const rw = createCitationRewriter({ source: (id) => byId.get(id), style });
  const out: CanonicalEvent[] = [];
  for (const ev of answer(deltas)) out.push(...rw.push(ev));
  out.push(...rw.end());
  return out;
}

/** Per block: its text as the client gets it, and its citations (deltas merged, so splits compare equal). */
function view(events: CanonicalEvent[]): { blocks: { kind: string; text: string; citations: JsonObject[] }[]; spans: JsonObject[] } {
  const blocks: { kind: string; text: string; citations: JsonObject[] }[] = [];
  const spans: JsonObject[] = [];
  for (const ev of events) {
    if (ev.type === 'block-start') blocks[ev.index] = { kind: ev.block.kind, text: ev.block.kind === 'text' ? ev.block.text : '', citations: [] };
    else if (ev.type === 'text-delta') blocks[ev.index]!.text += ev.text;
    else if (ev.type === 'citation-delta') blocks[ev.index]!.citations.push(ev.citation);
    else if (ev.type === 'url-citation') spans.push({ index: ev.index, ...ev.citation });
  }
  return { blocks, spans };
}

/** `s` split into n pieces at random code-unit positions (half surrogate pairs included). */
function randomSplit(s: string, rand: () => number, n: number): string[] {
  const cuts = new Set<number>();
  for (let i = 0; i < n; i++) cuts.add(1 + Math.floor(rand() * (s.length - 1)));
  const sorted = [...cuts].sort((a, b) => a - b);
  const out: string[] = [];
  let at = 0;
  for (const c of sorted) {
    out.push(s.slice(at, c));
    at = c;
  }
  out.push(s.slice(at));
  return out;
}

/** The text split at UTF-8 byte boundaries and decoded as an upstream decoder does (streaming TextDecoder). */
function byteSplit(s: string, cut: number): string[] {
  const bytes = Buffer.from(s, 'utf8');
  const dec = new TextDecoder('utf-8');
  return [dec.decode(bytes.subarray(0, cut), { stream: true }), dec.decode(bytes.subarray(cut))];
}

/** Code points of a string, the unit every span counts in. */
const cps = (s: string): string[] => Array.from(s);

const TEXT =
  `Intro line with 𝔘𝔫𝔦𝔠𝔬𝔡𝔢 😀 text. The sky is blue 🌌.${m('ws_aaaaaaaaaa')} Water is wet.${m('ws_aaaaaaaaaa')}${m('ws_bbbbbbbbbb')} ` +
  `Unknown ${m('ws_zzzzzzzzzz')} stays, and so does 【not closed. Last 𝄞 claim!${m('ws_bbbbbbbbbb')}`;

t.test('spans: markers removed, each span is the cited sentence of the received text, only known URLs', async (t) => {
  const { blocks, spans } = view(run('spans', [TEXT]));
  const text = blocks[1]!.text;
  t.notOk(text.includes('ws_aaaaaaaaaa') || text.includes('ws_bbbbbbbbbb'), 'known markers leave the text');
  t.ok(text.includes(m('ws_zzzzzzzzzz')), 'a marker naming an unknown id stays as text');
  t.ok(text.includes('【not closed'), 'a bracket that never closes stays as text');
  const cited = spans.map((s) => cps(text).slice(s.start as number, s.end as number).join(''));
  t.same(cited, ['The sky is blue 🌌.', 'Water is wet.', 'Water is wet.', 'Last 𝄞 claim!']);
  t.same(spans.map((s) => s.url), ['https://a.example/', 'https://a.example/', 'https://b.example/x', 'https://b.example/x']);
  for (const s of spans) t.ok(SOURCES.some((src) => src.url === s.url && src.title === s.title && src.id === s.sourceId), 'URL and title a backend returned');
});

t.test('blocks: each cited span is its own text block with web_search_result_location citations', async (t) => {
  const events = run('blocks', [TEXT]);
  const { blocks } = view(events);
  t.same(blocks.map((b) => b.kind), ['web-search', 'text', 'text', 'text', 'text', 'text']);
  t.same(blocks.map((b) => b.text), ['', 'Intro line with 𝔘𝔫𝔦𝔠𝔬𝔡𝔢 😀 text. ', 'The sky is blue 🌌.', ' Water is wet.', ` Unknown ${m('ws_zzzzzzzzzz')} stays, and so does 【not closed. `, 'Last 𝄞 claim!']);
  t.same(blocks.map((b) => b.citations.map((c) => c.url)), [[], [], ['https://a.example/'], ['https://a.example/', 'https://b.example/x'], [], ['https://b.example/x']]);
  t.same(blocks[2]!.citations[0], { type: 'web_search_result_location', url: 'https://a.example/', title: 'A', encrypted_index: 'ws_aaaaaaaaaa', cited_text: 'Alpha snippet' });
  // indexes are renumbered densely, each block opens before its deltas and stops after them
  const open = new Set<number>();
  let next = 0;
  for (const ev of events) {
    if (ev.type === 'block-start') {
      t.equal(ev.index, next++, 'indexes in order');
      open.add(ev.index);
    } else if ('index' in ev) {
      t.ok(open.has(ev.index), `${ev.type} on an open block`);
      if (ev.type === 'block-stop') open.delete(ev.index);
    }
  }
  t.equal(open.size, 0, 'every block stopped');
  t.notOk(blocks.some((b) => b.kind === 'text' && !/\S/.test(b.text)), 'no text block of white space alone');
});

t.test('markers split at every code-unit and UTF-8 byte boundary give the same output as unsplit', async (t) => {
  for (const style of ['spans', 'blocks'] as const) {
    const whole = view(run(style, [TEXT]));
    for (let i = 1; i < TEXT.length; i++) {
      const got = view(run(style, [TEXT.slice(0, i), TEXT.slice(i)]));
      if (JSON.stringify(got) !== JSON.stringify(whole)) t.fail(`${style}: split at code unit ${i}`, { got, whole });
    }
    const bytes = Buffer.byteLength(TEXT);
    for (let i = 1; i < bytes; i++) {
      const got = view(run(style, byteSplit(TEXT, i)));
      if (JSON.stringify(got) !== JSON.stringify(whole)) t.fail(`${style}: split at byte ${i}`, { got, whole });
    }
    t.pass(`${style}: ${TEXT.length - 1} code-unit and ${bytes - 1} byte splits`);
  }
});

t.test('a sentence ends before a capital, not at a question mark or abbreviation inside it', async (t) => {
  const text = `Intro. Result 1 for What is new in Node.js? covers it, e.g. here.${m('ws_aaaaaaaaaa')} 東京は大きい。人口は多い。${m('ws_bbbbbbbbbb')}\nList item one${m('ws_aaaaaaaaaa')}`;
  const { blocks, spans } = view(run('spans', [text]));
  const seen = cps(blocks[1]!.text);
  t.same(spans.map((s) => seen.slice(s.start as number, s.end as number).join('')), ['Result 1 for What is new in Node.js? covers it, e.g. here.', '人口は多い。', 'List item one']);
});

t.test('a whole text block (non-streaming upstream) is rewritten as its streamed deltas are', async (t) => {
  for (const style of ['spans', 'blocks'] as const) {
    const rw = createCitationRewriter({ source: (id) => byId.get(id), style });
    const whole = answer([]).map((ev) => (ev.type === 'block-start' && ev.block.kind === 'text' ? { ...ev, block: { kind: 'text' as const, text: TEXT } } : ev));
    const out = [...whole.flatMap((ev) => rw.push(ev)), ...rw.end()];
    t.same(view(out), view(run(style, [TEXT])), style);
  }
});

t.test('property (seeded): random texts of markers, astral characters and brackets, split anywhere', async (t) => {
  const rand = rng(0x5eed);
  const atoms = ['Fact one.', ' ', 'word', ' 😀', '𝄞', '\n', '. ', m('ws_aaaaaaaaaa'), m('ws_bbbbbbbbbb'), m('ws_cccccccccc'), '【', '】', '【ws_', 'é', '? '];
  for (let run_ = 0; run_ < 300; run_++) {
    let text = '';
    const n = 1 + Math.floor(rand() * 25);
    for (let i = 0; i < n; i++) text += atoms[Math.floor(rand() * atoms.length)];
    for (const style of ['spans', 'blocks'] as const) {
      const whole = view(run(style, [text]));
      const parts = randomSplit(text, rand, 1 + Math.floor(rand() * 8));
      const got = view(run(style, parts));
      if (JSON.stringify(got) !== JSON.stringify(whole)) {
        t.fail(`${style}: ${JSON.stringify(parts)}`, { got, whole });
        return;
      }
      const received = whole.blocks.filter((b) => b.kind === 'text').map((b) => b.text).join('');
      t.notOk(received.includes('ws_aaaaaaaaaa】') || received.includes('ws_bbbbbbbbbb】'), 'no known marker reaches the client');
      for (const s of whole.spans) {
        const bt = cps(whole.blocks[s.index as number]!.text);
        t.ok((s.start as number) < (s.end as number) && (s.end as number) <= bt.length, 'span inside the block');
        if (!['https://a.example/', 'https://b.example/x'].includes(s.url as string)) t.fail('unknown URL cited');
      }
    }
  }
});

t.test('a text block without markers streams at once in spans style, by sentence in blocks style', async (t) => {
  const rw = createCitationRewriter({ source: (id) => byId.get(id), style: 'spans' });
  rw.push({ type: 'block-start', index: 0, block: { kind: 'text', text: '' } });
  t.same(rw.push({ type: 'text-delta', index: 0, text: 'Hello wor' }), [{ type: 'text-delta', index: 0, text: 'Hello wor' }]);
  t.same(rw.push({ type: 'text-delta', index: 0, text: 'ld 【ws' }), [{ type: 'text-delta', index: 0, text: 'ld ' }], 'a possible marker is held back');
  const blocks = createCitationRewriter({ source: (id) => byId.get(id), style: 'blocks' });
  blocks.push({ type: 'block-start', index: 0, block: { kind: 'text', text: '' } });
  t.same(blocks.push({ type: 'text-delta', index: 0, text: 'One. Two' }), [
    { type: 'block-start', index: 0, block: { kind: 'text', text: '' } },
    { type: 'text-delta', index: 0, text: 'One. ' },
  ]);
});
