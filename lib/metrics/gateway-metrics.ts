// The gateway's Prometheus series (decisions §12), fed from what a request already learned when it
// ends (the request log's facts: lib/request-log.ts), from the failover loop, and, when scraped,
// from the ledger. One instance per process (lib/services.ts): a SIGHUP reload keeps it, so the
// counters never go back. Label values come from bounded sets: endpoint names, catalog model ids
// (anything else is `unknown`, no model at all `none`), HTTP statuses, configured org and provider
// ids, four token kinds.
import type { Catalog } from '../catalog.js';
import type { RequestContext } from '../context.js';
import { upstreamMs, type ChainFacts } from '../request-log.js';
import { UNITS_PER_USD } from '../store/types.js';
import { exposition } from './exposition.js';
import { Counter, Gauge, Histogram, type HistogramCell, type Series } from './series.js';

/** a request's total time and its upstream time: from a fast JSON answer to a long agent stream */
const DURATION_BOUNDS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300];
/** the gateway's own time: well under a second unless something is wrong */
const OVERHEAD_BOUNDS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1];
const TTFT_BOUNDS = [0.05, 0.1, 0.25, 0.5, 1, 2, 4, 8, 15, 30, 60];

/** a request that names no catalog model (a helper route, a request refused before routing) */
export const NO_MODEL = 'none';
/** a model id the catalog does not hold */
export const UNKNOWN_MODEL = 'unknown';

/** A counter's cell, kept by the caller. */
interface CounterCell {
  value: number;
}

const TOKEN_KINDS = ['input', 'output', 'cache_read', 'cache_write'] as const;

/**
 * The cells of one (endpoint, model), found once and kept: a request then costs one map lookup by a
 * joined key instead of a label array and a joined key per series. Each cell is still created only
 * when first recorded, so /metrics shows the same series as before.
 */
interface ModelCells {
  readonly labels: readonly [string, string];
  duration?: HistogramCell;
  upstream?: HistogramCell;
  overhead?: HistogramCell;
  ttft?: HistogramCell;
  readonly tokens: (CounterCell | undefined)[];
  /** by status code, and by organization: bounded sets */
  readonly requests: Map<number, CounterCell>;
  readonly cost: Map<string, CounterCell>;
}

export class GatewayMetrics {
  /** by endpoint, then model: two lookups by strings the process already holds (hashed once), no key joined per request */
  private readonly byModel = new Map<string, Map<string, ModelCells>>();
  private readonly requests = new Counter('gateway_requests_total', 'Requests answered, by endpoint, served model and the HTTP status the client saw.', ['endpoint', 'model', 'status']);
  private readonly duration = new Histogram('gateway_request_duration_seconds', 'Time from the request head to the end of its answer.', ['endpoint', 'model'], DURATION_BOUNDS);
  private readonly upstream = new Histogram(
    'gateway_upstream_duration_seconds',
    'Time the deployment that answered took, from the call to its last byte (requests served by a provider).',
    ['endpoint', 'model'],
    DURATION_BOUNDS,
  );
  private readonly overhead = new Histogram(
    'gateway_overhead_seconds',
    "The gateway's own time: request duration minus upstream duration, including failed-over attempts (requests served by a provider).",
    ['endpoint', 'model'],
    OVERHEAD_BOUNDS,
  );
  private readonly ttft = new Histogram('gateway_time_to_first_token_seconds', 'Streams: time from the request head to the first content from the provider.', ['endpoint', 'model'], TTFT_BOUNDS);
  private readonly tokens = new Counter('gateway_tokens_total', 'Validated tokens, by kind (input, output, cache_read, cache_write).', ['endpoint', 'model', 'kind']);
  private readonly cost = new Counter('gateway_cost_usd_total', 'USD charged, by organization and served model.', ['org', 'model'], UNITS_PER_USD);
  private readonly failovers = new Counter('gateway_failovers_total', 'Deployments that failed before their answer reached the client (the next one was tried, if any).', ['model', 'provider']);
  private readonly series: Series[];
  /** reads the ledger's open reservations when scraped (a query on PostgreSQL); set by the store's owner */
  private openReservations: () => number | Promise<number> = () => 0;
  /** the last figure `refresh` read, which the gauge shows */
  private openNow = 0;

  constructor() {
    const open = new Gauge('gateway_reservations_open', 'Credit reservations held by requests in flight (in this store).', () => this.openNow);
    this.series = [this.requests, this.duration, this.upstream, this.overhead, this.ttft, this.tokens, this.cost, this.failovers, open];
  }

  readReservationsWith(read: () => number | Promise<number>): void {
    this.openReservations = read;
  }

  /** Reads what is read from the store (the open reservations) before a scrape renders `text()`. */
  async refresh(): Promise<void> {
    this.openNow = await this.openReservations();
  }

  private cellsOf(endpoint: string, model: string): ModelCells {
    let models = this.byModel.get(endpoint);
    if (models === undefined) this.byModel.set(endpoint, (models = new Map()));
    let cells = models.get(model);
    if (cells === undefined) {
      cells = { labels: [endpoint, model], tokens: [undefined, undefined, undefined, undefined], requests: new Map(), cost: new Map() };
      models.set(model, cells);
    }
    return cells;
  }

  /** A request ended: its status as the client saw it, its charge (units) and what the chain learned. */
  requestEnded(ctx: RequestContext, status: number, costUnits: number, facts: ChainFacts): void {
    const now = Date.now();
    const model = modelLabel(ctx.services.catalog, facts.routed?.modelId);
    const cells = this.cellsOf(ctx.endpoint, model);
    const labels = cells.labels;
    let requests = cells.requests.get(status);
    if (requests === undefined) cells.requests.set(status, (requests = this.requests.cell([labels[0], labels[1], statusLabel(status)])));
    requests.value++;
    const seconds = (now - ctx.startedAt) / 1000;
    this.duration.observeIn((cells.duration ??= this.duration.cell(labels)), seconds);
    const provider = facts.upstream;
    if (provider !== null) {
      const up = upstreamMs(provider.timing, now)! / 1000;
      this.upstream.observeIn((cells.upstream ??= this.upstream.cell(labels)), up);
      this.overhead.observeIn((cells.overhead ??= this.overhead.cell(labels)), Math.max(0, seconds - up));
      const first = provider.timing.firstContentAt;
      if (provider.stream && first !== undefined) this.ttft.observeIn((cells.ttft ??= this.ttft.cell(labels)), (first - ctx.startedAt) / 1000);
    }
    const u = facts.usage;
    if (u !== null) {
      this.countTokens(cells, 0, u.input);
      this.countTokens(cells, 1, u.output);
      this.countTokens(cells, 2, u.cacheRead);
      this.countTokens(cells, 3, u.cacheWrite);
    }
    if (costUnits > 0 && ctx.key !== null) {
      const org = ctx.key.org;
      let cost = cells.cost.get(org);
      if (cost === undefined) cells.cost.set(org, (cost = this.cost.cell([org, model])));
      cost.value += costUnits;
    }
  }

  /** Counter.inc's rule: nothing counted (and no series shown) for zero. */
  private countTokens(cells: ModelCells, kind: number, by: number): void {
    if (!(by > 0)) return;
    const cell = (cells.tokens[kind] ??= this.tokens.cell([cells.labels[0], cells.labels[1], TOKEN_KINDS[kind]!]));
    cell.value += by;
  }

  /** A deployment of `modelId` at `provider` failed before its answer reached the client. */
  failedOver(catalog: Catalog, modelId: string, provider: string): void {
    this.failovers.inc([modelLabel(catalog, modelId), provider]);
  }

  /** The text format (lib/metrics/exposition.ts). */
  text(): string {
    return exposition(this.series);
  }
}

function modelLabel(catalog: Catalog, id: string | undefined): string {
  if (id === undefined) return NO_MODEL;
  return catalog.get(id) !== undefined ? id : UNKNOWN_MODEL;
}

/** the statuses the gateway answers with, as label values, without building a string per request */
const STATUS_LABELS: string[] = Array.from({ length: 600 }, (_, i) => String(i));

function statusLabel(status: number): string {
  return STATUS_LABELS[status] ?? 'other';
}
