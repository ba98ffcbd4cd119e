// Faults after the 200 head and before any generated content: nothing of such an answer can have
// reached a gateway's client yet, so a gateway may still fail over to another deployment.
//
//   reset-head, stall-head   no byte of the body, then a reset / silence until the client leaves
//   reset-preamble           stream: the frames before the first content frame (message_start, the
//   stall-preamble           empty first block, ping; chat's role chunk; response.created ...), then
//   end-preamble             a reset / silence / a clean end; JSON: the first half of the body, then
//                            the same (a body cut mid-way)
//   malformed-first          stream: the first frame's JSON cut short; JSON: the body cut short
//   error-preamble           stream: the frames before the first content frame, then the protocol's
//                            in-band `error` (overloaded); JSON: a 200 whose body is that error
//   error-mid                stream: the first content frame, then the in-band error (content went
//                            out: too late to fail over); JSON: as error-preamble
import type { Frame, Out, Proto } from './io.js';
import { errorBody } from './io.js';
import { toJson } from './json.js';
import type { FaultKind } from './spec.js';

export const HEAD_FAULTS = [
  'reset-head', 'stall-head', 'reset-preamble', 'stall-preamble', 'end-preamble', 'malformed-first', 'error-preamble', 'error-mid',
] as const satisfies readonly FaultKind[];
export type HeadFault = (typeof HEAD_FAULTS)[number];

export function isHeadFault(kind: FaultKind | undefined): kind is HeadFault {
  return (HEAD_FAULTS as readonly string[]).includes(kind ?? '');
}

const OVERLOADED = 'Overloaded';

/** The protocol's in-band error event (what a provider sends after 200 when it gives up). */
function errorFrame(proto: Proto, sequence: number): Frame {
  if (proto === 'anthropic') return { event: 'error', data: { type: 'error', error: { type: 'overloaded_error', message: OVERLOADED } } };
  if (proto === 'responses') return { event: 'error', data: { type: 'error', sequence_number: sequence, code: 'server_error', message: OVERLOADED, param: null } };
  return { data: { error: { message: OVERLOADED, type: 'server_error', param: null, code: 'server_is_overloaded' } } };
}

/** What a stream under a head fault writes: `frames`, then a reset, silence, or (no `cut`) its end. */
export function headStreamPlan(kind: HeadFault, proto: Proto, frames: Frame[], firstContent: number): { frames: Frame[]; cut?: 'reset' | 'stall' } {
  const preamble = frames.slice(0, firstContent);
  switch (kind) {
    case 'reset-head':
      return { frames: [], cut: 'reset' };
    case 'stall-head':
      return { frames: [], cut: 'stall' };
    case 'reset-preamble':
      return { frames: preamble, cut: 'reset' };
    case 'stall-preamble':
      return { frames: preamble, cut: 'stall' };
    case 'end-preamble':
      return { frames: preamble };
    case 'malformed-first': {
      const [first, ...rest] = frames;
      return { frames: first === undefined ? [] : [{ event: first.event, text: toJson(first.data).slice(0, -3) }, ...rest] };
    }
    case 'error-preamble':
      return { frames: [...preamble, errorFrame(proto, preamble.length)] };
    case 'error-mid':
      return { frames: [...frames.slice(0, firstContent + 1), errorFrame(proto, firstContent + 1)] };
  }
}

/** A non-streaming answer (`text`, the whole JSON body) under a head fault. */
export async function deliverHeadJson(out: Out, kind: HeadFault, text: Buffer): Promise<void> {
  const half = text.subarray(0, Math.floor(text.length / 2));
  const head = { 'content-type': 'application/json', 'content-length': String(text.length) };
  switch (kind) {
    case 'malformed-first':
      out.send(200, text.subarray(0, text.length - 3), 'application/json');
      return;
    case 'error-preamble':
    case 'error-mid': {
      const anthropic = out.proto === 'anthropic';
      const body = errorBody(out.proto, 529, OVERLOADED, out.reqId, anthropic ? { type: 'overloaded_error' } : { type: 'server_error', code: 'server_is_overloaded' });
      out.json(200, body);
      return;
    }
    case 'end-preamble':
      // no content-length: the body ends cleanly, cut short
      if (!out.begin(200, { 'content-type': 'application/json' })) return;
      out.write(half);
      out.end();
      return;
    default:
      if (!out.begin(200, head)) return;
      if (kind === 'reset-preamble' || kind === 'stall-preamble') out.write(half);
      if (kind === 'reset-head' || kind === 'reset-preamble') await out.destroy();
      else await out.waitClose();
  }
}
