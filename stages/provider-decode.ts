// UpstreamMessage → CanonicalEvent with the upstream dialect's decoder (the registry, lib/dialects/index.ts).
// The dialect is resolved once, on the first message: by default from the provider that answered
// (dispatch's `upstream` note), or from the `dialect` option (offline replay, tests). A JSON answer
// was decoded already by dispatch's answer check, by the same decoder: its events are taken from
// there (lib/providers/answer-check.ts `checkedAnswer`), not parsed a second time; so are the frames
// of a stream up to its first content frame, when sse-decode skipped them (its CHECKED_START message):
// their events come first, and the check's decoder, whose state follows them, reads the rest.
import type { CanonicalEvent, DialectName, UpstreamMessage } from '../lib/chunks.js';
import type { RequestContext } from '../lib/context.js';
import { upstreamDecoders, upstreamDialect, type UpstreamDecoder } from '../lib/dialects/index.js';
import { errors } from '../lib/errors/index.js';
import type { Upstream } from '../lib/notes.js';
import { CHECKED_START, checkedAnswer, takeSkippedStart } from '../lib/providers/answer-check.js';
import type { Stage } from '../lib/stage.js';

export interface ProviderDecodeOptions {
  /** the upstream wire dialect; default: derived from the `upstream` note */
  dialect?: (ctx: RequestContext, upstream: Upstream | null) => DialectName | undefined;
}

export function providerDecode(opts: ProviderDecodeOptions = {}): Stage<UpstreamMessage, CanonicalEvent> {
  let decoder: UpstreamDecoder | undefined;
  let upstream: Upstream | null = null;

  function resolve(ctx: RequestContext): UpstreamDecoder {
    const dialect = opts.dialect ? opts.dialect(ctx, upstream) : upstreamDialect(upstream);
    if (dialect === undefined) throw errors.noUpstreamDialect();
    const found = upstreamDecoders[dialect];
    if (found === undefined) throw errors.noUpstreamDecoder(dialect);
    return found();
  }

  return {
    name: 'provider-decode',
    note(n) {
      if (n.note === 'upstream') upstream = n.upstream;
    },
    step(msg, ctx) {
      if (msg === CHECKED_START) {
        // first of all: sse-decode skipped the frames the answer check decoded (and registered them
        // for this upstream before outputting the message); the check's decoder goes on
        const checked = takeSkippedStart(upstream!)!;
        decoder = checked.decoder;
        return checked.events;
      }
      decoder ??= resolve(ctx);
      if (msg.kind === 'sse') return decoder.sse(msg);
      const checked = upstream !== null && opts.dialect === undefined ? checkedAnswer(upstream, msg.body) : undefined;
      return checked ?? decoder.json(msg.body);
    },
    flush() {
      return decoder?.end?.();
    },
  };
}
