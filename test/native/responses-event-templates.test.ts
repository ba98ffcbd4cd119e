// The streamed Response events (created, in_progress, completed, incomplete) are written from
// per-stream runs (ResponseWriter.eventJson: the request's members serialised once a stream, the
// status members as constants, the usage through a template of its numbers) instead of serialising
// the Response object for each event: for every recorded Responses stream, under request shapes
// that echo differently (the bench's, a Codex-shaped one, reasoning and text variants), with
// cached and reasoning tokens, incomplete and failed ends, the bytes are the object path's, byte
// for byte.
import { readdirSync, readFileSync } from 'node:fs';
import t, { type Test } from 'tap';
import type { CanonicalEvent, JsonObject, Usage } from '../../lib/chunks.js';
import { dialects, sseEncoders } from '../../lib/dialects/index.js';
import { responseEvents } from '../../lib/dialects/openai-responses/client-encode-writer.js';
import { EncoderState } from '../../lib/encoder-input.js';
import { GatewayError } from '../../lib/errors.js';
import { replay, type ReplayOptions } from '../../lib/replay/index.js';
import { servedRequest } from '../../lib/replay/served.js';
import { GPT_RESPONSES, supportResponsesRequest } from '../../bench/bodies.js';
import { fixture } from '../helpers/paths.js';

const served: ReplayOptions['served'] = { modelId: 'openai/served-model', pricing: { input: 1.25, output: 10, cacheRead: 0.125 } };
const DIR = fixture('upstream', 'openai-responses');
const STREAMS = readdirSync(DIR).filter((f) => f.endsWith('.sse')).sort();

/** Codex-like instructions: markdown with quotes, backticks, tabs, a U+2028 and an emoji (escapes and non-ASCII) */
function codexInstructions(): string {
  let out = 'You are a coding agent running in a terminal.\n\n## Rules\n';
  for (let i = 0; out.length < 12_500; i++) out += `- Rule ${i}: when the user says "fix it", read the file first; run \`npm test\`.\tNever guess a path \u2028 😀.\n`;
  return out;
}

const functionTool = (i: number, extra: JsonObject = {}): JsonObject => ({
  type: 'function', name: `tool_${i}`, description: `Runs operation ${i}.\nUse it for "op ${i}".`,
  parameters: { type: 'object', properties: { path: { type: 'string' }, limit: { type: 'integer' } }, required: ['path'], additionalProperties: false }, ...extra,
});

const BODIES: [string, JsonObject][] = [
  ['minimal', { model: 'served-model', input: 'hi' }],
  ['the bench\'s request', JSON.parse(supportResponsesRequest(GPT_RESPONSES, true).body as string) as JsonObject],
  ['Codex-shaped', {
    model: 'served-model', input: [{ role: 'user', content: [{ type: 'input_text', text: 'fix the tests' }] }], instructions: codexInstructions(),
    tools: [...Array.from({ length: 9 }, (_, i) => functionTool(i, i % 2 === 0 ? { strict: false } : {})), { type: 'function', name: 'bare' }],
    tool_choice: 'auto', parallel_tool_calls: false, reasoning: { effort: 'high', summary: 'auto' }, store: false, stream: true,
    include: ['reasoning.encrypted_content'], prompt_cache_key: 'cache-\u00e9-"k"', text: { verbosity: 'low' },
  }],
  ['reasoning effort only', { model: 'served-model', input: 'hi', reasoning: { effort: 'low' } }],
  ['reasoning summary only', { model: 'served-model', input: 'hi', reasoning: { summary: 'detailed' } }],
  ['gateway-auto (a defaulted effort)', { input: 'hi' }],
  ['text: json_schema', { model: 'served-model', input: 'hi', text: { format: { type: 'json_schema', name: 'x', schema: { type: 'object', properties: {} }, strict: true }, verbosity: 'high' } }],
  ['text: empty, format text', { model: 'served-model', input: 'hi', text: {} }],
  ['text: verbosity then format', { model: 'served-model', input: 'hi', text: { verbosity: 'medium', format: { type: 'text' } } }],
  ['every echoed parameter', {
    model: 'served-model', input: 'hi', instructions: 'Be "brief"\n', max_output_tokens: 64, max_tool_calls: 3, temperature: 0.5, top_p: 0.25, top_logprobs: 2,
    tool_choice: 'none', user: 'u"1', safety_identifier: 's\u0001', metadata: { k: 'v', 'é': '"' }, parallel_tool_calls: true,
  }],
];

function routedFor(body: JsonObject): ReturnType<typeof servedRequest> {
  const out = servedRequest({ modelId: 'openai/served-model', pricing: { input: 1.25, output: 10, cacheRead: 0.125 } }, { dialect: 'openai-responses', model: 'served-model', stream: true });
  out.routed.request = dialects['openai-responses'].validate!(structuredClone(body));
  return out;
}

/** the stream's events, fresh for each run (an encoder may keep references into them) */
function eventsOf(name: string, chunks?: 'random'): CanonicalEvent[] {
  return replay(readFileSync(`${DIR}/${name}`), { served, chunks, seed: 7 }).events;
}

function encode(body: JsonObject, events: CanonicalEvent[], templates: boolean, usage: Usage | null = null): string {
  const { routed, catalog } = routedFor(body);
  const input = new EncoderState('req_tmpl1', catalog, routed);
  if (usage !== null) input.usage = usage;
  const enc = sseEncoders['openai-responses']!({ clientModel: 'served-model', requestId: 'req_tmpl1', input });
  responseEvents.templates = templates;
  try {
    let out = '';
    for (const ev of events) {
      try {
        out += enc.encode(ev);
      } catch (err) {
        out += `[thrown: ${(err as Error).message}]`;
        break;
      }
    }
    return out;
  } finally {
    responseEvents.templates = true;
  }
}

function compare(t: Test, body: JsonObject, events: () => CanonicalEvent[], what: string, usage: Usage | null = null): void {
  const mine = encode(body, events(), true, usage);
  const old = encode(body, events(), false, usage);
  t.equal(mine, old, what);
}

const now = Date.now;
Date.now = () => 1_767_225_600_000; // the clock the Response stamps, the same for every run
t.teardown(() => {
  Date.now = now;
});

t.test('every recorded stream under every request shape: the object path\'s bytes', async (t) => {
  for (const [label, body] of BODIES) {
    for (const name of STREAMS) {
      compare(t, body, () => eventsOf(name), `${name}, ${label}`);
      compare(t, body, () => eventsOf(name, 'random'), `${name} in random chunks, ${label}`);
    }
  }
});

t.test('the events are JSON.stringify\'s text of their data, and the Response events are written', async (t) => {
  for (const [label, body] of BODIES) {
    const text = encode(body, eventsOf('text.sse'), true);
    const datas = text.split('\n\n').filter((f) => f !== '').map((f) => f.slice(f.indexOf('data: ') + 6));
    for (const data of datas) t.equal(JSON.stringify(JSON.parse(data)), data, `${label}: ${data.slice(0, 40)}…`);
    for (const type of ['response.created', 'response.in_progress', 'response.completed']) t.match(text, `event: ${type}\n`, `${label}: ${type}`);
  }
});

/** text.sse's events with its usage (message-delta) replaced, or the stop, or ended by an error */
function altered(change: (ev: CanonicalEvent) => CanonicalEvent[]): () => CanonicalEvent[] {
  return () => eventsOf('text.sse').flatMap(change);
}

t.test('usage with cached and reasoning tokens, incomplete and failed ends', async (t) => {
  const usage = (u: Partial<Usage>) => altered((ev) => (ev.type === 'message-delta' ? [{ ...ev, usage: { ...ev.usage, ...u } }] : [ev]));
  const stop = (kind: 'length' | 'content-filter') => altered((ev) => (ev.type === 'message-delta' ? [{ ...ev, stop: { ...ev.stop, kind } as never }] : [ev]));
  const failAt = (type: CanonicalEvent['type']) => altered((ev) => (ev.type === type ? [{ type: 'error', error: new GatewayError('GW_ERR_UPSTREAM', 'it broke "here"') } as CanonicalEvent] : [ev]));
  for (const [label, body] of BODIES) {
    compare(t, body, usage({ cacheRead: 1_200, cacheWrite: 30, reasoning: 77, output: 90 }), `${label}: cached and reasoning tokens`);
    compare(t, body, usage({ input: 2 ** 53 + 2, output: 1e21 }), `${label}: large numbers`);
    compare(t, body, usage({ input: Number.NaN }), `${label}: a usage that is not a number (the object's path)`);
    compare(t, body, usage({ reasoning: Number.POSITIVE_INFINITY }), `${label}: an infinite reasoning count (the object's path)`);
    compare(t, body, usage({ cacheRead: -0 }), `${label}: -0`);
    compare(t, body, stop('length'), `${label}: incomplete (max_output_tokens)`);
    compare(t, body, stop('content-filter'), `${label}: incomplete (content_filter)`);
    compare(t, body, failAt('message-delta'), `${label}: failed`);
    compare(t, body, failAt('block-start'), `${label}: failed before any item`);
  }
  const settled: Usage = { input: 11, output: 22, cacheRead: 3, cacheWrite: 4, reasoning: 5, webSearches: 0 };
  compare(t, BODIES[2]![1], () => eventsOf('text.sse'), 'the encoder input\'s usage (settle\'s)', settled);
});

t.test('a failure before the start writes the object path\'s bytes', async (t) => {
  const events = (): CanonicalEvent[] => [{ type: 'error', error: new GatewayError('GW_ERR_UPSTREAM', 'no') } as CanonicalEvent];
  for (const [label, body] of BODIES) compare(t, body, events, label);
});
