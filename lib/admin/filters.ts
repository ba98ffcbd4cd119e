// The query parameters the usage and requests reads share: `from`/`to` (an ISO date, UTC midnight,
// or an ISO date-time with its offset; `to` exclusive), org, project, key, model. Each at most once;
// a bad value is a 400 naming the parameter.
import { errors } from '../errors/index.js';
import type { UsageFilter } from '../store/admin-store.js';

export const FILTER_PARAMS = ['from', 'to', 'org', 'project', 'key', 'model'] as const;

const ISO = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2}))?$/;

/** One value of a query parameter, or undefined when absent or empty (`?org=&project=` filters nothing); twice is a 400. */
export function oneParam(query: URLSearchParams, name: string): string | undefined {
  const all = query.getAll(name);
  if (all.length > 1) throw errors.adminFieldInvalid(name, 'must appear at most once');
  return all[0] === '' ? undefined : all[0];
}

function time(query: URLSearchParams, name: string): number | undefined {
  const text = oneParam(query, name);
  if (text === undefined) return undefined;
  const ms = ISO.test(text) ? Date.parse(text.length === 10 ? `${text}T00:00:00Z` : text) : NaN;
  if (Number.isNaN(ms)) throw errors.adminFieldInvalid(name, `must be an ISO date (2026-11-26) or date-time with its offset (2026-11-26T09:30:00Z), got "${text}"`);
  return ms;
}

export function usageFilter(query: URLSearchParams): UsageFilter {
  const filter: UsageFilter = {};
  const from = time(query, 'from');
  const to = time(query, 'to');
  if (from !== undefined) filter.from = from;
  if (to !== undefined) filter.to = to;
  if (from !== undefined && to !== undefined && to <= from) throw errors.adminFieldInvalid('to', 'must be later than `from`');
  for (const name of ['org', 'project', 'key', 'model'] as const) {
    const value = oneParam(query, name);
    if (value !== undefined) filter[name] = value;
  }
  return filter;
}

/** An integer query parameter within bounds, or its default. */
export function intParam(query: URLSearchParams, name: string, min: number, max: number, fallback: number): number {
  const text = oneParam(query, name);
  if (text === undefined) return fallback;
  const n = Number(text);
  if (!/^\d+$/.test(text) || n < min || n > max) throw errors.adminFieldInvalid(name, `must be an integer from ${min} to ${max}, got "${text}"`);
  return n;
}
