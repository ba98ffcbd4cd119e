// parse-body: request bytes → RawBody. Counts bytes as they arrive and fails with 413 the moment the
// limit is passed (the rest is never buffered); at the end parses strict RFC JSON, naming the path
// of the first problem (duplicate key, NaN, trailing garbage, invalid UTF-8). The body's bytes are
// leased from the memory budget across bodies first (lib/body-budget.ts): past it, a retryable 503.
import type { RawBody } from '../lib/chunks.js';
import type { GatewayError } from '../lib/errors.js';
import { errors } from '../lib/errors/index.js';
import { checkedBody } from '../lib/json/checked-parse.js';
import { JsonSyntaxError } from '../lib/json/strict-parse.js';
import type { Stage, StageFactory } from '../lib/stage.js';
import { bodyBudget, type BodyBudget, type BodyLease } from '../lib/body-budget.js';

export function bodyTooLarge(limit: number): GatewayError {
  return errors.bodyTooLarge(limit);
}

/** Declared Content-Length over the limit: refuse before reading anything. */
export function checkDeclaredLength(header: string | undefined, limit: number): void {
  if (header !== undefined && /^\d+$/.test(header) && Number(header) > limit) throw bodyTooLarge(limit);
}

export function parseJsonBody(bytes: Buffer): RawBody {
  if (bytes.length === 0) {
    throw errors.bodyEmpty();
  }
  try {
    const body = checkedBody(bytes); // parseStrict's value, ranges and errors, faster; the ranges when first used
    return { value: body.value, bytes: bytes.length, raw: body };
  } catch (err) {
    if (err instanceof JsonSyntaxError) {
      throw errors.bodyNotJson(err);
    }
    throw err;
  }
}

/** what a client refused for lack of memory is told to wait, in seconds */
const BUDGET_RETRY_AFTER = 1;

/**
 * One request's body: a class instance, not an object literal with a closure per hook made per
 * request. Chunks are counted against the limit and (without a declared length) leased as they come.
 */
class ParseBodyStage implements Stage<Buffer, RawBody> {
  readonly name = 'parse-body';
  private readonly chunks: Buffer[] = [];
  private size = 0;

  constructor(
    private readonly limit: number,
    private readonly budget: BodyBudget,
    private readonly lease: BodyLease,
    /** no declared length: each chunk is leased as it comes */
    private readonly leaseChunks: boolean,
  ) {}

  step(chunk: Buffer): undefined {
    this.size += chunk.length;
    if (this.size > this.limit) throw bodyTooLarge(this.limit);
    if (this.leaseChunks && !this.lease.take(chunk.length)) throw budgetFull(this.budget);
    this.chunks.push(chunk);
    return undefined;
  }

  flush(): RawBody[] {
    const chunks = this.chunks;
    const body = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, this.size);
    // the stage lives as long as the request (a stream's too): it keeps no chunk once parsed
    chunks.length = 0;
    return [parseJsonBody(body)];
  }

  close(): void {
    this.lease.release();
  }
}

function budgetFull(budget: BodyBudget): GatewayError {
  return errors.bodyBudgetFull(budget.limit, BUDGET_RETRY_AFTER);
}

/**
 * `budget`: the memory bound across bodies (default the process's, lib/body-budget.ts). The body's
 * declared length is leased before anything is read, a chunked body's chunks as they arrive; the
 * lease is given back when the request ends.
 */
export function parseBody(opts: { limit: number; budget?: BodyBudget }): StageFactory<Buffer, RawBody> {
  return (ctx): Stage<Buffer, RawBody> => {
    const declared = ctx.headers['content-length'];
    const length = declared !== undefined && /^\d+$/.test(declared) ? Number(declared) : -1;
    if (length > opts.limit) throw bodyTooLarge(opts.limit);
    const budget = opts.budget ?? bodyBudget;
    const lease = budget.lease();
    // node:http holds a body to its declared length; without one, each chunk is leased as it comes
    if (length >= 0 && !lease.take(length)) throw budgetFull(budget);
    return new ParseBodyStage(opts.limit, budget, lease, length < 0);
  };
}
