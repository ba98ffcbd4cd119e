// The memory bound across request bodies: JSON endpoints hold a whole body in memory (parse-body,
// then the parsed value, then the upstream request built from it), so many large bodies at once
// could take the process's memory and starve every other request. Each request body takes a lease
// on one process-wide budget (`maxBufferedBodyBytes`): its declared `content-length` up front, a
// chunked body chunk by chunk as it arrives, given back when the request ends. A take that would
// pass the budget fails, and the request is refused with a retryable 503 before (the rest of) its
// body is read. Part of the budget is kept for small bodies (SMALL_BODY bytes or less), so a burst
// of large uploads cannot make small requests wait or fail: large bodies may fill only
// `capacity - reserve`.

/** a body of at most this many bytes is small: it may use the reserve */
export const SMALL_BODY = 1024 * 1024;

export class BodyBudget {
  /** bytes leased now */
  held = 0;
  private capacity: number;
  private reserve: number;

  constructor(capacity: number) {
    this.capacity = capacity;
    this.reserve = Math.floor(capacity / 8);
  }

  /** a new configuration's budget; leases already taken stay (they are given back as they end) */
  resize(capacity: number): void {
    this.capacity = capacity;
    this.reserve = Math.floor(capacity / 8);
  }

  get limit(): number {
    return this.capacity;
  }

  lease(): BodyLease {
    return new BodyLease(this);
  }

  /** whether `bytes` more fit for a lease that would then hold `total` bytes */
  fits(bytes: number, total: number): boolean {
    const room = total <= SMALL_BODY ? this.capacity : this.capacity - this.reserve;
    return this.held + bytes <= room;
  }
}

/** One request body's share of the budget. */
export class BodyLease {
  bytes = 0;
  constructor(private readonly budget: BodyBudget) {}

  /** take `bytes` more; false (nothing taken) when they would pass the budget */
  take(bytes: number): boolean {
    if (bytes <= 0) return true;
    if (!this.budget.fits(bytes, this.bytes + bytes)) return false;
    this.bytes += bytes;
    this.budget.held += bytes;
    return true;
  }

  /** give everything back (once; later calls do nothing) */
  release(): void {
    this.budget.held -= this.bytes;
    this.bytes = 0;
  }
}

/** the default of `maxBufferedBodyBytes` (lib/config.schema.json) */
export const DEFAULT_BUFFERED_BODY_BYTES = 128 * 1024 * 1024;

/**
 * The process's one budget: memory is the process's, whatever configuration each request runs
 * under, so every gateway in the process shares it (the server sizes it from its configuration,
 * and again on a reload).
 */
export const bodyBudget = new BodyBudget(DEFAULT_BUFFERED_BODY_BYTES);
