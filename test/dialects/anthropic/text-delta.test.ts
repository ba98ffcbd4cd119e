// The text-delta fast path must build exactly what the strict parser builds, or step aside (null):
// checked on hand-picked frames, near misses, and thousands of generated ones (valid and mutated).
import t from 'tap';
import { parseTextDeltaFrame } from '../../../lib/dialects/anthropic/text-delta.js';
import { parseStrict } from '../../../lib/json/strict-parse.js';
import { decodeAnthropicSse } from '../../../lib/dialects/anthropic/events.js';

const frame = (text: string, index = 0): string => `{"type":"content_block_delta","index":${index},"delta":{"type":"text_delta","text":${JSON.stringify(text)}}}`;

/** what the strict parser makes of it, or an error */
function strict(data: string): { value: unknown } | { error: string } {
  try {
    return { value: parseStrict(data) };
  } catch (err) {
    return { error: (err as Error).message };
  }
}

/** the fast path either agrees exactly (same JSON text, same key order) or returns null */
function agrees(data: string): 'fast' | 'general' | string {
  const fast = parseTextDeltaFrame(data);
  const ref = strict(data);
  if (fast === null) return 'general';
  if ('error' in ref) return `fast path accepted what the strict parser rejects (${ref.error}): ${data}`;
  if (JSON.stringify(fast) !== JSON.stringify(ref.value)) return `different value: ${JSON.stringify(fast)} vs ${JSON.stringify(ref.value)}`;
  return 'fast';
}

t.test('ordinary frames take the fast path and equal the strict parse', async (t) => {
  for (const [text, index] of [['Hello', 0], ['', 3], ['multi\nline\ttab "quoted" back\\slash', 12], ['emoji 🎉 and ünïcödé', 1], ['\u2028\u2029', 0], ['</script>', 99999]] as const) {
    t.equal(agrees(frame(text, index)), 'fast', `text of ${text.length} characters at index ${index}`);
  }
  t.equal(parseTextDeltaFrame(frame('x'.repeat(70_000))), null, 'a very long frame takes the general path');
  t.equal(decodeAnthropicSse({ event: 'content_block_delta', data: frame('x'.repeat(70_000)) })[0]?.type, 'text-delta', 'and decodes the same');
  t.same(parseTextDeltaFrame(frame('a"b', 7)), { type: 'content_block_delta', index: 7, delta: { type: 'text_delta', text: 'a"b' } });
});

t.test('near misses go to the general parser', async (t) => {
  const misses = [
    frame('x').replace('"index":0', '"index":00'), // leading zero: invalid JSON
    frame('x').replace('"index":0', '"index":-1'),
    frame('x').replace('"index":0', '"index":1.5'),
    frame('x').replace('"index":0', '"index":1234567890'), // more digits than taken
    frame('x').replace('"index":0', '"index": 0'),
    frame('x') + ' ',
    frame('x').replace('}}', '},"x":1}'),
    frame('x').replace('"text":"x"', '"text":"x","text":"y"'), // a duplicate key
    frame('x').replace('text_delta', 'thinking_delta'),
    '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"a\u0001b"}}', // raw control character
    '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"a\\qb"}}', // bad escape
    '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"a\\u12"}}',
    '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"a"b"}}',
    '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"ab\\"}}',
    '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"ab}}',
    '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":}}',
  ];
  for (const m of misses) t.equal(parseTextDeltaFrame(m), null, m);
});

t.test('generated frames: valid ones agree, mutated ones never pass what the strict parser rejects', async (t) => {
  let seed = 0x2545f491;
  const rnd = (n: number): number => {
    seed ^= seed << 13;
    seed ^= seed >>> 17;
    seed ^= seed << 5;
    return (seed >>> 0) % n;
  };
  const alphabet = ['a', 'Z', ' ', '"', '\\', '/', '\n', '\u0000', '\u001f', '\u007f', 'é', '😀', '\ud800', '}', '{', ':', ','];
  const counts = { fast: 0, general: 0 };
  for (let i = 0; i < 4000; i++) {
    let text = '';
    for (let k = rnd(12); k > 0; k--) text += alphabet[rnd(alphabet.length)];
    let data = frame(text, rnd(3) === 0 ? rnd(100000) : rnd(5));
    if (rnd(3) === 0) {
      // mutate one character of the frame
      const at = rnd(data.length);
      data = data.slice(0, at) + ['"', '\\', '}', ' ', '0', 'x', '\u0001'][rnd(7)] + data.slice(at + 1);
    }
    const r = agrees(data);
    if (r !== 'fast' && r !== 'general') {
      t.fail(r);
      return;
    }
    counts[r]++;
  }
  t.ok(counts.fast > 2000, `most valid frames took the fast path (${counts.fast})`);
  t.ok(counts.general > 500, `mutated frames went to the general parser (${counts.general})`);
});

t.test('the decoder gives the same event either way, native bytes kept', async (t) => {
  const data = frame('Hi "there"', 2);
  const [ev] = decodeAnthropicSse({ event: 'content_block_delta', data });
  t.match(ev, { type: 'text-delta', index: 2, text: 'Hi "there"', native: { dialect: 'anthropic', event: 'content_block_delta', data } });
  const [bad] = [() => decodeAnthropicSse({ event: 'content_block_delta', data: frame('x').replace('"text":"x"', '"text":"x","text":"y"') })];
  t.throws(bad, { code: 'GW_ERR_INTEGRITY' }, 'a duplicate key still fails closed');
});
