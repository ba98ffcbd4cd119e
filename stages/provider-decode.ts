// UpstreamMessage → CanonicalEvent with the upstream dialect's decoder (the registry, lib/dialects/index.ts).
// The dialect is resolved once, on the first message: by default from the provider that answered
// (dispatch's `upstream` note), or from the `dialect` option (offline replay, tests). A JSON answer
// was decoded already by dispatch's answer check, by the same decoder: its events come with the same
// note (`checked`, lib/providers/checked-answer.ts), not parsed a second time; so do the frames of a
// stream up to its first content frame, when sse-decode skipped them (its CHECKED_START message):
// their events come first, and the check's decoder, whose state follows them, reads the rest.
import type { CanonicalEvent, DialectName, UpstreamMessage } from '../lib/chunks.js';
import type { RequestContext } from '../lib/context.js';
import { upstreamDecoders, upstreamDialect, type UpstreamDecoder } from '../lib/dialects/index.js';
import { errors } from '../lib/errors/index.js';
import type { Upstream } from '../lib/notes.js';
import { CHECKED_START, type CheckedAnswer, type CheckedStart } from '../lib/providers/checked-answer.js';
import type { Stage } from '../lib/stage.js';

export interface ProviderDecodeOptions {
  /** the upstream wire dialect; default: derived from the `upstream` note */
  dialect?: (ctx: RequestContext, upstream: Upstream | null) => DialectName | undefined;
}

export function providerDecode(opts: ProviderDecodeOptions = {}): Stage<UpstreamMessage, CanonicalEvent> {
  let decoder: UpstreamDecoder | undefined;
  let upstream: Upstream | null = null;
  /** what the answer check decoded of the answer (the `upstream` note), until taken */
  let checked: CheckedAnswer | undefined;

  function resolve(ctx: RequestContext): UpstreamDecoder {
    const dialect = opts.dialect ? opts.dialect(ctx, upstream) : upstreamDialect(upstream);
    if (dialect === undefined) throw errors.noUpstreamDialect();
    const found = upstreamDecoders[dialect];
    if (found === undefined) throw errors.noUpstreamDecoder(dialect);
    return found();
  }

  function decode(msg: UpstreamMessage, ctx: RequestContext): CanonicalEvent[] {
    if (msg === CHECKED_START) {
      // first of all: sse-decode skipped the frames of the start the answer check decoded (the
      // same note's); the check's decoder goes on
      const start = checked as CheckedStart;
      checked = undefined;
      decoder = start.decoder;
      return start.events;
    }
    if (decoder === undefined) {
      decoder = resolve(ctx);
      // the first message is not CHECKED_START: sse-decode read the checked start itself
      if (checked !== undefined && checked.kind === 'start') checked = undefined;
    }
    if (msg.kind === 'sse') return decoder.sse(msg);
    const json = checked;
    checked = undefined;
    if (json !== undefined && json.kind === 'json' && opts.dialect === undefined && json.body === msg.body) return json.events;
    return decoder.json(msg.body);
  }

  return {
    name: 'provider-decode',
    // the decoders' events (canonical events have no `note`; unknown upstream fields go in an
    // opaque event's `data` or `delta`, never at its top), never a note
    outputsNoNotes: true,
    note(n) {
      if (n.note === 'upstream') {
        upstream = n.upstream;
        checked = n.checked;
      }
    },
    step: decode,
    steps(msgs, from, to, out, ctx) {
      // the frames of one upstream chunk: their events in one array, not one array a frame (a
      // decoder with `sseInto` pushes them there itself, once `decode` resolved it)
      for (let k = from; k < to; k++) {
        const msg = msgs[k]!;
        if (decoder?.sseInto !== undefined && msg !== CHECKED_START && msg.kind === 'sse') {
          decoder.sseInto(msg, out);
          continue;
        }
        const events = decode(msg, ctx);
        for (let j = 0; j < events.length; j++) out.push(events[j]);
      }
      return to;
    },
    flush() {
      return decoder?.end?.();
    },
  };
}
