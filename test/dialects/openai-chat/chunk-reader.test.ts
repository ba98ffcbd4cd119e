// A stream's content frames after the first are recognised from the text they share with it
// (ChunkLayoutReader: the head once, then the frame's end alone). It must recognise exactly what the
// whole expression (parseChunkLayout) recognises, with the same object and model span, whatever
// came before: checked over every recorded Chat stream and the bench's, each frame followed by
// seeded mutations of the next one (a character deleted, inserted or replaced anywhere).
import { readdirSync, readFileSync } from 'node:fs';
import t from 'tap';
import { ChunkLayoutReader, parseChunkLayout, type ChunkLayout } from '../../../lib/dialects/openai-chat/chunk-layout.js';
import { prng } from '../../json/json-gen.js';
import { fixture } from '../../helpers/paths.js';

function streams(): string[][] {
  const dir = fixture('upstream', 'openai-chat');
  const recorded = readdirSync(dir).filter((f) => f.endsWith('.sse')).map((f) =>
    readFileSync(`${dir}/${f}`, 'utf8').split('\n').filter((l) => l.startsWith('data: {')).map((l) => l.slice(6)),
  );
  const head = { id: 'chatcmpl-bench-0001', object: 'chat.completion.chunk', created: 1767225600, model: 'gpt-bench', service_tier: 'default', system_fingerprint: 'fp_bench' };
  const chunk = (content: string, extra: object = {}): string => JSON.stringify({ ...head, choices: [{ index: 0, delta: { content }, logprobs: null, finish_reason: null }], usage: null, ...extra });
  const bench = ['tok0 xxx', 'tok1 xxx', 'a "quoted" \\ line\n', 'é🎉\u2028'].map((c) => chunk(c));
  const obfuscated = ['a', 'b', 'c'].map((c, i) => chunk(c, { obfuscation: `Zx${i}\\u0041` }));
  const noFingerprint = ['a', 'b'].map((c) => JSON.stringify({ id: 'c-1', object: 'chat.completion.chunk', created: 0, model: 'm\\u00e9', system_fingerprint: null, choices: [{ index: 0, delta: { content: c }, finish_reason: null }] }));
  return [...recorded, bench, obfuscated, noFingerprint];
}

const INSERTS = [' ', '"', '\\', '0', '9', ',', '{', '}', '[', ']', ':', 'n', 'u', '\u0001', 'é', 'x'];

function mutate(data: string, rand: () => number): string {
  const at = Math.floor(rand() * data.length);
  const c = INSERTS[Math.floor(rand() * INSERTS.length)]!;
  const r = rand();
  if (r < 0.33) return data.slice(0, at) + data.slice(at + 1);
  if (r < 0.66) return data.slice(0, at) + c + data.slice(at);
  return data.slice(0, at) + c + data.slice(at + 1);
}

const view = (r: ChunkLayout | null): string => (r === null ? 'null' : JSON.stringify([r.parsed, Object.keys(r.parsed), r.modelSpan]));

t.test('the reader recognises exactly what the whole expression does, after any frame', async (t) => {
  const rand = prng(7);
  let viaHead = 0;
  let refused = 0;
  let failures = 0;
  for (const frames of streams()) {
    const reader = new ChunkLayoutReader();
    for (let i = 0; i < frames.length; i++) {
      const next = frames[i]!;
      const candidates = [next, ...Array.from({ length: 60 }, () => mutate(next, rand))];
      for (const data of candidates) {
        // each candidate after the same primed state: a reader that read the frame before
        const primed = new ChunkLayoutReader();
        if (i > 0) primed.read(frames[i - 1]!);
        const got = view(primed.read(data));
        const want = view(parseChunkLayout(data));
        if (got !== want && failures++ < 10) t.fail(`reader ${got} vs expression ${want}: ${data}`);
        if (want === 'null') refused++;
        else if (i > 0 && parseChunkLayout(frames[i - 1]!) !== null) viaHead++;
      }
      t.equal(view(reader.read(next)), view(parseChunkLayout(next)), 'in stream order');
    }
  }
  t.equal(failures, 0, 'no disagreement');
  t.ok(viaHead > 100, `${viaHead} frames recognised after a recognised one (the head path)`);
  t.ok(refused > 200, `${refused} candidates refused by both`);
});
