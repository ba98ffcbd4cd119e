// Which upstream dialect a recording is in, from the shape of its frames alone (no file name, no
// headers), for `replay` without `from`:
// - a JSON body (first byte `{`): `"type": "message"` or `"type": "error"` with an `error` object →
//   Anthropic Messages; `"object": "chat.completion"` → OpenAI Chat; `"object": "response"` →
//   OpenAI Responses; an `{"error": {...}}` envelope alone → OpenAI Chat;
// - an event stream: the first event whose data is a JSON object decides: `"object":
//   "chat.completion.chunk"` (or a `data: [DONE]`) → Chat; a `type` starting with `response.` →
//   Responses; an Anthropic event type (`message_start`, `content_block_*`, `ping`, ...) → Messages.
import { createParser } from 'eventsource-parser';
import type { DialectName } from '../chunks.js';
import { bodyStart } from './offsets.js';

export type ReplayDialect = Extract<DialectName, 'anthropic' | 'openai-chat' | 'openai-responses'>;

const ANTHROPIC_EVENTS = new Set(['message_start', 'message_delta', 'message_stop', 'content_block_start', 'content_block_delta', 'content_block_stop', 'ping']);

type Obj = Record<string, unknown>;

function asObject(text: string): Obj | undefined {
  try {
    const v: unknown = JSON.parse(text);
    return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : undefined;
  } catch {
    return undefined;
  }
}

function ofJsonBody(body: Obj): ReplayDialect | undefined {
  if (body.type === 'message') return 'anthropic';
  if (body.type === 'error' && typeof body.error === 'object') return 'anthropic';
  if (body.object === 'chat.completion') return 'openai-chat';
  if (body.object === 'response') return 'openai-responses';
  if (typeof body.error === 'object' && body.error !== null) return 'openai-chat';
  return undefined;
}

function ofSseData(data: string): ReplayDialect | undefined {
  if (data === '[DONE]') return 'openai-chat';
  const frame = asObject(data);
  if (frame === undefined) return undefined;
  if (frame.object === 'chat.completion.chunk') return 'openai-chat';
  const type = frame.type;
  if (typeof type !== 'string') return undefined;
  if (type.startsWith('response.')) return 'openai-responses';
  if (ANTHROPIC_EVENTS.has(type) || (type === 'error' && typeof frame.error === 'object')) return 'anthropic';
  return undefined;
}

/** The dialect of a recorded upstream answer, or undefined when no frame says. */
export function detectDialect(bytes: Buffer): ReplayDialect | undefined {
  const text = bytes.toString('utf8');
  const first = bytes[bodyStart(bytes)];
  if (first === 0x7b) {
    const body = asObject(text);
    if (body !== undefined) return ofJsonBody(body);
  }
  let found: ReplayDialect | undefined;
  const parser = createParser({
    onEvent(m) {
      found ??= ofSseData(m.data);
    },
  });
  parser.feed(text);
  if (found === undefined) parser.feed('\n\n'); // a last event without its blank line
  return found;
}
