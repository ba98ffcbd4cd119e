// CanonicalEvent → the Responses wire, for Responses CLIENTS: the named SSE events of a streamed
// response (`ResponsesSseEncoder`) and the Response object of a non-streamed one
// (`responsesJsonEncode`). One writer (`ResponseWriter`, client-encode-writer.ts) keeps the output
// items for both; only canonical fields are read, so events from any upstream (Anthropic, Chat,
// Responses) encode the same way.
//
// - message-start → `response.created` (status in_progress, output [], usage null) and
//   `response.in_progress`.
// - each block → one output item (`message`, `function_call` / `custom_tool_call`, `reasoning`, or
//   the item a Responses upstream sent) with its events: client-encode-items.ts.
// - message-stop → `response.completed`, or `response.incomplete` (length → max_output_tokens,
//   content filter → content_filter) with the full response: usage (input_tokens counts cached
//   tokens too) and `gateway` with `cost` (USD, what settle charges). Usage is only on that event.
// - an error before any frame is thrown (the client gets a JSON error body); after it, and on
//   `fail`, `response.failed` with `error: {code, message}` ends the stream.
// A plain Response of a Responses upstream (every event from its one `response` body) keeps the
// upstream's message text bytes (through-json.ts), as the streamed answer's terminal event does.
import type { CanonicalEvent, JsonValue, NativeFrame } from '../../chunks.js';
import type { GatewayError } from '../../errors.js';
import type { EncoderInput } from '../../encoder-input.js';
import type { Stage } from '../../stage.js';
import type { JsonEncodeOptions, SseEncoderOptions } from '../dialect.js';
import { integrityError } from '../../json/upstream.js';
import { ResponseWriter } from './client-encode-writer.js';
import { throughItems } from './through-json.js';

export const RESPONSES_KEEPALIVE = ': keep-alive\n\n';

/** The streaming encoder (`sseEncoder` of the dialect, ./index.ts). */
export class ResponsesSseEncoder {
  readonly keepalive = RESPONSES_KEEPALIVE;
  private readonly writer: ResponseWriter;

  constructor(opts: SseEncoderOptions) {
    this.writer = new ResponseWriter(opts.input, opts.requestId, true);
  }

  encode(ev: CanonicalEvent): string {
    if (ev.type === 'ping') return this.writer.ended ? '' : RESPONSES_KEEPALIVE;
    this.writer.apply(ev);
    return this.writer.take();
  }

  fail(err: GatewayError): string {
    if (this.writer.ended) return '';
    this.writer.failed(err);
    return this.writer.take();
  }
}

/** The Responses body every event so far came from (one frame: the upstream's whole answer), or null. */
function sameAnswer(from: NativeFrame | null | undefined, ev: CanonicalEvent): NativeFrame | null {
  const native = ev.native;
  if (from === undefined) return native !== undefined && native.dialect === 'openai-responses' && native.event === 'response' ? native : null;
  return from === native ? from : null;
}

/** The non-streaming encoder (`jsonEncoder` of the dialect, ./index.ts). */
export function responsesJsonEncode(input: EncoderInput, _opts: JsonEncodeOptions = {}): Stage<CanonicalEvent, string> {
  let writer: ResponseWriter | undefined;
  /** the upstream Response every event came from; null once one came from elsewhere */
  let from: NativeFrame | null | undefined;
  return {
    name: 'openai-responses-json-encode',
    step(ev) {
      if (from !== null) from = sameAnswer(from, ev);
      (writer ??= new ResponseWriter(input, input.reqId, false)).apply(ev);
      return undefined;
    },
    flush() {
      const w = (writer ??= new ResponseWriter(input, input.reqId, false));
      if (!w.started) throw integrityError('the response has no message');
      if (!w.ended) throw integrityError('the response ended before it was complete');
      const response = w.final();
      const through = from == null ? null : throughItems(from, response.output as JsonValue[]);
      return [through === null ? JSON.stringify(response) : w.finalJson(response, through)];
    },
  };
}
