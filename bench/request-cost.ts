// A diagnostic: what the request side costs before the stream chain, in one process, without
// sockets or the store: each #21 row's body (the support conversation) through the steps a request
// takes before the upstream call — the credential and `anthropic-*` headers read from the raw
// header list, the key's hash, the strict JSON parse, the dialect's validator, routing and the
// upstream body (the native splice) — each timed alone, in CPU µs per request; the chat-json row also
// times its answer: the bench upstream's `chat.completion` decoded and written for the Chat client
// by the JSON encoder (the native pass-through, through-json.ts). It loads the code
// from --dist (default: this build), so two builds are compared by running it once from each:
//   node dist/bench/request-cost.js [--dist DIR] [--requests 20000] [--rounds 6] [--only ROWS] [--steps STEPS]
// `--steps parse,validate` times only those steps (the others still run once to make their inputs):
// under valgrind, one step's instructions alone.
// As with chain-cost.js, instructions counted under valgrind at two --requests give a figure other
// load cannot move (the difference of totals over the difference of requests).
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import type { RequestContext } from '../lib/context.js';
import type { DialectName, RawBody, CanonicalRequest, RoutedRequest, Usage } from '../lib/chunks.js';
import { benchConfig } from './gateway-config.js';
import { CLAUDE, GPT, GPT_RESPONSES, supportChatRequest, supportMessagesRequest, supportResponsesRequest } from './bodies.js';
import { chatCompletionFor } from './upstream.js';

const { values: args } = parseArgs({
  options: {
    dist: { type: 'string', default: join(dirname(fileURLToPath(import.meta.url)), '..') },
    requests: { type: 'string', default: '20000' },
    rounds: { type: 'string', default: '6' },
    only: { type: 'string' },
    steps: { type: 'string' },
  },
});
const N = Number(args.requests);
const ROUNDS = Number(args.rounds);
const dist = resolve(args.dist);
const load = async <T>(path: string): Promise<T> => (await import(pathToFileURL(join(dist, path)).href)) as T;
const { finalizeConfig } = await load<typeof import('../lib/config.js')>('lib/config.js');
const { Catalog } = await load<typeof import('../lib/catalog.js')>('lib/catalog.js');
const { dialects, validateMessagesHeaders } = await load<typeof import('../lib/dialects/index.js')>('lib/dialects/index.js');
const { parseJsonBody } = await load<typeof import('../stages/parse-body.js')>('stages/parse-body.js');
const { routeRequest } = await load<typeof import('../stages/route.js')>('stages/route.js');
const { encodeUpstreamRequest } = await load<typeof import('../lib/dialects/request-encoders.js')>('lib/dialects/request-encoders.js');
const { presentedKey } = await load<typeof import('../lib/auth.js')>('lib/auth.js');
const { hashKey } = await load<typeof import('../lib/store/key-rows.js')>('lib/store/key-rows.js');
const { requireJsonContentType } = await load<typeof import('../lib/openai/headers.js')>('lib/openai/headers.js');
const { offlineContext } = await load<typeof import('../lib/offline-context.js')>('lib/offline-context.js');
const { decodeChatCompletion } = await load<typeof import('../lib/dialects/openai-chat/message.js')>('lib/dialects/openai-chat/message.js');
const { chatJsonEncode } = await load<typeof import('../lib/dialects/openai-chat/encode-json.js')>('lib/dialects/openai-chat/encode-json.js');
const { EncoderState } = await load<typeof import('../lib/encoder-input.js')>('lib/encoder-input.js');

const config = finalizeConfig(benchConfig({ upstreamUrl: 'http://127.0.0.1:9', storeFile: '/nonexistent', logLevel: 'warn' }), {});
const catalog = new Catalog(config);

interface Row {
  name: string;
  dialect: DialectName;
  rawHeaders: string[];
  body: Buffer;
  headers: (raw: string[]) => unknown;
}
const raw = (h: Record<string, string>, length: number): string[] => ['Host', '127.0.0.1', ...Object.entries(h).flat(), 'Content-Length', String(length)];
const row = (name: string, dialect: DialectName, spec: { headers: Record<string, string>; body: string | Buffer }): Row => {
  const body = Buffer.from(spec.body);
  const rawHeaders = raw(spec.headers, body.length);
  const headers = dialect === 'anthropic' ? (r: string[]) => validateMessagesHeaders(r, ['2023-06-01'], { requireContentType: true }) : (r: string[]) => requireJsonContentType(r);
  return { name, dialect, rawHeaders, body, headers };
};
const rows = [
  row('msg', 'anthropic', supportMessagesRequest(CLAUDE, true)),
  row('chat', 'openai-chat', supportChatRequest(GPT, true)),
  // the JSON row's body: its `"stream": false` is left out upstream, so its bytes are edited
  row('chat-json', 'openai-chat', supportChatRequest(GPT, false)),
  row('resp', 'openai-responses', supportResponsesRequest(GPT_RESPONSES, true)),
].filter((r) => args.only === undefined || args.only.split(',').includes(r.name));

function context(r: Row): RequestContext {
  const anthropic = r.dialect === 'anthropic' ? (r.headers(r.rawHeaders) as RequestContext['anthropic']) : null;
  return { ...offlineContext({ dialect: r.dialect }), config, services: { catalog } as unknown as RequestContext['services'], rawHeaders: r.rawHeaders, anthropic };
}

/** the steps, each a function of the previous step's output */
function steps(r: Row): [string, (x: unknown) => unknown][] {
  const ctx = context(r);
  const validator = (dialects[r.dialect] as { validate?: (body: unknown, ctx: RequestContext) => CanonicalRequest }).validate!;
  return [
    ['headers+key', () => (r.headers(r.rawHeaders), presentedKey(r.rawHeaders))],
    ['hash', (key) => hashKey(key as string)],
    ['parse', () => parseJsonBody(r.body)],
    ['validate', (body) => {
      const rb = body as RawBody;
      const req = validator(rb.value, ctx);
      if (rb.raw !== undefined && req.body === rb.value) req.raw = rb.raw;
      return req;
    }],
    ['route', (req) => routeRequest(req as CanonicalRequest, ctx)],
    ['encode', (routed) => encodeUpstreamRequest(routed as RoutedRequest, (routed as RoutedRequest).deployments[0]!)],
    ...(r.name === 'chat-json' ? [answerStep(r, ctx)] : []),
  ];
}

/** The JSON row's answer: decoded, its validated usage noted as the integrity stage notes it, written for the client. */
function answerStep(r: Row, ctx: RequestContext): [string, (x: unknown) => unknown] {
  const body = parseJsonBody(r.body);
  const req = (dialects[r.dialect] as { validate: (body: unknown, ctx: RequestContext) => CanonicalRequest }).validate(body.value, ctx);
  const routed = routeRequest(req, ctx);
  const answer = chatCompletionFor(r.body);
  return ['answer', () => {
    const events = decodeChatCompletion(answer);
    const input = new EncoderState(ctx.reqId, catalog, routed);
    const encoder = chatJsonEncode(input);
    for (const ev of events) {
      if (ev.type === 'message-delta') input.note({ note: 'usage', usage: { ...ev.usage } as Usage });
      encoder.step(ev, ctx);
    }
    return encoder.flush!(ctx);
  }];
}

for (const r of rows) {
  const list = steps(r);
  // the inputs of each step, made once (each step is timed alone on the same input)
  const inputs: unknown[] = [];
  let x: unknown = undefined;
  let encoded: unknown = undefined;
  for (const [name, f] of list) {
    inputs.push(x);
    x = f(x);
    if (name === 'encode') encoded = x;
  }
  const medians: string[] = [];
  let total = 0;
  for (let s = 0; s < list.length; s++) {
    const [name, f] = list[s]!;
    if (args.steps !== undefined && !args.steps.split(',').includes(name)) continue;
    const input = inputs[s];
    // each step reads its input and changes nothing in it (validate makes the request from the
    // parsed body, the encoders copy what they change), so one input serves every run
    const run = (): unknown => f(input);
    for (let i = 0; i < 2000; i++) run();
    const per: number[] = [];
    for (let k = 0; k < ROUNDS; k++) {
      const start = process.cpuUsage();
      for (let i = 0; i < N; i++) run();
      const used = process.cpuUsage(start);
      per.push((used.user + used.system) / N);
    }
    per.sort((a, b) => a - b);
    const m = per[per.length >> 1]!;
    total += m;
    medians.push(`${name} ${m.toFixed(2)}`);
  }
  // what the upstream gets: the client's very bytes when nothing needed an edit
  const upstream = (encoded as { body: string | Buffer }).body;
  const same = upstream === r.body;
  console.log(`${r.name} (${r.body.length} B): ${medians.join(', ')}; sum ${total.toFixed(1)} µs (CPU µs/request medians, ${ROUNDS}×${N}, ${dist})`);
  console.log(`${r.name} upstream body: ${Buffer.byteLength(upstream)} B, ${same ? "the client's bytes, not copied" : 'edited'}`);
}
