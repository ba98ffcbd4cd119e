// parse-body: request bytes → RawBody. Counts bytes as they arrive and fails with 413 the moment the
// limit is passed (the rest is never buffered); at the end parses strict RFC JSON, naming the path
// of the first problem (duplicate key, NaN, trailing garbage, invalid UTF-8).
import type { RawBody } from '../lib/chunks.js';
import type { GatewayError } from '../lib/errors.js';
import { errors } from '../lib/errors/index.js';
import { JsonSyntaxError, parseStrict } from '../lib/json/strict-parse.js';
import type { Stage, StageFactory } from '../lib/stage.js';

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
    const members = new Map<string, [number, number]>();
    const value = parseStrict(bytes, { topLevel: members });
    return { value, bytes: bytes.length, raw: { bytes, members } };
  } catch (err) {
    if (err instanceof JsonSyntaxError) {
      throw errors.bodyNotJson(err);
    }
    throw err;
  }
}

export function parseBody(opts: { limit: number }): StageFactory<Buffer, RawBody> {
  return (ctx): Stage<Buffer, RawBody> => {
    const chunks: Buffer[] = [];
    let size = 0;
    checkDeclaredLength(ctx.headers['content-length'], opts.limit);
    return {
      name: 'parse-body',
      step(chunk) {
        size += chunk.length;
        if (size > opts.limit) throw bodyTooLarge(opts.limit);
        chunks.push(chunk);
        return undefined;
      },
      flush() {
        return [parseJsonBody(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size))];
      },
    };
  };
}
