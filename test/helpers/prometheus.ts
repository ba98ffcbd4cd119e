// A strict reader of the Prometheus text exposition format (0.0.4), for tests: it throws at the
// first rule broken (HELP and TYPE once per family and before its samples, a family's samples
// together, valid names and escapes, no series twice, histogram buckets cumulative with increasing
// `le` ending in `+Inf` equal to `_count`, `_sum` and `_count` present, counters not negative).
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface Family {
  name: string;
  type: 'counter' | 'gauge' | 'histogram' | 'summary' | 'untyped';
  help: string;
  samples: Sample[];
}

const METRIC = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

function parseValue(text: string, line: string): number {
  if (text === '+Inf') return Infinity;
  if (text === '-Inf') return -Infinity;
  if (text === 'NaN') return NaN;
  if (!/^-?(\d+\.?\d*([eE][-+]?\d+)?|\.\d+)$/.test(text)) throw new Error(`bad value "${text}" in: ${line}`);
  return Number(text);
}

function parseLabels(text: string, line: string): Record<string, string> {
  const labels: Record<string, string> = {};
  let i = 0;
  while (i < text.length) {
    const eq = text.indexOf('=', i);
    if (eq < 0) throw new Error(`label without "=" in: ${line}`);
    const name = text.slice(i, eq);
    if (!LABEL.test(name)) throw new Error(`bad label name "${name}" in: ${line}`);
    if (name in labels) throw new Error(`label "${name}" twice in: ${line}`);
    if (text[eq + 1] !== '"') throw new Error(`label value not quoted in: ${line}`);
    let j = eq + 2;
    let value = '';
    for (;;) {
      const c = text[j];
      if (c === undefined) throw new Error(`unterminated label value in: ${line}`);
      if (c === '"') break;
      if (c === '\\') {
        const e = text[j + 1];
        if (e === '\\') value += '\\';
        else if (e === '"') value += '"';
        else if (e === 'n') value += '\n';
        else throw new Error(`bad escape "\\${e}" in: ${line}`);
        j += 2;
        continue;
      }
      if (c === '\n') throw new Error(`raw newline in a label value: ${line}`);
      value += c;
      j++;
    }
    labels[name] = value;
    i = j + 1;
    if (i < text.length) {
      if (text[i] !== ',') throw new Error(`expected "," between labels in: ${line}`);
      i++;
    }
  }
  return labels;
}

/** The family a sample name belongs to (a histogram's `_bucket`, `_sum`, `_count` belong to it). */
function familyOf(name: string, families: Map<string, Family>): Family | undefined {
  const direct = families.get(name);
  if (direct !== undefined) return direct;
  const m = /^(.*)_(bucket|sum|count)$/.exec(name);
  const f = m ? families.get(m[1]!) : undefined;
  return f !== undefined && (f.type === 'histogram' || f.type === 'summary') ? f : undefined;
}

function checkHistogram(f: Family): void {
  const groups = new Map<string, { buckets: [number, number][]; sum?: number; count?: number }>();
  for (const s of f.samples) {
    const { le, ...rest } = s.labels;
    const key = JSON.stringify(Object.entries(rest).sort());
    let g = groups.get(key);
    if (g === undefined) groups.set(key, (g = { buckets: [] }));
    if (s.name === `${f.name}_bucket`) {
      if (le === undefined) throw new Error(`${f.name}_bucket without le`);
      g.buckets.push([parseValue(le, `le="${le}"`), s.value]);
    } else if (s.name === `${f.name}_sum`) g.sum = s.value;
    else if (s.name === `${f.name}_count`) g.count = s.value;
    else throw new Error(`histogram ${f.name} has a sample ${s.name}`);
  }
  for (const [key, g] of groups) {
    if (g.buckets.length === 0) throw new Error(`${f.name}${key}: no buckets`);
    for (let i = 1; i < g.buckets.length; i++) {
      if (!(g.buckets[i]![0] > g.buckets[i - 1]![0])) throw new Error(`${f.name}${key}: le not increasing`);
      if (g.buckets[i]![1] < g.buckets[i - 1]![1]) throw new Error(`${f.name}${key}: buckets not cumulative`);
    }
    const last = g.buckets[g.buckets.length - 1]!;
    if (last[0] !== Infinity) throw new Error(`${f.name}${key}: the last bucket is not +Inf`);
    if (g.count === undefined || g.sum === undefined) throw new Error(`${f.name}${key}: _sum or _count missing`);
    if (last[1] !== g.count) throw new Error(`${f.name}${key}: +Inf bucket ${last[1]} != _count ${g.count}`);
  }
}

export function parseExposition(text: string): Map<string, Family> {
  if (!text.endsWith('\n')) throw new Error('the exposition does not end with a newline');
  const families = new Map<string, Family>();
  const helped = new Set<string>();
  const seen = new Set<string>();
  const closed = new Set<string>();
  let current: Family | undefined;
  for (const line of text.slice(0, -1).split('\n')) {
    if (line === '') continue;
    if (line.startsWith('#')) {
      const m = /^# (HELP|TYPE) (\S+) (.*)$/.exec(line);
      if (!m) continue; // a plain comment
      const [, kind, name, rest] = m as unknown as [string, string, string, string];
      if (!METRIC.test(name)) throw new Error(`bad metric name in: ${line}`);
      if (closed.has(name)) throw new Error(`${kind} for ${name} after its samples`);
      if (kind === 'HELP') {
        if (helped.has(name)) throw new Error(`HELP twice for ${name}`);
        helped.add(name);
        const f = families.get(name);
        if (f) f.help = rest;
        else families.set(name, { name, type: 'untyped', help: rest, samples: [] });
      } else {
        if (!['counter', 'gauge', 'histogram', 'summary', 'untyped'].includes(rest)) throw new Error(`bad TYPE in: ${line}`);
        const f = families.get(name) ?? { name, type: 'untyped', help: '', samples: [] };
        if (f.samples.length > 0 || (families.has(name) && f.type !== 'untyped')) throw new Error(`TYPE twice or late for ${name}`);
        f.type = rest as Family['type'];
        families.set(name, f);
      }
      continue;
    }
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)(?: (-?\d+))?$/.exec(line);
    if (!m) throw new Error(`not a sample line: ${line}`);
    const name = m[1]!;
    const f = familyOf(name, families);
    if (f === undefined) throw new Error(`sample ${name} without a TYPE before it`);
    if (current !== f) {
      if (current !== undefined) closed.add(current.name);
      if (closed.has(f.name)) throw new Error(`the samples of ${f.name} are not together`);
      current = f;
    }
    const labels = parseLabels(m[2] ?? '', line);
    const value = parseValue(m[3]!, line);
    const id = `${name}${JSON.stringify(Object.entries(labels).sort())}`;
    if (seen.has(id)) throw new Error(`series twice: ${line}`);
    seen.add(id);
    if (f.type === 'counter' && !(value >= 0)) throw new Error(`negative counter: ${line}`);
    f.samples.push({ name, labels, value });
  }
  for (const f of families.values()) if (f.type === 'histogram') checkHistogram(f);
  return families;
}

/** The value of the one sample named `name` whose labels include `labels`; undefined when none. */
export function sampleValue(families: Map<string, Family>, name: string, labels: Record<string, string> = {}): number | undefined {
  const f = familyOf(name, families);
  const s = f?.samples.find((x) => x.name === name && Object.entries(labels).every(([k, v]) => x.labels[k] === v));
  return s?.value;
}

/** The sum over every sample named `name` whose labels include `labels`. */
export function sampleSum(families: Map<string, Family>, name: string, labels: Record<string, string> = {}): number {
  const f = familyOf(name, families);
  return (f?.samples ?? []).filter((x) => x.name === name && Object.entries(labels).every(([k, v]) => x.labels[k] === v)).reduce((a, x) => a + x.value, 0);
}
