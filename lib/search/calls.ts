// One round's search calls run (decisions §11): each call's arguments read, refused where they are
// unusable or over the request's search budget, the rest run in parallel against the backends
// (runner.ts: timeout, fallback), and every call turned into what the client sees (a WebSearchCall,
// billed exactly when a backend returned at least one usable source) and what the model gets back.
import type { WebSearchCall, WebSearchSource } from '../chunks.js';
import { MAX_QUERY_CHARS, resultText, type NoResults } from './feed.js';
import type { SearchCallRequest } from './round-merge.js';
import type { SearchOutcome, SearchRunner } from './runner.js';

/** A call of the round, done: the client's view and the model's tool result. */
export interface DoneCall {
  request: SearchCallRequest;
  call: WebSearchCall;
  result: string;
  isError: boolean;
}

type Read = { query: string; refused: NoResults | null };

function readCall(req: SearchCallRequest): Read {
  let args: unknown;
  try {
    args = JSON.parse(req.argsJson === '' ? '{}' : req.argsJson);
  } catch {
    return { query: '', refused: 'invalid_input' };
  }
  const query = typeof args === 'object' && args !== null ? (args as { query?: unknown }).query : undefined;
  if (typeof query !== 'string' || query.trim() === '') return { query: typeof query === 'string' ? query : '', refused: 'invalid_input' };
  if (Array.from(query).length > MAX_QUERY_CHARS) return { query, refused: 'query_too_long' };
  return { query: query.trim(), refused: null };
}

function whyNone(outcome: SearchOutcome): NoResults | null {
  if (outcome.kind === 'results') return null;
  if (outcome.kind === 'empty') return 'empty';
  return outcome.failure.kind === 'rate-limited' ? 'too_many_requests' : 'unavailable';
}

export interface RoundSearch {
  calls: readonly SearchCallRequest[];
  /** searches the request may still run */
  budget: number;
  /** the next round is the last: the results say so */
  lastRound: boolean;
  /** the gateway's id of the answer's n-th search */
  callId: (n: number) => string;
  /** searches of the answer before this round (numbers the ids) */
  before: number;
}

/** Run a round's calls; `ran` is how many reached a backend (they count against the budget). */
export async function runRound(runner: SearchRunner, round: RoundSearch, signal: AbortSignal): Promise<{ done: DoneCall[]; ran: number }> {
  const read = round.calls.map(readCall);
  let budget = round.budget;
  const toRun: number[] = [];
  for (const [i, r] of read.entries()) {
    if (r.refused !== null) continue;
    if (budget <= 0) r.refused = 'max_uses_exceeded';
    else {
      budget--;
      toRun.push(i);
    }
  }
  const outcomes = await runner.searchAll(toRun.map((i) => read[i]!.query), signal);
  const byCall = new Map(toRun.map((i, k) => [i, outcomes[k]!]));
  const done = round.calls.map((request, i): DoneCall => {
    const { query } = read[i]!;
    const outcome = byCall.get(i);
    const why = outcome !== undefined ? whyNone(outcome) : read[i]!.refused;
    const sources: WebSearchSource[] = outcome?.kind === 'results' ? outcome.results.map((r) => ({ ...r })) : [];
    const failed = why !== null && why !== 'empty';
    const call: WebSearchCall = {
      id: round.callId(round.before + i + 1),
      query,
      status: failed ? 'failed' : 'completed',
      sources,
      billed: sources.length > 0,
      ...(failed ? { errorCode: why as NonNullable<WebSearchCall["errorCode"]> } : {}),
    };
    return { request, call, result: resultText(query, sources, why, round.lastRound), isError: failed };
  });
  return { done, ran: toRun.length };
}
