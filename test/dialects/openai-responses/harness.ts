// Shared by the openai-responses tests: the decode chain with the Responses decoder
// (sse-decode → provider-decode → integrity, offline context), an accumulator of canonical events
// into blocks, what a recorded fixture itself says (read without the gateway's decoder), and a
// Response frame with its echoed instructions and tools rewritten.
import { readFileSync } from 'node:fs';
import type { CanonicalEvent, Deployment, JsonObject, StopReason, Usage } from '../../../lib/chunks.js';
import { upstreamDecoders } from '../../../lib/dialects/index.js';
import { responsesDecoder } from '../../../lib/dialects/openai-responses/events.js';
import { parseStrict } from '../../../lib/json/strict-parse.js';
import { offlineContext } from '../../../lib/offline-context.js';
import { integrity } from '../../../stages/integrity.js';
import { providerDecode } from '../../../stages/provider-decode.js';
import { sseDecode } from '../../../stages/sse-decode.js';
import { fixture } from '../../helpers/paths.js';
import { frames, runSync } from '../../helpers/replay.js';

/** provider-decode finds the decoder factory in the registry; until the registry holds it, the test installs it. */
upstreamDecoders['openai-responses'] ??= responsesDecoder;

export const DIR = fixture('upstream', 'openai-responses');
export const RESPONSES_DEPLOYMENT: Deployment = { providerId: 'openai', protocol: 'openai', api: 'responses', upstreamModel: 'gpt-5-up' };

/** sse-decode → provider-decode → integrity over the chunks. */
export function decodeChunks(chunks: Buffer[], mode: 'sse' | 'json'): CanonicalEvent[] {
  const ctx = offlineContext({ reqId: 'req_resp', dialect: 'openai-responses', endpoint: 'responses', path: '/v1/responses' });
  const stages = [sseDecode({ mode: () => mode }), providerDecode({ dialect: () => 'openai-responses' }), integrity({ expectedModel: () => undefined })];
  return runSync<CanonicalEvent>(stages, chunks, ctx);
}

export interface Block {
  kind: string;
  text: string;
  signature: string;
  id: string;
  name: string;
  json: string;
  value: JsonObject | undefined;
}

export interface Decoded {
  id: string;
  model: string;
  blocks: Block[];
  stop: StopReason | null | undefined;
  usage: Usage | undefined;
  error: CanonicalEvent | undefined;
}

/** The message the canonical events describe. */
export function accumulate(events: CanonicalEvent[]): Decoded {
  const out: Decoded = { id: '', model: '', blocks: [], stop: undefined, usage: undefined, error: undefined };
  for (const ev of events) {
    switch (ev.type) {
      case 'message-start':
        out.id = ev.id;
        out.model = ev.model;
        out.usage = { ...ev.usage };
        break;
      case 'block-start': {
        const b = ev.block;
        const block: Block = { kind: b.kind, text: '', signature: '', id: '', name: '', json: '', value: undefined };
        if (b.kind === 'text') block.text = b.text;
        if (b.kind === 'thinking') Object.assign(block, { text: b.thinking, signature: b.signature });
        if (b.kind === 'tool-call') Object.assign(block, { id: b.id, name: b.name });
        if (b.kind === 'opaque') block.value = b.value;
        out.blocks[ev.index] = block;
        break;
      }
      case 'text-delta':
      case 'thinking-delta':
        out.blocks[ev.index]!.text += ev.text;
        break;
      case 'signature-delta':
        out.blocks[ev.index]!.signature = ev.signature;
        break;
      case 'tool-input-delta':
        out.blocks[ev.index]!.json += ev.json;
        break;
      case 'message-delta':
        out.stop = ev.stop;
        out.usage = { ...out.usage!, ...ev.usage };
        break;
      case 'error':
        out.error = ev;
        break;
    }
  }
  return out;
}

type Obj = Record<string, unknown>;

export interface FixtureFacts {
  /** the output items, complete (stream: from output_item.done, in output order) */
  items: Obj[];
  /** the terminal Response (stream: of response.completed / response.incomplete) */
  response: Obj | undefined;
  /** stream: the name of the terminal event */
  terminal: string | undefined;
}

export function fixtureFacts(name: string): FixtureFacts {
  const raw = readFileSync(`${DIR}/${name}`, 'utf8');
  if (name.endsWith('.json')) {
    const response = JSON.parse(raw) as Obj;
    return { items: response.output as Obj[], response, terminal: undefined };
  }
  const items: Obj[] = [];
  let response: Obj | undefined;
  let terminal: string | undefined;
  for (const f of frames(raw)) {
    const data = JSON.parse(f.data) as Obj;
    if (data.type === 'response.output_item.done') items[data.output_index as number] = data.item as Obj;
    if (data.type === 'response.completed' || data.type === 'response.incomplete' || data.type === 'response.failed' || data.type === 'error') {
      terminal ??= data.type;
      response ??= data.response as Obj | undefined;
    }
  }
  return { items: items.filter((i) => i !== undefined), response, terminal };
}

/** frame data with the Response's instructions written as `json` and its tools as `tools` (null: as they were), the members otherwise as recorded */
export function withEcho(data: string, json: string, tools: string | null): string {
  const parsed = parseStrict(data) as JsonObject;
  const response = parsed.response as JsonObject;
  const marks = ['\u0000instructions\u0000', '\u0000tools\u0000'];
  response.instructions = marks[0]!;
  if (tools !== null) response.tools = marks[1]!;
  return JSON.stringify(parsed).replace(JSON.stringify(marks[0]), () => json).replace(JSON.stringify(marks[1]), () => tools ?? '');
}
