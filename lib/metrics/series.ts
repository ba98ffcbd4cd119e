// The three kinds of Prometheus series the gateway keeps, each a family of cells by label values.
// A cell is created the first time its label values are seen and then reused: recording is a map
// lookup by one label key and an addition (a histogram: a walk over its fixed buckets), nothing
// else per request. Label values must come from bounded sets (the caller maps anything else to one
// value); the text format is written only when /metrics is scraped (./exposition.ts).

/** The label values of a cell, in the family's label order. */
export type LabelValues = readonly string[];

/** separates label values in a map key: a character no label value carries */
const SEP = '\u0001';

function keyOf(values: LabelValues): string {
  return values.length === 1 ? values[0]! : values.join(SEP);
}

interface Family<C> {
  readonly name: string;
  readonly help: string;
  readonly labels: readonly string[];
  cells(): Iterable<[LabelValues, C]>;
}

abstract class CellFamily<C> implements Family<C> {
  private readonly byKey = new Map<string, { values: LabelValues; cell: C }>();

  constructor(
    readonly name: string,
    readonly help: string,
    readonly labels: readonly string[],
  ) {}

  protected abstract create(): C;

  /** The cell of these label values, created when first seen (callers may keep it: it is never replaced). */
  cell(values: LabelValues): C {
    const key = keyOf(values);
    let entry = this.byKey.get(key);
    if (entry === undefined) {
      entry = { values: [...values], cell: this.create() };
      this.byKey.set(key, entry);
    }
    return entry.cell;
  }

  *cells(): Iterable<[LabelValues, C]> {
    for (const { values, cell } of this.byKey.values()) yield [values, cell];
  }
}

/** A monotonic counter per label values. `scale` divides the stored integer when written (cost units → USD). */
export class Counter extends CellFamily<{ value: number }> {
  readonly type = 'counter';

  constructor(name: string, help: string, labels: readonly string[], readonly scale = 1) {
    super(name, help, labels);
  }

  protected create(): { value: number } {
    return { value: 0 };
  }

  inc(values: LabelValues, by = 1): void {
    if (by > 0) this.cell(values).value += by;
  }
}

export interface HistogramCell {
  /** per bucket (not yet cumulative): observations at or below its bound and above the one before */
  readonly counts: number[];
  sum: number;
  count: number;
}

/** A histogram with fixed upper bounds (seconds), the same for every label values. */
export class Histogram extends CellFamily<HistogramCell> {
  readonly type = 'histogram';

  constructor(name: string, help: string, labels: readonly string[], readonly bounds: readonly number[]) {
    super(name, help, labels);
  }

  protected create(): HistogramCell {
    // one more slot: above the last bound (only in +Inf)
    return { counts: new Array<number>(this.bounds.length + 1).fill(0), sum: 0, count: 0 };
  }

  observe(values: LabelValues, v: number): void {
    this.observeIn(this.cell(values), v);
  }

  /** `observe` on a cell the caller kept (one of this family's). */
  observeIn(cell: HistogramCell, v: number): void {
    const bounds = this.bounds;
    let i = 0;
    while (i < bounds.length && v > bounds[i]!) i++;
    cell.counts[i]!++;
    cell.sum += v;
    cell.count++;
  }
}

/** A value read when scraped (the ledger's open reservations). */
export class Gauge {
  readonly type = 'gauge';
  readonly labels: readonly string[] = [];

  constructor(
    readonly name: string,
    readonly help: string,
    readonly read: () => number,
  ) {}
}

export type Series = Counter | Histogram | Gauge;
