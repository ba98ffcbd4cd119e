// replay(bytes, options): a recorded upstream answer (SSE stream or JSON body, any dialect) run
// through the stages production uses — sse-decode → provider-decode → integrity → the client
// dialect's encoder — and what a client of that dialect would have received. Offline: no server,
// no configuration, no store; the context is lib/offline-context.ts's.
//
// The stages answer synchronously, so the run is one synchronous loop (no stream, no promise per
// chunk), and the encoders' clock (`created`, `created_at`) is pinned for that loop to `now`:
// two runs of one recording give the same bytes, whatever the chunking.
import type { CanonicalEvent, NativeFrame, UpstreamMessage } from '../chunks.js';
import type { RequestContext } from '../context.js';
import { jsonEncoders, renderError } from '../dialects/index.js';
import { GatewayError } from '../errors.js';
import { eventToJson, offlineContext } from '../offline-context.js';
import { EncoderState } from '../encoder-input.js';
import { isNote } from '../notes.js';
import type { Stage, StageOutput } from '../stage.js';
import { integrity } from '../../stages/integrity.js';
import { providerDecode } from '../../stages/provider-decode.js';
import { sseDecode } from '../../stages/sse-decode.js';
import { sseEncode } from '../../stages/sse-encode.js';
import { chunkBytes, type ChunkSize } from './chunking.js';
import { detectDialect, type ReplayDialect } from './detect.js';
import { bodyStart, sseEventOffsets } from './offsets.js';
import { servedRequest, type ServedFacts } from './served.js';

/** What to print: the client's SSE stream, each canonical event as NDJSON, or the non-streaming JSON answer. */
export type ReplayOutput = 'sse' | 'events' | 'json';

export interface ReplayOptions {
  /** the recording's dialect; default: detected from its frames (lib/replay/detect.ts) */
  from?: ReplayDialect;
  /** the client's dialect; default: `from` */
  to?: ReplayDialect;
  /** default 'sse' */
  output?: ReplayOutput;
  /** bytes per chunk fed to sse-decode, or 'random' (seeded sizes); default: the whole recording at once */
  chunks?: ChunkSize;
  /** seed of the 'random' chunking; default 1 */
  seed?: number;
  /** the model the client asked for (written into the answer); default: the upstream's */
  clientModel?: string;
  /** the gateway request id (ids derived from it, error envelopes); default 'req_replay' */
  requestId?: string;
  /** the clock the encoders stamp, in Unix seconds; default 0 */
  now?: number;
  /** the catalog model that served and its routing facts (a recording's meta); default: none, the upstream's model shows */
  served?: ServedFacts;
  /**
   * Re-encode every event from its canonical fields, as the gateway did before same-dialect frames
   * were written through (NativeFrame `through`): the reference the native path is compared with.
   */
  reencode?: boolean;
}

export interface ReplayFailure {
  error: GatewayError;
  /** byte offset in the recording of the upstream event being processed (its length: at the end) */
  offset: number;
  /** 0-based index of that upstream event, or null at the end of input */
  eventIndex: number | null;
  /** that event as it reads in the recording (shortened), or "end of input" */
  event: string;
  /** the rule broken: the error's message */
  rule: string;
}

export interface ReplayResult {
  from: ReplayDialect;
  to: ReplayDialect;
  /** the HTTP status the client would get (200, or the error envelope's once nothing was sent) */
  status: number;
  /** what the client would receive (for 'events': NDJSON lines) */
  text: string;
  /** the canonical events that passed the integrity check */
  events: CanonicalEvent[];
  failure: ReplayFailure | null;
}

/** A replay that cannot start: empty recording, unknown dialect, bad option. Not a failure of the recording. */
export class ReplayInputError extends Error {
  override name = 'ReplayInputError';
}

const EVENT_PREVIEW = 300;

function preview(msg: UpstreamMessage): string {
  const text = msg.kind === 'json' ? msg.body : `${msg.event !== undefined ? `event: ${msg.event}\n` : ''}data: ${msg.data}`;
  return text.length > EVENT_PREVIEW ? `${text.slice(0, EVENT_PREVIEW)}…` : text;
}

/** The first byte that is not valid UTF-8: re-encoding the decoded text diverges exactly there. */
function firstInvalidUtf8(bytes: Buffer): number | undefined {
  const again = Buffer.from(bytes.toString('utf8'), 'utf8');
  for (let i = 0; i < bytes.length; i++) if (bytes[i] !== again[i]) return i;
  return undefined;
}

type AnyStage = Stage<never, unknown>;

function items(out: StageOutput<unknown>, stage: AnyStage): Iterable<unknown> {
  if (out == null) return [];
  if (Symbol.asyncIterator in out) throw new Error(`replay: stage ${stage.name} answered asynchronously`);
  return out;
}

function encoderFor(opts: ReplayOptions, to: ReplayDialect, input: EncoderState): Stage<CanonicalEvent, string> {
  const output = opts.output ?? 'sse';
  if (output === 'events') return { name: 'ndjson', step: (ev) => [JSON.stringify(eventToJson(ev)) + '\n'] };
  if (output === 'sse') return sseEncode({ dialect: to, clientModel: opts.clientModel }, input);
  const factory = jsonEncoders[to];
  if (factory === undefined) throw new ReplayInputError(`no JSON encoder for the ${to} dialect`);
  return factory(input, { clientModel: opts.clientModel });
}

/**
 * Takes the `through` mark and the whole `answer` off every native frame, and gives each event a copy
 * of its own: the encoder then re-encodes each event (a whole answer goes through only when every
 * event came from its one frame: lib/dialects/{openai-chat,openai-responses,anthropic}/through-json.ts).
 */
const reencodeAll: Stage<CanonicalEvent, CanonicalEvent> = {
  name: 'reencode',
  step: (ev) => [ev.native === undefined ? ev : { ...ev, native: withoutThrough(ev.native) }],
};

/**
 * A plain copy of a frame with no `through` and no `answer`, member by member: a decoder's frame may
 * be a class whose `parsed` (and a Responses delta's `kept`) is a getter on its prototype, which a
 * spread would leave out.
 */
function withoutThrough(n: NativeFrame): NativeFrame {
  return { dialect: n.dialect, event: n.event, data: n.data, parsed: n.parsed, modelSpan: n.modelSpan, usageSpan: n.usageSpan, kept: n.kept };
}

/** Run `fn` with Date.now() fixed: the encoders read the clock once per answer. */
function atTime<T>(seconds: number, fn: () => T): T {
  const real = Date.now;
  Date.now = () => seconds * 1000;
  try {
    return fn();
  } finally {
    Date.now = real;
  }
}

export function replay(bytes: Buffer, opts: ReplayOptions = {}): ReplayResult {
  if (bytes.length === 0) throw new ReplayInputError('the recording is empty');
  const from = opts.from ?? detectDialect(bytes);
  if (from === undefined) throw new ReplayInputError('cannot tell the dialect of the recording from its frames; give --from');
  const to = opts.to ?? from;
  const output = opts.output ?? 'sse';
  const chunks = chunkBytes(bytes, opts.chunks, opts.seed ?? 1);
  const ctx: RequestContext = offlineContext({ dialect: to, reqId: opts.requestId ?? 'req_replay' });
  // what the encoders read: the served facts of a recording, and the usage integrity validates
  const served = opts.served !== undefined ? servedRequest(opts.served, { dialect: to, model: opts.clientModel, stream: output !== 'json' }) : undefined;
  const input = new EncoderState(ctx.reqId, served?.catalog, served?.routed ?? null);
  const encoder = encoderFor(opts, to, input);
  const events: CanonicalEvent[] = [];
  const capture: Stage<CanonicalEvent, CanonicalEvent> = { name: 'capture', step: (ev) => (events.push(ev), [ev]) };
  const decode = sseDecode() as AnyStage;
  const after = [providerDecode({ dialect: () => from }), integrity(), capture, ...(opts.reencode === true ? [reencodeAll] : []), encoder] as AnyStage[];
  const text: string[] = [];
  let messages = 0;
  let current: UpstreamMessage | undefined;

  const down = (i: number, out: StageOutput<unknown>, stage: AnyStage): void => {
    for (const item of items(out, stage)) {
      if (isNote(item)) input.note(item);
      else if (i === after.length) text.push(item as string);
      else down(i + 1, after[i]!.step(item as never, ctx), after[i]!);
    }
  };
  const fromDecode = (out: StageOutput<unknown>): void => {
    for (const msg of items(out, decode)) {
      current = msg as UpstreamMessage;
      messages++;
      down(1, after[0]!.step(msg as never, ctx), after[0]!);
    }
  };

  let failure: ReplayFailure | null = null;
  let ended = false;
  const status = atTime(opts.now ?? 0, (): number => {
    try {
      for (const piece of chunks) {
        current = undefined;
        fromDecode(decode.step(piece as never, ctx));
      }
      current = undefined;
      fromDecode(decode.flush?.(ctx));
      ended = true;
      for (let i = 0; i < after.length; i++) down(i + 1, after[i]!.flush?.(ctx), after[i]!);
    } catch (err) {
      const error = GatewayError.from(err);
      if (error.code === 'GW_ERR_INTERNAL' && !GatewayError.is(err)) throw err; // a bug, not the recording
      failure = locate(bytes, error, current, ended ? null : current === undefined ? messages : messages - 1);
      // after the first byte the client gets the dialect's in-band error frame, before it an error envelope
      const sent = text.length > 0 && output !== 'json';
      if (sent && output === 'sse') for (const frame of encoder.fail?.(error, ctx) ?? []) text.push(frame);
      if (!sent && output !== 'events') {
        const rendered = renderError(to, error, ctx.reqId);
        text.length = 0;
        text.push(rendered.body);
        return rendered.status;
      }
    }
    return 200;
  });
  return { from, to, status, text: text.join(''), events, failure };

  function locate(all: Buffer, error: GatewayError, msg: UpstreamMessage | undefined, index: number | null): ReplayFailure {
    const rule = error.message;
    if (index === null) return { error, offset: all.length, eventIndex: null, event: 'end of input', rule };
    if (msg?.kind === 'json' || (msg === undefined && all[bodyStart(all)] === 0x7b && !/SSE/.test(rule))) {
      return { error, offset: bodyStart(all), eventIndex: 0, event: msg ? preview(msg) : 'the JSON body', rule };
    }
    const bad = /not valid UTF-8/.test(rule) ? firstInvalidUtf8(all) : undefined;
    const offsets = sseEventOffsets(all);
    const offset = bad ?? offsets[index] ?? all.length;
    return { error, offset, eventIndex: index, event: msg ? preview(msg) : `event ${index} (not yet complete)`, rule };
  }
}
