// Shared by the per-stage tests: run one stage as a library user does (runStage), keeping its
// values, its notes and its error apart; and feed a byte stream whole, one byte at a time and in
// seeded random chunks, checking every feeding gives what the whole input gave.
import { readFileSync, readdirSync } from 'node:fs';
import type { Test } from 'tap';
import { GatewayError } from '../../lib/errors.js';
import type { ChainNote } from '../../lib/notes.js';
import { runStage, type Stage, type Values } from '../../lib/stage.js';
import type { RequestContext } from '../../lib/context.js';
import { chunk, seedOf } from '../helpers/replay.js';
import { fixture } from '../helpers/paths.js';
import { makeContext, type ContextOptions } from '../helpers/context.js';
import type { CanonicalRequest, DialectName, JsonValue } from '../../lib/chunks.js';
import { dialectFor } from '../../lib/dialects/index.js';

export interface Run<O> {
  values: Values<O>[];
  notes: ChainNote[];
  /** what the stage threw (as a GatewayError, as the runners hand it on), or undefined */
  error: GatewayError | undefined;
}

/** One stage over `inputs` with runStage: its values and the notes it output, or the error it failed with. */
export async function run<I, O>(stage: Stage<I, O>, inputs: Iterable<I | ChainNote> | AsyncIterable<I | ChainNote>, ctx: RequestContext): Promise<Run<O>> {
  const notes: ChainNote[] = [];
  try {
    const values = await runStage(stage, inputs, ctx, (n) => notes.push(n));
    return { values, notes, error: undefined };
  } catch (err) {
    return { values: [], notes, error: GatewayError.from(err) };
  }
}

/** The error `run` ended with (throws when the stage did not fail, failing the test). */
export function failed<O>(got: Run<O>): GatewayError {
  if (got.error === undefined) throw new Error(`the stage should have failed; it output ${got.values.length} values`);
  return got.error;
}

export interface Feeding {
  /** 'whole', 'bytes' or 'random #seed' */
  how: string;
  chunks: Buffer[];
}

/** The byte stream whole, one byte at a time, and in three seeded random chunkings (seeded by `name`). */
export function feedings(bytes: Buffer, name: string): Feeding[] {
  const seed = seedOf(name);
  return [
    { how: 'whole', chunks: chunk(bytes, 'whole') },
    { how: 'bytes', chunks: chunk(bytes, 'bytes') },
    ...[seed, seed + 1, seed + 2].map((s) => ({ how: `random #${s}`, chunks: chunk(bytes, 'random', s) })),
  ];
}

/** What a result looks like when compared across feedings: errors by code, status and message. */
function comparable(value: unknown): unknown {
  if (value instanceof GatewayError) return { code: value.code, status: value.status, message: value.message };
  return value;
}

/**
 * `feed` over every feeding of `bytes`: each result must equal the whole input's (values, notes,
 * error code and wording). Returns the whole input's result for the test's own assertions.
 */
export async function sameForEveryFeeding<R>(t: Test, bytes: Buffer, name: string, feed: (chunks: Buffer[]) => Promise<R>): Promise<R> {
  const all = feedings(bytes, name);
  const whole = await feed(all[0]!.chunks);
  for (const f of all.slice(1)) {
    const got = await feed(f.chunks);
    t.same(normalize(got), normalize(whole), `${name}: fed ${f.how} (${f.chunks.length} chunks) gives what the whole input gives`);
  }
  return whole;
}

function normalize(result: unknown): unknown {
  if (result === null || typeof result !== 'object') return result;
  if (result instanceof GatewayError) return comparable(result);
  if (Array.isArray(result)) return result.map(normalize);
  if (Buffer.isBuffer(result)) return result.toString('base64');
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(result)) out[k] = k === 'error' && v !== undefined ? comparable(v) : normalize(v);
  return out;
}

/** The recorded upstream bodies of one fixture folder (fixtures/upstream/<dir>) with the given extension. */
export function recorded(dir: string, ext: '.sse' | '.json'): { name: string; bytes: Buffer }[] {
  return readdirSync(fixture('upstream', dir))
    .filter((f) => f.endsWith(ext) && !f.endsWith('.events.ndjson'))
    .sort()
    .map((f) => ({ name: `${dir}/${f}`, bytes: readFileSync(fixture('upstream', dir, f)) }));
}

/** The same items, one by one, from an async source (as a request body or an upstream arrives). */
export async function* source<T>(items: Iterable<T>): AsyncGenerator<T> {
  yield* items;
}

/** A context for `dialect` that passed the header hook (Messages clients: their validated `anthropic-*` headers). */
export function clientContext(dialect: DialectName, opts: ContextOptions = {}): RequestContext {
  const ctx = makeContext({ dialect, ...opts });
  return { ...ctx, anthropic: dialect === 'anthropic' ? { version: '2023-06-01', betas: [], sessionId: undefined, forward: {} } : null };
}

/** A client's JSON request body, validated as its dialect's endpoint does. */
export function clientRequest(ctx: RequestContext, body: JsonValue): CanonicalRequest {
  return dialectFor(ctx.dialect).validate!(body, ctx, undefined);
}
