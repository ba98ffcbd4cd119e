// A Response event frame in OpenAI's layout, `{"type":"<type>","sequence_number":<digits>,"response":<R>}`,
// parsed strictly with where each member of its Response lies: the frame's object is
// {type, sequence_number, response: R's value}, exactly what the strict parser builds for the whole
// frame, when its text begins with those two members (no whitespace, the number in the layouts'
// digit form: repeated-response.ts), ends with the `}` right after R, and R is valid JSON at one
// level deeper (the strict parser's depth limit less the frame's own object). Anything else returns
// null and the caller takes the usual path, which gives the exact error.
import type { JsonObject } from '../../chunks.js';
import { DEFAULT_MAX_DEPTH, parseStrict } from '../../json/strict-parse.js';
import { isObject } from '../../json/values.js';
import { numberEnd } from './repeated-response.js';

const RESPONSE_KEY = ',"response":';

export interface ResponseFrame {
  parsed: JsonObject;
  /** where each member value of the Response lies in the frame's text */
  members: Map<string, [number, number]>;
}

/** The frame `data` of event `type` (a Response event: its name needs no escaping), or null. */
export function parseResponseFrame(type: string, data: string): ResponseFrame | null {
  const head = `{"type":"${type}","sequence_number":`;
  if (data.slice(0, head.length) !== head) return null;
  const end = numberEnd(data, head.length);
  if (end < 0 || data.slice(end, end + RESPONSE_KEY.length) !== RESPONSE_KEY || data.charCodeAt(data.length - 1) !== 0x7d /* } */) return null;
  const from = end + RESPONSE_KEY.length;
  const ranges = new Map<string, [number, number]>();
  let response;
  try {
    response = parseStrict(data.slice(from, data.length - 1), { maxDepth: DEFAULT_MAX_DEPTH - 1, topLevel: ranges });
  } catch {
    return null;
  }
  if (!isObject(response)) return null;
  let seq = 0;
  for (let i = head.length; i < end; i++) seq = seq * 10 + data.charCodeAt(i) - 0x30;
  for (const r of ranges.values()) {
    r[0] += from;
    r[1] += from;
  }
  return { parsed: { type, sequence_number: seq, response }, members: ranges };
}
