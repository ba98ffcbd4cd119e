// Small JSON helpers for the simulated provider: type guards for parsed request bodies, and a
// serialiser that can emit raw (non-JSON) tokens such as `NaN` for the fault injector.

export type Obj = Record<string, unknown>;

export function isObj(x: unknown): x is Obj {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}

export function asStr(x: unknown): string | undefined {
  return typeof x === 'string' ? x : undefined;
}

export function asArr(x: unknown): unknown[] {
  return Array.isArray(x) ? x : [];
}

export function asNum(x: unknown): number | undefined {
  return typeof x === 'number' && Number.isFinite(x) ? x : undefined;
}

// A value that serialises as a bare token (no quotes). JSON.stringify escapes U+0000 as the
// six characters `\u0000`, so the marker survives serialisation and is swapped afterwards.
const RAW_OPEN = '\u0000sim-raw:';
const RAW_CLOSE = '\u0000';
const RAW_RE = /"\\u0000sim-raw:([A-Za-z0-9+\-.]*)\\u0000"/g;

export function rawToken(token: string): string {
  return `${RAW_OPEN}${token}${RAW_CLOSE}`;
}

export function toJson(value: unknown): string {
  return JSON.stringify(value).replace(RAW_RE, '$1');
}

// Duplicates the first occurrence of `"key":<primitive>` in serialised JSON, producing e.g.
// `{"type":"message","type":"message",...}`. Returns the text unchanged when the key is absent.
export function duplicateKey(json: string, key: string): string {
  const re = new RegExp(`"${key}":("(?:[^"\\\\]|\\\\.)*"|[-\\w.]+)`);
  return json.replace(re, (m) => `${m},${m}`);
}

// Whitespace-separated words, the sim's unit of "output tokens".
export function countWords(text: string): number {
  const t = text.trim();
  return t === '' ? 0 : t.split(/\s+/).length;
}

// Deterministic "input tokens": ceil(JSON length / 4).
export function jsonTokens(value: unknown): number {
  const s = JSON.stringify(value ?? null) ?? '';
  return Math.ceil(s.length / 4);
}
