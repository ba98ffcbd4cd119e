// search-loop: CanonicalEvent → CanonicalEvent, after integrity. Where search-offer offered the model
// the `web_search` function (its `search` note), this stage runs the loop of decisions §11: when a
// round ends with search calls (and no client tool call), it runs them in parallel against the
// backends (keep-alive pings while they run), shows a `web-search` block per call, feeds the results
// back in the client dialect's request (SearchTurns; each translator carries them to the upstream
// model as the tool results its dialect has), and streams the next round from a fresh
// dispatch → decode → integrity chain: a round that fails before its first byte fails over to the
// next deployment with the same request, so no search is run or billed twice. The client sees one
// answer (round-merge.ts) with the citation markers turned into citations (citations.ts), and its
// usage — each round's tokens, snippets included as the input they are, plus the billed searches —
// goes on as `usage` notes summed over the rounds, before the events that report it. Each further
// round is another upstream call: the key's tokens-per-minute limit counts it as it is sent (its input
// bound, the results fed included, and its output ceiling), as admission counted the first, never
// refusing it (the answer has begun); a `counted` note tells settle, which puts the tokens every round
// used in place of all the counts.
// Without a `search` note every event goes on untouched.
import type { CanonicalEvent, RoutedRequest, SearchPlan, StopReason, Usage, WebSearchSource } from '../lib/chunks.js';
import { emptyUsage } from '../lib/chunks.js';
import type { RequestContext } from '../lib/context.js';
import { dialectFor, searchTurns } from '../lib/dialects/index.js';
import type { CountedNote, FailedNote, SearchNote, UpstreamNote, UsageNote } from '../lib/notes.js';
import { tokenEstimate } from '../lib/pricing.js';
import { createCitationRewriter, type CitationRewriter } from '../lib/search/citations.js';
import { runRound, type DoneCall } from '../lib/search/calls.js';
import { SEARCH_FUNCTION } from '../lib/search/feed.js';
import { addUsage, RoundMerger, type RoundEnd } from '../lib/search/round-merge.js';
import { chain, type Stage, type StageFactory } from '../lib/stage.js';
import { dispatch } from './dispatch.js';
import { integrity } from './integrity.js';
import { providerDecode } from './provider-decode.js';
import { sseDecode } from './sse-decode.js';

export type SearchLoopOutput = CanonicalEvent | UsageNote | UpstreamNote | FailedNote | CountedNote;

type Offered = SearchNote['routed'];

/** Pings while `work` runs: one at once, then one every `everyMs`; `into.value` holds its result. */
async function* pinging<T>(work: Promise<T>, everyMs: number, into: { value?: T }): AsyncGenerator<CanonicalEvent> {
  yield { type: 'ping' };
  let timer: NodeJS.Timeout | undefined;
  const settled = work.then(
    (value) => ({ value }),
    (err: unknown) => ({ err }),
  );
  try {
    for (;;) {
      const tick = new Promise<null>((resolve) => {
        timer = setTimeout(() => resolve(null), everyMs);
      });
      const r = await Promise.race([settled, tick]);
      clearTimeout(timer);
      if (r === null) {
        yield { type: 'ping' };
        continue;
      }
      if ('err' in r) throw r.err;
      into.value = r.value;
      return;
    }
  } finally {
    clearTimeout(timer);
  }
}

class SearchLoop {
  private readonly merger = new RoundMerger(SEARCH_FUNCTION.name);
  private readonly rewriter: CitationRewriter;
  private readonly sources = new Map<string, WebSearchSource>();
  /** the usage of the rounds that ended, and the billed searches */
  private total: Usage = emptyUsage();
  private searches = 0;
  private round = 1;
  /** calls of the answer so far, run or refused (numbers their ids) */
  private searchesShown = 0;
  private routed: Offered;

  constructor(
    offered: Offered,
    private readonly ctx: RequestContext,
  ) {
    this.routed = offered;
    this.rewriter = createCitationRewriter({ source: (id) => this.sources.get(id), style: searchTurns[ctx.dialect]?.citationStyle ?? 'spans' });
  }

  private get plan(): SearchPlan {
    return this.routed.search;
  }

  private shown(events: readonly CanonicalEvent[]): CanonicalEvent[] {
    const out: CanonicalEvent[] = [];
    for (const ev of events) for (const e of this.rewriter.push(ev)) out.push(e);
    return out;
  }

  /** One event of the current round; a round's message-stop hands over to `after`. */
  push(ev: CanonicalEvent): Iterable<SearchLoopOutput> | AsyncIterable<SearchLoopOutput> {
    const out = this.shown(this.merger.push(ev));
    const ended = this.merger.ended;
    if (ended === null) return out;
    return this.after(out, ended);
  }

  private usageNote(extra: Usage): UsageNote {
    return { note: 'usage', usage: addUsage(this.total, extra) };
  }

  /** The rounds after the one that just ended, until the answer ends. */
  private async *after(first: CanonicalEvent[], ended: RoundEnd): AsyncGenerator<SearchLoopOutput> {
    yield* first;
    let end = ended;
    for (;;) {
      this.total = addUsage(this.total, end.usage);
      const searching = end.calls.length > 0 && !end.clientCalls;
      if (!searching || this.round >= this.plan.maxRounds) {
        yield* this.finish(end);
        return;
      }
      const done = yield* this.search(end);
      this.round++;
      const next = this.nextRequest(end, done);
      yield* this.countRound(next);
      const got = yield* this.nextRound(next);
      if (got === null) return; // the round ended in an error event: nothing follows it
      end = got;
    }
  }

  private *finish(end: RoundEnd): Generator<SearchLoopOutput> {
    // search calls left unanswered (the last round, or beside client calls) are not the client's
    const stop: StopReason | null = end.calls.length > 0 && !end.clientCalls && end.stop?.kind === 'tool-calls' ? { kind: 'end' } : end.stop;
    yield { note: 'usage', usage: { ...this.total } };
    yield* this.shown(this.merger.finish(stop, this.total));
    yield* this.rewriter.end();
  }

  private async *search(end: RoundEnd): AsyncGenerator<SearchLoopOutput, DoneCall[]> {
    const runner = this.ctx.services.search!;
    const into: { value?: Awaited<ReturnType<typeof runRound>> } = {};
    const work = runRound(runner, {
      calls: end.calls,
      budget: this.plan.maxSearches - this.searches,
      lastRound: this.round + 1 >= this.plan.maxRounds,
      callId: (n) => `wsc_${this.ctx.reqId.replace(/[^A-Za-z0-9]/g, '').slice(-16)}_${n}`,
      before: this.searchesShown,
    }, this.ctx.signal);
    for await (const ping of pinging(work, this.ctx.config.pingIntervalMs, into)) yield ping;
    const { done, ran } = into.value!;
    this.searches += ran;
    this.searchesShown += done.length;
    const billed = done.filter((d) => d.call.billed).length;
    this.total = addUsage(this.total, { ...emptyUsage(), webSearches: billed });
    for (const d of done) for (const s of d.call.sources) this.sources.set(s.id, s);
    if (this.ctx.logsDebug === true) this.ctx.log.debug({ round: this.round, searches: done.map((d) => ({ status: d.call.status, sources: d.call.sources.length, error: d.call.errorCode })) }, 'web search round');
    // the searches' charge is known before the client is shown them
    yield { note: 'usage', usage: { ...this.total } };
    for (const d of done) yield* this.shown(this.merger.searchBlock(d.call));
    return done;
  }

  private nextRequest(end: RoundEnd, done: readonly DoneCall[]): Offered {
    const req = this.routed.request;
    const turns = searchTurns[req.source]!;
    const body = turns.append(req.body, SEARCH_FUNCTION, {
      text: end.text,
      thinking: end.thinking,
      calls: done.map((d) => ({ id: d.request.id, argsJson: d.request.argsJson, result: d.result, isError: d.isError })),
    });
    const request = dialectFor(req.source).validate!(body, this.ctx, { countTokens: false });
    this.routed = { ...this.routed, request };
    return this.routed;
  }

  /** The key's tokens-per-minute limit counts the round about to be sent (taken as used: `record` with nothing estimated). */
  private *countRound(routed: RoutedRequest): Generator<CountedNote> {
    const { key, services } = this.ctx;
    const model = services.catalog.get(routed.modelId);
    if (key === null || key.rateLimit.tpm === null || model === undefined) return;
    const tokens = tokenEstimate(model, routed);
    services.rateLimiter.record(key, tokens, 0);
    yield { note: 'counted', tokens };
  }

  /** One more round, through its own dispatch (with failover), decode and integrity stages. */
  private async *nextRound(routed: RoutedRequest): AsyncGenerator<SearchLoopOutput, RoundEnd | null> {
    this.merger.beginRound();
    const ctx = this.ctx;
    const inner = chain(dispatch()(ctx), sseDecode(), providerDecode(), integrity());
    let failed = false;
    const take = function* (this: SearchLoop, item: unknown): Generator<SearchLoopOutput> {
      const it = item as CanonicalEvent | UsageNote | UpstreamNote | FailedNote | { note: 'headers' };
      if ('note' in it) {
        // the round's own usage is summed at its end; the client's headers went with the first round
        if (it.note === 'usage') yield this.usageNote(it.usage);
        else if (it.note === 'upstream' && it.upstream !== null) yield it;
        else if (it.note === 'failed') {
          failed = true;
          yield it;
        }
        return;
      }
      if (it.type === 'error') {
        failed = true;
        yield* this.rewriter.end();
        yield it;
        return;
      }
      yield* this.shown(this.merger.push(it));
    };
    try {
      for await (const item of inner.step(routed, ctx) as AsyncIterable<unknown>) yield* take.call(this, item);
      for await (const item of (inner.flush?.(ctx) ?? []) as AsyncIterable<unknown>) yield* take.call(this, item);
    } finally {
      await inner.close?.(ctx, undefined);
    }
    return failed ? null : this.merger.ended;
  }
}

export function searchLoop(): StageFactory<CanonicalEvent, SearchLoopOutput> {
  return (): Stage<CanonicalEvent, SearchLoopOutput> => {
    let offered: Offered | null = null;
    let loop: SearchLoop | null = null;
    return {
      name: 'search-loop',
      note(n) {
        if (n.note === 'search') offered = n.routed;
      },
      step(ev, ctx) {
        if (offered === null) return [ev];
        loop ??= new SearchLoop(offered, ctx);
        return loop.push(ev);
      },
      steps(evs, from, to, out) {
        // no search offered: the events go on as they are (else each goes to `step`)
        if (offered !== null) return from;
        for (let k = from; k < to; k++) out.push(evs[k]);
        return to;
      },
    };
  };
}
