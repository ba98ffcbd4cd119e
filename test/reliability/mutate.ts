// Seeded mutations of a JSON request body for the fuzzer: each picks a random place in the tree and
// deletes it, changes its type, makes it huge, fills it with awkward unicode, or nests it deeply.
// A PRNG with a seed, so a failing input is reproduced from its seed and index alone.
export type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

/** mulberry32: small, fast, good enough to pick mutations */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let x = a;
    x = Math.imul(x ^ (x >>> 15), x | 1);
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61);
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

export const pick = <T>(rand: () => number, list: readonly T[]): T => list[Math.floor(rand() * list.length)]!;

const UNICODE = [
  '\ud800', // a lone surrogate (not valid UTF-16 text)
  '\u0000',
  '\u202e\u2066RTL',
  'e\u0301\u0301\u0301',
  '\u{1F600}\u{1F469}\u200D\u{1F4BB}',
  '\ufeffBOM',
  '\u2028\u2029',
  '𝕳𝖊𝖑𝖑𝖔',
];

/** Replacement values of every type and size the mutations draw from. */
function replacement(rand: () => number, current: Json): Json {
  const kind = Math.floor(rand() * 14);
  switch (kind) {
    case 0: return null;
    case 1: return typeof current === 'string' ? 42 : 'a string';
    case 2: return !(current === true);
    case 3: return [];
    case 4: return {};
    case 5: return 'x'.repeat(Math.floor(rand() * 200_000));
    case 6: return pick(rand, [0, -1, 1e308, -1e308, 2 ** 53 + 1, 0.5, -0, 1e-300]);
    case 7: return pick(rand, UNICODE) + (typeof current === 'string' ? current : '');
    case 8: return JSON.stringify(current).length < 1000 ? Array.from({ length: 1000 }, () => current) : [current];
    case 9: {
      let deep: Json = current;
      for (let i = 0, n = 50 + Math.floor(rand() * 500); i < n; i++) deep = rand() < 0.5 ? [deep] : { a: deep };
      return deep;
    }
    case 10: return '';
    case 11: return [current, current];
    case 12: return { unexpected: current, 'ünïcödé': pick(rand, UNICODE) };
    default: return String(current);
  }
}

type Slot = { parent: Json[] | { [k: string]: Json }; key: string | number };

function slots(value: Json, out: Slot[], depth = 0): Slot[] {
  if (depth > 12 || value === null || typeof value !== 'object') return out;
  if (Array.isArray(value)) value.forEach((v, i) => (out.push({ parent: value, key: i }), slots(v, out, depth + 1)));
  else for (const [k, v] of Object.entries(value)) out.push({ parent: value, key: k }), slots(v, out, depth + 1);
  return out;
}

/** A mutated deep copy of `body` (1 to 3 mutations) and a short description of what changed. */
export function mutate(body: Json, rand: () => number): { body: Json; what: string[] } {
  const copy = structuredClone(body);
  const what: string[] = [];
  for (let n = 1 + Math.floor(rand() * 3); n > 0; n--) {
    const all = slots(copy, []);
    if (all.length === 0) break;
    const { parent, key } = pick(rand, all);
    const current = (parent as Record<string | number, Json>)[key]!;
    if (rand() < 0.2) {
      if (Array.isArray(parent)) parent.splice(key as number, 1);
      else delete parent[key as string];
      what.push(`delete ${String(key)}`);
    } else {
      const next = replacement(rand, current);
      (parent as Record<string | number, Json>)[key] = next;
      what.push(`${String(key)} := ${typeof next === 'string' ? `string(${next.length})` : Array.isArray(next) ? `array(${next.length})` : next === null ? 'null' : typeof next}`);
    }
  }
  return { body: copy, what };
}
