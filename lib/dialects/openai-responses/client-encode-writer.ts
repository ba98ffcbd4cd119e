// The state behind both Responses encoders (client-encode.ts): a `ResponseWriter`, one per response,
// writes the Response (in progress, completed / incomplete, failed: the object from
// client-encode-response.ts, the streamed events' text from per-stream runs), numbers the named SSE
// events and holds the output items (client-encode-items.ts). Only canonical fields are read, so
// events from any upstream encode the same way.
import { emptyUsage, type CanonicalEvent, type JsonObject, type JsonValue, type NativeFrame, type StopReason, type Usage } from '../../chunks.js';
import type { EncoderInput } from '../../encoder-input.js';
import type { GatewayError } from '../../errors.js';
import { openAiError } from '../../openai/errors.js';
import { mergeUsage } from '../../openai/client.js';
import { OutputItems } from './client-encode-items.js';
import { flat } from './flat-string.js';
import type { ResponsesFacts } from './client-validate.js';
import { baseId, factsFor } from './client-encode-facts.js';
import { echoedRuns, jsonOf, upstreamInstructionsJson, usageJson } from './client-encode-echo.js';
import { gatewayOf, responseObject, usageObject, type ResponseExtra } from './client-encode-response.js';

/** the streamed Response events from per-stream runs (eventJson); false: json(response()) for each, as tests compare */
export const responseEvents = { templates: true };

const DELTA_HEAD = 'event: response.output_text.delta\ndata: {"type":"response.output_text.delta","sequence_number":';

export class ResponseWriter {
  private readonly input: EncoderInput;
  private readonly facts: ResponsesFacts;
  private readonly streaming: boolean;
  readonly id: string;
  private readonly createdAt = Math.floor(Date.now() / 1000);
  private seq = 0;
  /** SSE frames written since the last `take` (one string: no array per event) */
  private frames = '';
  private upstreamModel = '';
  /** the request's runs of members as JSON text (json(), eventJson: built once a response) */
  private fixed: [string, string, string] | undefined;
  /** the instructions' JSON text as a Responses upstream's created frame wrote it, when reusable (client-encode-echo.ts) */
  private instructionsJson: string | undefined = undefined;
  private readonly items: OutputItems;
  private stop: StopReason | null = null;
  readonly seen: Usage = emptyUsage();
  started = false;
  ended = false;

  constructor(input: EncoderInput, requestId: string, streaming: boolean) {
    this.input = input;
    this.facts = factsFor(input);
    this.streaming = streaming;
    const base = baseId(requestId);
    this.id = `resp_${base}`;
    this.items = new OutputItems(this.facts, base, (type, fields) => this.ev(type, fields), streaming, (at, rest) => this.textDelta(at, rest));
  }

  /** SSE frames produced since the last call. */
  take(): string {
    const out = this.frames;
    this.frames = '';
    return out;
  }

  private ev(type: string, fields: JsonObject | string): void {
    if (!this.streaming) return;
    // a string: the members after the sequence number as JSON text, closing brace included; an object:
    // JSON.stringify({ type, sequence_number, ...fields }) without the spread (which costs more than the rest)
    if (typeof fields === 'string') return void (this.frames += `event: ${type}\ndata: {"type":"${type}","sequence_number":${this.seq++},${fields}\n\n`);
    const rest = JSON.stringify(fields);
    this.frames += `event: ${type}\ndata: {"type":"${type}","sequence_number":${this.seq++}${rest.length === 2 ? '}' : `,${rest.slice(1)}`}\n\n`;
  }

  /**
   * An output_text.delta event, the frame most of a stream is: ev(type, `${at}${rest}}`) written from
   * one constant head, in fewer pieces (`at`: its members after the sequence number up to the delta,
   * with their comma; `rest`: the delta and logprobs members)
   */
  private textDelta(at: string, rest: string): void {
    if (this.streaming) this.frames += `${DELTA_HEAD}${this.seq++},${at}${rest}}\n\n`;
  }

  private model(): string {
    return this.input.routed?.modelId ?? this.upstreamModel;
  }

  /** The Response object in `status` (client-encode-response.ts): no output items while in progress. */
  response(status: string, usage: JsonValue, extra?: ResponseExtra): JsonObject {
    const output = status === 'in_progress' ? [] : this.items.output.filter((o) => o !== undefined);
    return responseObject({ input: this.input, facts: this.facts, id: this.id, createdAt: this.createdAt, model: this.model() }, status, output, usage, extra);
  }

  usage(): JsonObject {
    return usageObject(this.input.usage ?? this.seen);
  }

  start(model: string, usage: Usage, native?: NativeFrame): void {
    if (this.started) return;
    this.started = true;
    this.upstreamModel = model;
    mergeUsage(this.seen, usage);
    if (!this.streaming) return;
    this.instructionsJson = upstreamInstructionsJson(native, this.input.routed?.request.body.instructions);
    // one Response, one serialisation for both events
    const r = flat(`"response":${responseEvents.templates ? this.eventJson('in_progress') : this.json(this.response('in_progress', null))}}`);
    this.ev('response.created', r);
    this.ev('response.in_progress', r);
  }

  finish(stop: StopReason | null, usage: Partial<Usage>): void {
    if (stop?.kind === 'length') this.items.cutCalls();
    this.stop = stop;
    mergeUsage(this.seen, usage);
  }

  /** why the response is incomplete (the stop's kind), or undefined: completed */
  private incompleteReason(): string | undefined {
    const kind = this.stop?.kind;
    return kind === 'length' ? 'max_output_tokens' : kind === 'content-filter' ? 'content_filter' : undefined;
  }

  /** The final Response object (completed or incomplete). */
  final(): JsonObject {
    const reason = this.incompleteReason();
    return reason === undefined
      ? this.response('completed', this.usage(), { gateway: true })
      : this.response('incomplete', this.usage(), { incomplete: { reason }, gateway: true });
  }

  end(): void {
    this.ended = true;
    if (!this.streaming) return;
    if (!responseEvents.templates) {
      const r = this.final();
      return this.ev(r.status === 'completed' ? 'response.completed' : 'response.incomplete', `"response":${this.json(r)}}`);
    }
    const reason = this.incompleteReason();
    this.ev(reason === undefined ? 'response.completed' : 'response.incomplete', `"response":${this.eventJson(reason === undefined ? 'completed' : 'incomplete', reason)}}`);
  }

  /**
   * json(response(status, …)) of a streamed created / in_progress, completed or incomplete event
   * (final()), written without the Response object: the request's runs built once a stream from its
   * body (echoedRuns), the head and status members as constants, the usage through a template of its
   * numbers. `reason`: an incomplete response's. The failed event and the JSON encoder keep the object.
   */
  private eventJson(status: 'in_progress' | 'completed' | 'incomplete', reason?: string): string {
    const fixed = this.runs();
    const head = `{"id":${jsonOf(this.id)},"object":"response","created_at":${this.createdAt}`;
    if (status === 'in_progress') {
      return `${head},"completed_at":null,"status":"in_progress","background":false,"error":null,"incomplete_details":null,${fixed[0]},"output":[],${fixed[1]},"usage":null,${fixed[2]}}`;
    }
    const state = status === 'completed'
      ? `,"completed_at":${Math.floor(Date.now() / 1000)},"status":"completed","background":false,"error":null,"incomplete_details":null`
      : `,"completed_at":null,"status":"incomplete","background":false,"error":null,"incomplete_details":{"reason":"${reason}"}`;
    const items = this.outputText(this.items.output.filter((o) => o !== undefined));
    const gateway = JSON.stringify(gatewayOf(this.input, true));
    return `${head}${state},${fixed[0]},"output":${items},${fixed[1]},"usage":${usageJson(this.input.usage ?? this.seen) ?? jsonOf(this.usage())},${fixed[2]},"gateway":${gateway}}`;
  }

  /**
   * JSON.stringify(r) of a Response (response()'s; eventJson writes the streamed events' same text
   * without the object), in its member order: the request's runs (runs(), once a response), the output
   * items whose done event kept upstream bytes as that event wrote them (OutputItems.outputJson), each
   * other value serialised on its own (jsonOf). A test holds the runs to response()'s members
   * (test/native/responses-final-frames.test.ts).
   */
  private json(r: JsonObject): string {
    const m = r as Record<string, JsonValue>;
    const fixed = this.runs();
    const head =
      `"id":${jsonOf(m.id)},"object":${jsonOf(m.object)},"created_at":${jsonOf(m.created_at)},"completed_at":${jsonOf(m.completed_at)}` +
      `,"status":${jsonOf(m.status)},"background":${jsonOf(m.background)},"error":${jsonOf(m.error)},"incomplete_details":${jsonOf(m.incomplete_details)}`;
    const items = this.outputText(r.output as JsonValue[]);
    const gateway = r.gateway === undefined ? '' : `,"gateway":${JSON.stringify(r.gateway)}`;
    return `{${head},${fixed[0]},"output":${items},${fixed[1]},"usage":${jsonOf(m.usage)},${fixed[2]}${gateway}}`;
  }

  /** the three runs of the request's members every Response of this stream writes (echoedRuns), built once */
  private runs(): [string, string, string] {
    return (this.fixed ??= echoedRuns(this.input.routed?.request.body ?? {}, this.model(), this.facts.effort, this.facts.summary, this.instructionsJson));
  }

  /** the Response's output items as JSON text, those whose done event kept upstream bytes written as that event wrote them */
  private outputText(output: JsonValue[]): string {
    const texts = this.items.outputJson;
    return texts.length === 0 ? JSON.stringify(output) : `[${output.map((o, i) => texts[this.outputAt(o, i)] ?? JSON.stringify(o)).join(',')}]`;
  }

  /**
   * The final Response `r` (final()) as JSON text, as its streamed event writes it, the items in
   * `through` written as their JSON text given there (the upstream's text bytes: through-json.ts).
   */
  finalJson(r: JsonObject, through: ReadonlyMap<JsonValue, string>): string {
    const all = this.items.output;
    for (const [item, json] of through) {
      const at = all.indexOf(item as JsonObject);
      if (at >= 0) this.items.outputJson[at] = json;
    }
    return this.json(r);
  }

  /** where item `o` (the `i`th of the Response's output) is among the writer's items */
  private outputAt(o: JsonValue, i: number): number {
    const all = this.items.output;
    return all[i] === o ? i : all.indexOf(o as JsonObject);
  }

  failed(err: GatewayError): void {
    this.ended = true;
    const { code, message } = openAiError(err);
    if (!this.started) this.start('', emptyUsage());
    this.ev('response.failed', { response: this.response('failed', null, { error: { code, message }, gateway: true }) });
  }

  /** Applies one event (SSE frames collect in the writer). */
  apply(ev: CanonicalEvent): void {
    if (this.ended) return;
    switch (ev.type) {
      case 'message-start':
        this.start(ev.model, ev.usage, ev.native);
        return;
      case 'block-start':
        this.items.openBlock(ev.index, ev.block, ev.native);
        return;
      case 'text-delta':
        this.items.text(ev.index, ev.text, ev.native);
        return;
      case 'thinking-delta':
        this.items.thinking(ev.index, ev.text);
        return;
      case 'signature-delta':
        this.items.signature(ev.index, ev.signature);
        return;
      case 'url-citation':
        this.items.annotate(ev.index, ev.citation);
        return;
      case 'tool-input-delta':
        this.items.toolInput(ev.index, ev.json);
        return;
      case 'block-stop':
        this.items.closeBlock(ev.index, ev.native);
        return;
      case 'message-delta':
        this.finish(ev.stop, ev.usage);
        return;
      case 'message-stop':
        this.end();
        return;
      case 'error':
        if (!this.streaming || this.seq === 0) throw ev.error; // nothing written: a JSON error body
        this.failed(ev.error);
        return;
      default:
        return; // citations, opaque deltas and events, pings (the SSE encoder writes the keep-alive)
    }
  }
}
