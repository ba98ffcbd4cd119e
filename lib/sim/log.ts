// The simulated provider's request log: what the gateway sent upstream, for tests to inspect
// (in process via `SimProvider.requests`, across processes via `GET /_sim/requests`).

export interface SimRequest {
  method: string;
  /** Path without the query string, e.g. `/v1/messages`. */
  path: string;
  /** Raw query string including `?`, or '' (e.g. `?beta=true`). */
  query: string;
  headers: Record<string, string | string[] | undefined>;
  /** Parsed JSON; for multipart `{fields, file: {filename, bytes, mimeType, field}}`; the raw text if not JSON. */
  body: unknown;
  /** Date.now() when the request body had been read. */
  at: number;
  /** set when the connection closed before the answer was complete (the caller went away, or a reset fault) */
  aborted?: boolean;
}

export class RequestLog {
  /** Live array: cleared and trimmed in place, so references stay valid. */
  readonly entries: SimRequest[] = [];

  constructor(private readonly limit = 1000) {}

  add(r: SimRequest): void {
    this.entries.push(r);
    if (this.entries.length > this.limit) this.entries.splice(0, this.entries.length - this.limit);
  }

  clear(): number {
    const n = this.entries.length;
    this.entries.length = 0;
    return n;
  }
}
