import { pino } from 'pino';
import t from 'tap';
import { emptyUsage, type RoutedRequest, type Usage } from '../../lib/chunks.js';
import type { RequestContext } from '../../lib/context.js';
import { GatewayError } from '../../lib/errors.js';
import { costUnits, estimateUnits, priceOf, unitsToUsd } from '../../lib/pricing.js';
import { InProcessRateLimiter } from '../../lib/rate-limit.js';
import { costOfUsage } from '../../lib/billing/cost.js';
import type { ChainNote, Outcome, Upstream } from '../../lib/notes.js';
import { runStage, type Stage } from '../../lib/stage.js';
import type { Reservation } from '../../lib/store/types.js';
import { rateLimitHeaders, reserveCredits, type ReserveCreditsOptions } from '../../stages/reserve-credits.js';
import { settle } from '../../stages/settle.js';
import { makeContext, makeRouted, makeServices, testConfig, type ContextOptions } from '../helpers/context.js';

const OPUS = 'anthropic/claude-opus-5';
const SIM: Upstream = { id: 'sim', protocol: 'anthropic', api: 'messages', upstreamModel: 'claude-opus-5', stream: true, timing: { sentAt: Date.now() } };

/**
 * One request's reserve-credits → … → settle, as a chain runs them: what route, reserve-credits,
 * dispatch and integrity learn reaches settle as notes (`tell`); the runner closes settle with the
 * outcome the client saw. (These tests set ctx fields before the context became read-only.)
 */
class Run {
  readonly notes: ChainNote[] = [];
  readonly settle: Stage<number, number>;

  constructor(readonly ctx: RequestContext, audioSeconds?: number) {
    this.settle = settle<number>(audioSeconds === undefined ? {} : { audioSeconds: (s) => s })(ctx);
    if (audioSeconds !== undefined) this.settle.step(audioSeconds, ctx);
  }

  tell(note: ChainNote): void {
    this.notes.push(note);
    this.settle.note?.(note, this.ctx);
  }

  async reserve(routed: RoutedRequest, opts: ReserveCreditsOptions<RoutedRequest> = {}): Promise<RoutedRequest[]> {
    this.tell({ note: 'routed', routed });
    return runStage(reserveCredits(opts)(this.ctx), [routed], this.ctx, (n) => this.tell(n));
  }

  /** the hold reserve-credits handed on (its `reserved` note) */
  get reservation(): Reservation | null {
    const n = this.notes.find((x) => x.note === 'reserved');
    return n?.note === 'reserved' ? n.reservation : null;
  }

  /** the response headers reserve-credits contributed (its `headers` note) */
  get headers(): Record<string, string> {
    const out: Record<string, string> = {};
    for (const n of this.notes) if (n.note === 'headers') Object.assign(out, n.headers);
    return out;
  }

  async close(error?: GatewayError, outcome?: Outcome): Promise<void> {
    await this.settle.close!(this.ctx, error, outcome);
  }
}

async function reserve(ctx: RequestContext, routed: RoutedRequest): Promise<RoutedRequest[]> {
  return new Run(ctx).reserve(routed);
}

function captureLog(): { lines: Record<string, unknown>[]; log: ContextOptions['log'] } {
  const lines: Record<string, unknown>[] = [];
  return { lines, log: pino({ level: 'info' }, { write: (s: string) => void lines.push(JSON.parse(s) as Record<string, unknown>) }) };
}

function usage(u: Partial<Usage>): Usage {
  return { ...emptyUsage(), ...u };
}

t.test('reserve holds the estimate, passes the request through, sets the limit headers', async (t) => {
  const ctx = makeContext();
  const run = new Run(ctx);
  const routed = makeRouted(OPUS, { inputTokenBound: 2000, maxTokens: 1000 });
  const out = await run.reserve(routed);
  t.equal(out.length, 1);
  t.equal(out[0], routed, 'unchanged');
  const amount = estimateUnits(ctx.services.catalog.get(OPUS)!, routed);
  t.match(run.reservation, { requestId: ctx.reqId, keyId: 'key_acme', amount });
  t.equal(ctx.services.store.ledger.balanceOf('acme')!.reserved, amount);
  const h = run.headers;
  t.equal(h['anthropic-ratelimit-requests-limit'], '600');
  t.equal(h['anthropic-ratelimit-requests-remaining'], '599');
  t.match(h['anthropic-ratelimit-requests-reset'], /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
  t.equal(h['anthropic-ratelimit-tokens-limit'], '2000000');
  t.equal(h['anthropic-ratelimit-tokens-remaining'], String(2_000_000 - 3000));
  t.notOk('x-ratelimit-limit-requests' in h);
});

t.test('OpenAI-style dialects get x-ratelimit-* headers with durations', async (t) => {
  const run = new Run(makeContext({ dialect: 'openai-chat', endpoint: 'chat.completions' }));
  await run.reserve(makeRouted(OPUS, { maxTokens: 10 }));
  t.equal(run.headers['x-ratelimit-limit-requests'], '600');
  t.equal(run.headers['x-ratelimit-remaining-requests'], '599');
  t.equal(run.headers['x-ratelimit-reset-requests'], '1s');
  t.notOk('anthropic-ratelimit-requests-limit' in run.headers);
  const d = { limit: 5, remaining: 0, resetSeconds: 90, tokens: null, estimatedTokens: 0, retryAfterSeconds: 18 };
  t.same(rateLimitHeaders('openai-responses', d), { 'x-ratelimit-limit-requests': '5', 'x-ratelimit-remaining-requests': '0', 'x-ratelimit-reset-requests': '1m30s' });
  t.same(rateLimitHeaders('anthropic', d, Date.UTC(2026, 0, 1)), {
    'anthropic-ratelimit-requests-limit': '5',
    'anthropic-ratelimit-requests-remaining': '0',
    'anthropic-ratelimit-requests-reset': '2026-01-01T00:01:30Z',
  });
  t.same(rateLimitHeaders('anthropic', { ...d, limit: null, remaining: null, resetSeconds: null }), {}, 'unlimited key: no headers');
});

t.test('429 comes before any reservation, with retry-after and the dialect headers', async (t) => {
  const config = testConfig({
    keys: [{ id: 'key_slow', key: 'sk-test-slow-0004', org: 'acme', rateLimit: { rpm: 1 } }],
  });
  const services = makeServices(config);
  await reserve(makeContext({ config, services, key: 'sk-test-slow-0004' }), makeRouted(OPUS, { maxTokens: 10 }));
  const run = new Run(makeContext({ config, services, key: 'sk-test-slow-0004' }));
  const err = await run.reserve(makeRouted(OPUS, { maxTokens: 10 })).catch((e: unknown) => e);
  t.ok(GatewayError.is(err));
  const e = err as GatewayError;
  t.equal(e.code, 'GW_ERR_RATE_LIMITED');
  t.equal(e.status, 429);
  t.equal(e.headers['retry-after'], '60');
  t.equal(e.headers['anthropic-ratelimit-requests-remaining'], '0');
  t.equal(run.reservation, null);
  t.equal(services.store.ledger.openReservations(), 1, 'only the first request holds credits');
});

t.test('402 refusals: credits and spend caps; counted tokens are given back', async (t) => {
  const config = testConfig({
    keys: [
      { id: 'key_poor', key: 'sk-test-poor-0003', org: 'poor', rateLimit: { tpm: 100_000 } },
      { id: 'key_acme', key: 'sk-test-acme-0001', org: 'acme', project: 'web', environment: 'production', spendCap: 1 },
    ],
  });
  const services = makeServices(config, new InProcessRateLimiter({ now: () => 0 }));
  const poor = makeContext({ config, services, key: 'sk-test-poor-0003' });
  const poorRun = new Run(poor);
  const e1 = (await poorRun.reserve(makeRouted(OPUS, { inputTokenBound: 1000, maxTokens: 20_000 })).catch((e: unknown) => e)) as GatewayError;
  t.equal(e1.code, 'GW_ERR_CREDITS_INSUFFICIENT');
  t.equal(poorRun.reservation, null);
  t.ok('anthropic-ratelimit-tokens-limit' in poorRun.headers, 'the limit headers went out before the refusal');
  const next = await services.rateLimiter.admit(poor.key!, 0);
  t.equal(next.tokens?.remaining, 100_000, 'the refused request’s tokens were given back');
  const capped = makeContext({ config, services, key: 'sk-test-acme-0001' });
  const e2 = (await reserve(capped, makeRouted(OPUS, { inputTokenBound: 1000 })).catch((e: unknown) => e)) as GatewayError;
  t.equal(e2.code, 'GW_ERR_SPEND_CAP_EXCEEDED');
  t.equal(e2.param, 'key');
  t.match(e2.message, /key key_acme/);
});

t.test('success: settle charges exactly what the encoders report, writes the record and one log line', async (t) => {
  const { lines, log } = captureLog();
  const ctx = makeContext({ log });
  const run = new Run(ctx);
  const routed = makeRouted(OPUS, { model: 'opus', inputTokenBound: 5000, maxTokens: 2000, labels: { callName: 'summarize', endUserId: 'u-42' } });
  await run.reserve(routed);
  const held = run.reservation!;
  run.tell({ note: 'upstream', upstream: SIM });
  const used = usage({ input: 1200, output: 800, cacheRead: 3000, cacheWrite: 500, reasoning: 300 });
  run.tell({ note: 'usage', usage: used });
  const reported = costOfUsage(ctx.services.catalog, OPUS, used);
  t.equal(reported, costUnits(priceOf(ctx.services.catalog.get(OPUS)!), used));
  await run.close(undefined, { status: 200 });
  const ledger = ctx.services.store.ledger;
  t.same(ledger.balanceOf('acme'), { balance: 100_000_000_000 - reported, reserved: 0, spent: reported, spendCap: null });
  t.equal(ledger.openReservations(), 0, 'the hold is ended');
  const [row] = ledger.usageFor({ keyId: 'key_acme', limit: 5 });
  t.match(row, {
    requestId: ctx.reqId,
    keyId: 'key_acme',
    org: 'acme',
    project: 'web',
    environment: 'production',
    endpoint: 'messages',
    modelRequested: 'opus',
    modelServed: OPUS,
    provider: 'sim',
    inputTokens: 1200,
    outputTokens: 800,
    cacheReadTokens: 3000,
    cacheWriteTokens: 500,
    reasoningTokens: 300,
    webSearches: 0,
    audioSeconds: null,
    cost: reported,
    callName: 'summarize',
    endUserId: 'u-42',
    status: 200,
    errorCode: null,
  });
  t.ok(row!.latencyMs >= 0);
  t.equal(lines.length, 1, 'one summary line');
  t.match(lines[0], {
    msg: 'request',
    level: 30,
    keyId: 'key_acme',
    model: OPUS,
    provider: 'sim',
    status: 200,
    usage: { input: 1200, output: 800, cacheRead: 3000, cacheWrite: 500 },
    costUsd: unitsToUsd(reported),
  });
  t.notMatch(JSON.stringify(lines), /sk-test/, 'never the key');
  // the token bucket now holds the actual count, not the estimate
  const tokens = (await ctx.services.rateLimiter.admit(ctx.key!, 0)).tokens!;
  t.ok(tokens.remaining >= 2_000_000 - 5500 - 1 && tokens.remaining <= 2_000_000);
  t.ok(held.amount >= reported);
  await run.close(undefined, { status: 200 });
  t.equal(ledger.balanceOf('acme')!.spent, reported, 'a second close charges nothing');
});

t.test('failure before provider work: released, recorded at cost 0', async (t) => {
  const ctx = makeContext();
  const run = new Run(ctx);
  await run.reserve(makeRouted(OPUS, { maxTokens: 100 }));
  const error = new GatewayError('GW_ERR_PROVIDER_UNAVAILABLE', 'all providers failed');
  await run.close(error, { status: 529, errorCode: 'GW_ERR_UPSTREAM_OVERLOADED' });
  const ledger = ctx.services.store.ledger;
  t.same(ledger.balanceOf('acme'), { balance: 100_000_000_000, reserved: 0, spent: 0, spendCap: null });
  t.match(ledger.usageFor({ limit: 1 })[0], { cost: 0, status: 529, errorCode: 'GW_ERR_UPSTREAM_OVERLOADED' });
  const ctx2 = makeContext({ services: ctx.services });
  const run2 = new Run(ctx2);
  await run2.reserve(makeRouted(OPUS, { maxTokens: 100 }));
  await run2.close(error);
  t.match(ledger.usageFor({ limit: 1 })[0], { requestId: ctx2.reqId, status: 503, errorCode: 'GW_ERR_PROVIDER_UNAVAILABLE' }, 'status from the error when no outcome');
});

t.test('Messages failure after provider work: the validated usage so far is charged', async (t) => {
  const ctx = makeContext();
  const run = new Run(ctx);
  await run.reserve(makeRouted(OPUS, { maxTokens: 1000 }));
  run.tell({ note: 'upstream', upstream: SIM });
  const used = usage({ input: 100, output: 40 });
  run.tell({ note: 'usage', usage: used });
  const cost = costOfUsage(ctx.services.catalog, OPUS, used);
  t.ok(cost > 0);
  await run.close(new GatewayError('GW_ERR_INTEGRITY', 'bad stream'));
  t.equal(ctx.services.store.ledger.balanceOf('acme')!.spent, cost);
  t.match(ctx.services.store.ledger.usageFor({ limit: 1 })[0], { cost, status: 502, errorCode: 'GW_ERR_INTEGRITY' });
});

t.test('other endpoints: a failed request costs nothing even after provider work', async (t) => {
  const ctx = makeContext({ endpoint: 'chat.completions', dialect: 'openai-chat' });
  const run = new Run(ctx);
  await run.reserve(makeRouted(OPUS, { maxTokens: 1000 }));
  run.tell({ note: 'upstream', upstream: SIM });
  run.tell({ note: 'usage', usage: usage({ input: 100, output: 40 }) });
  await run.close(new GatewayError('GW_ERR_STREAM_IDLE', 'idle'));
  t.same(ctx.services.store.ledger.balanceOf('acme'), { balance: 100_000_000_000, reserved: 0, spent: 0, spendCap: null });
});

t.test('no reservation: only the summary line', async (t) => {
  const { lines, log } = captureLog();
  const ctx = makeContext({ log, key: null });
  await new Run(ctx).close(new GatewayError('GW_ERR_AUTH_INVALID', 'bad key'));
  t.equal(ctx.services.store.ledger.usageFor({ limit: 10 }).length, 0);
  t.equal(lines.length, 1);
  t.match(lines[0], { msg: 'request', status: 401, errorCode: 'GW_ERR_AUTH_INVALID', costUsd: 0 });
});

t.test('settle is a passthrough', async (t) => {
  const ctx = makeContext();
  t.same(await runStage(settle<string>()(ctx), ['a', 'b'], ctx), ['a', 'b']);
});

t.test('per-minute audio is reserved and charged through the options', async (t) => {
  const config = testConfig({
    providers: [{ id: 'oa', protocol: 'openai', simulated: true }],
    models: [{ id: 'openai/whisper-1', deployments: [{ provider: 'oa', model: 'whisper-1', api: 'transcriptions' }], pricing: { perMinute: 0.006 }, input: ['audio'] }],
    keys: [{ id: 'key_a', key: 'sk-test-audio-0005', org: 'acme' }],
  });
  const ctx = makeContext({ config, key: 'sk-test-audio-0005', endpoint: 'audio.transcriptions', dialect: 'openai-transcriptions' });
  const routed = makeRouted('openai/whisper-1', { inputTokenBound: 0, maxTokens: 1 });
  // settle hears the billed seconds from the item passing through it (a transcription result's `billedSeconds`)
  const run = new Run(ctx, 90);
  await run.reserve(routed, { audioSecondsBound: () => 120 });
  t.equal(run.reservation!.amount, 12_000_000);
  run.tell({ note: 'usage', usage: emptyUsage() });
  t.equal(costOfUsage(ctx.services.catalog, 'openai/whisper-1', emptyUsage(), 90), 9_000_000);
  await run.close();
  t.equal(ctx.services.store.ledger.balanceOf('acme')!.spent, 9_000_000);
  t.match(ctx.services.store.ledger.usageFor({ limit: 1 })[0], { audioSeconds: 90, cost: 9_000_000 });
});
