// A diagnostic: what the stream chain itself costs per stream, in one process, without sockets,
// the store or the load generator: a bench-shaped upstream stream (50 deltas) run through the
// stages a generation chain runs after dispatch (sse-decode, provider-decode, integrity, the search
// loop, settle, the SSE encoder) by the fused runner, as the server runs them. It prints the CPU
// time per stream and, with --garbage, the bytes allocated per stream by function (V8's sampling
// heap profiler, garbage included). It loads the stages from --dist (default: this build), so two
// builds are compared by running it once from each, alternately:
//   node dist/bench/chain-cost.js [--dist DIR] [--dialect anthropic|openai-chat|openai-responses] [--instructions BYTES] [--tools N] [--chunks bench|frames] [--streams 1000] [--rounds 6] [--garbage]
// openai-responses answers the bench's Responses request (the support conversation) as the bench
// upstream does (its Response echoes `instructions: null`); with --instructions BYTES the request's
// instructions are an agent-sized text of about that many bytes (Codex sends about 12,500), which
// the upstream echoes in created, in_progress and completed as OpenAI does; --tools N adds N function
// tools to the request, echoed likewise.
// The socket A/B (ab.js) cannot see a change of a few µs on a loaded machine; CPU time here moves
// less, and counted instructions not at all: under valgrind, two runs with different --streams
// give the instructions per stream as the difference of their totals over the difference of streams
//   valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null node dist/bench/chain-cost.js --streams 600
import { Session } from 'node:inspector/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import type { CanonicalEvent, DialectName, JsonObject, RoutedRequest } from '../lib/chunks.js';
import type { RequestContext } from '../lib/context.js';
import type { ChainNote, Upstream } from '../lib/notes.js';
import type { Stage } from '../lib/stage.js';
import { GPT_RESPONSES, supportResponsesRequest } from './bodies.js';

const { values: args } = parseArgs({
  options: {
    dist: { type: 'string', default: join(dirname(fileURLToPath(import.meta.url)), '..') },
    dialect: { type: 'string', default: 'anthropic' },
    instructions: { type: 'string', default: '0' },
    tools: { type: 'string', default: '0' },
    chunks: { type: 'string', default: 'bench' },
    streams: { type: 'string', default: '1000' },
    rounds: { type: 'string', default: '6' },
    garbage: { type: 'boolean', default: false },
  },
});
const dialect = args.dialect as DialectName;
if (dialect !== 'anthropic' && dialect !== 'openai-chat' && dialect !== 'openai-responses') throw new Error('--dialect is anthropic, openai-chat or openai-responses');
const STREAMS = Number(args.streams);
const ROUNDS = Number(args.rounds);
const MODEL = 'bench-model';
const DELTAS = 50;

const sse = (event: string | null, data: unknown): string => `${event !== null ? `event: ${event}\n` : ''}data: ${JSON.stringify(data)}\n\n`;
const texts = Array.from({ length: DELTAS }, (_, i) => `tok${i} xxx`);

/** Codex-like instructions of about `bytes`: markdown lines with quotes, backticks and a tab (escapes in JSON) */
function agentInstructions(bytes: number): string {
  const line = (i: number): string => `- Rule ${i}: when the user says "fix it", read the file first; run \`npm test\` before you answer.\tNever guess a path.\n`;
  let out = 'You are a coding agent running in a terminal.\n\n## Rules\n';
  for (let i = 0; out.length < bytes; i++) out += line(i);
  return out;
}
const request = JSON.parse(supportResponsesRequest(GPT_RESPONSES, true).body as string) as Record<string, unknown>;
const echoed = Number(args.instructions) > 0 ? agentInstructions(Number(args.instructions)) : null;
if (echoed !== null) request.instructions = echoed;
/** --tools N: N function tools in the request (Codex sends about ten), echoed by the upstream */
const tools = Array.from({ length: Number(args.tools) }, (_, i) => ({
  type: 'function', name: `tool_${i}`, description: `Runs operation ${i}.\nUse it when the user asks for "op ${i}"; never otherwise.`, strict: false,
  parameters: { type: 'object', properties: { path: { type: 'string', description: 'Absolute path to the file' }, limit: { type: 'integer' } }, required: ['path'], additionalProperties: false },
}));
if (tools.length > 0) request.tools = tools;

/** the stream as the bench upstream writes it: the frames before the deltas, the deltas, the rest */
function frames(): [string, string[], string] {
  if (dialect === 'anthropic') {
    const usage = (output: number): object => ({ input_tokens: 250, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: output });
    return [
      sse('message_start', { type: 'message_start', message: { id: 'msg_1', type: 'message', role: 'assistant', model: MODEL, content: [], stop_reason: null, stop_sequence: null, usage: usage(1) } }) +
        sse('content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }) +
        sse('ping', { type: 'ping' }),
      texts.map((text) => sse('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } })),
      sse('content_block_stop', { type: 'content_block_stop', index: 0 }) +
        sse('message_delta', { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: usage(DELTAS) }) +
        sse('message_stop', { type: 'message_stop' }),
    ];
  }
  if (dialect === 'openai-responses') return responsesFrames();
  const chunk = (choices: unknown[], usage: unknown = null): string => sse(null, { id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1767225600, model: MODEL, service_tier: 'default', system_fingerprint: 'fp_bench', choices, usage });
  const choice = (delta: unknown, finish: string | null = null): unknown[] => [{ index: 0, delta, logprobs: null, finish_reason: finish }];
  return [
    chunk(choice({ role: 'assistant', content: '', refusal: null })),
    texts.map((content) => chunk(choice({ content }))),
    chunk(choice({}, 'stop')) + chunk([], { prompt_tokens: 250, completion_tokens: DELTAS, total_tokens: 250 + DELTAS }) + 'data: [DONE]\n\n',
  ];
}

/** as bench/upstream.ts writes a Responses stream, the instructions echoed when --instructions gives some */
function responsesFrames(): [string, string[], string] {
  const itemId = 'msg_bench_0001';
  const text = texts.join('');
  const usage = { input_tokens: 250, input_tokens_details: { cached_tokens: 0 }, output_tokens: DELTAS, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 250 + DELTAS };
  const item = { id: itemId, type: 'message', status: 'completed', content: [{ type: 'output_text', annotations: [], logprobs: [], text }], role: 'assistant' };
  const response = (status: string, output: unknown[], u: unknown): Record<string, unknown> => ({
    id: 'resp_bench_0001', object: 'response', created_at: 1_767_225_600, status, background: false, error: null, incomplete_details: null,
    instructions: echoed, max_output_tokens: null, model: MODEL, output, parallel_tool_calls: true, previous_response_id: null,
    reasoning: { effort: null, summary: null }, service_tier: 'default', store: false, temperature: 1,
    text: { format: { type: 'text' }, verbosity: 'medium' }, tool_choice: 'auto', tools, top_p: 1, truncation: 'disabled', usage: u, metadata: {},
  });
  let seq = 0;
  const ev = (type: string, fields: Record<string, unknown>): string => sse(type, { type, sequence_number: seq++, ...fields });
  const at = { item_id: itemId, output_index: 0, content_index: 0 };
  return [
    ev('response.created', { response: response('in_progress', [], null) }) +
      ev('response.in_progress', { response: response('in_progress', [], null) }) +
      ev('response.output_item.added', { output_index: 0, item: { ...item, status: 'in_progress', content: [] } }) +
      ev('response.content_part.added', { ...at, part: { type: 'output_text', annotations: [], logprobs: [], text: '' } }),
    texts.map((delta) => ev('response.output_text.delta', { ...at, delta, logprobs: [] })),
    ev('response.output_text.done', { ...at, text, logprobs: [] }) +
      ev('response.content_part.done', { ...at, part: { type: 'output_text', annotations: [], logprobs: [], text } }) +
      ev('response.output_item.done', { output_index: 0, item }) +
      ev('response.completed', { response: response('completed', [item], usage) }),
  ];
}

const [head, deltas, tail] = frames();
// bench: as bench/upstream.ts writes it (the head, then the deltas and the rest); frames: one chunk a frame
const chunks = (args.chunks === 'frames' ? [head, ...deltas, tail] : [head, deltas.join('') + tail]).map((s) => Buffer.from(s));
const api = dialect === 'anthropic' ? 'messages' : dialect === 'openai-chat' ? 'chat' : 'responses';
const upstream: Upstream = { id: 'bench', protocol: dialect === 'anthropic' ? 'anthropic' : 'openai', api, upstreamModel: MODEL, stream: true, timing: { sentAt: 0 } };

const dist = resolve(args.dist);
const load = async <T>(path: string): Promise<T> => (await import(pathToFileURL(join(dist, path)).href)) as T;
const { fuseStages } = await load<typeof import('../lib/fused-chain.js')>('lib/fused-chain.js');
const { offlineContext } = await load<typeof import('../lib/offline-context.js')>('lib/offline-context.js');
const { sseDecode } = await load<typeof import('../stages/sse-decode.js')>('stages/sse-decode.js');
const { providerDecode } = await load<typeof import('../stages/provider-decode.js')>('stages/provider-decode.js');
const { integrity } = await load<typeof import('../stages/integrity.js')>('stages/integrity.js');
const { searchLoop } = await load<typeof import('../stages/search-loop.js')>('stages/search-loop.js');
const { settle, completesAtMessageStop } = await load<typeof import('../stages/settle.js')>('stages/settle.js');
const { sseEncode } = await load<typeof import('../stages/sse-encode.js')>('stages/sse-encode.js');
const { dialects } = await load<typeof import('../lib/dialects/index.js')>('lib/dialects/index.js');

// offline: no store (settle holds no reservation, so it commits nothing) and no tracer
const endpoint = dialect === 'anthropic' ? 'messages' : dialect === 'openai-chat' ? 'chat.completions' : 'responses';
const ctx: RequestContext = { ...offlineContext({ dialect, endpoint }), services: {} as RequestContext['services'] };
/** route's note for a Responses client, whose encoder echoes the request (the other encoders need none) */
const routedNotes: ChainNote[] = [];
if (dialect === 'openai-responses') {
  const validated = dialects['openai-responses'].validate!(request as JsonObject);
  const routed: RoutedRequest = {
    request: validated, modelId: GPT_RESPONSES, deployments: [], routed: false, routingLatencyMs: null, maxTokens: 256,
    modelMaxOutputTokens: 4096, modelReasoning: false, maxTokensCappedTo: null, thinkingBudget: null,
  };
  routedNotes.push({ note: 'routed', routed });
}

/** dispatch's place: the `upstream` note, then the chunks */
const recorded: Stage<unknown, Buffer | ChainNote> = { name: 'dispatch', step: () => [...routedNotes, { note: 'upstream', upstream, checked: undefined }, ...chunks] };

async function* once(): AsyncGenerator<unknown> {
  yield 'go';
}

async function stream(): Promise<number> {
  const stages = [recorded, sseDecode(), providerDecode(), integrity(), searchLoop()(ctx), settle<CanonicalEvent>({ completes: completesAtMessageStop })(ctx), sseEncode()] as Stage<unknown, unknown>[];
  let bytes = 0;
  for await (const piece of fuseStages<string>(stages, ctx)(once())) bytes += piece.length;
  return bytes;
}

const bytes = await stream();
for (let i = 0; i < 200; i++) await stream(); // warm-up
const session = args.garbage ? new Session() : undefined;
if (session !== undefined) {
  session.connect();
  await session.post('HeapProfiler.enable');
  await session.post('HeapProfiler.startSampling', { samplingInterval: 256, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
}
const perStream: number[] = [];
for (let r = 0; r < ROUNDS; r++) {
  const start = process.cpuUsage();
  for (let i = 0; i < STREAMS; i++) await stream();
  const used = process.cpuUsage(start);
  perStream.push((used.user + used.system) / STREAMS);
}
perStream.sort((a, b) => a - b);
console.log(`${dialect}${echoed !== null ? ` (instructions ${echoed.length} chars)` : ''}${tools.length > 0 ? ` (${tools.length} tools)` : ''}, ${chunks.length} upstream chunks, ${bytes} bytes out: CPU µs/stream median ${perStream[perStream.length >> 1]!.toFixed(1)}, lowest ${perStream[0]!.toFixed(1)} (${ROUNDS} rounds of ${STREAMS} streams, ${dist})`);

interface SampleNode {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children: SampleNode[];
}

if (session !== undefined) {
  const { profile } = (await session.post('HeapProfiler.stopSampling')) as unknown as { profile: { head: SampleNode } };
  const byFunction = new Map<string, number>();
  let total = 0;
  const walk = (n: SampleNode): void => {
    const f = n.callFrame;
    const where = `${f.functionName || '(anonymous)'} ${f.url.replace(/^.*\/node_modules\//, 'npm:').replace(`file://${dist}/`, '')}:${f.lineNumber + 1}`;
    total += n.selfSize;
    if (n.selfSize > 0) byFunction.set(where, (byFunction.get(where) ?? 0) + n.selfSize);
    for (const c of n.children) walk(c);
  };
  walk(profile.head);
  const streams = ROUNDS * STREAMS;
  console.log(`allocated: ${(total / streams / 1024).toFixed(1)} KB per stream, garbage included (sampled), by function:`);
  for (const [where, size] of [...byFunction].sort((a, b) => b[1] - a[1]).slice(0, 20)) console.log(`${(size / streams).toFixed(0).padStart(8)} B  ${where}`);
}
