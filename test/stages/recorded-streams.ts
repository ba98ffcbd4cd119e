// Shared by the fused-runner tests (fused-runs, outputs-no-notes): the recorded upstream streams of a
// dialect, one byte of one changed at a seeded place, what a chain gave for one, and a stage as the
// runner sees one without `steps`.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RequestContext } from '../../lib/context.js';
import type { ChainNote } from '../../lib/notes.js';
import type { Stage } from '../../lib/stage.js';
import { prng } from '../helpers/replay.js';
import { FIXTURES, ROOT } from '../helpers/paths.js';

export type Upstreams = 'anthropic' | 'openai-chat' | 'openai-responses';

/** The recorded `.sse` streams of a dialect: the project's fixtures and ../shared's, by file name (the project's first; a different one of ../shared's as `shared/<name>`). */
export function recordedStreams(dialect: Upstreams): { name: string; bytes: Buffer }[] {
  const found = new Map<string, Buffer>();
  for (const dir of [join(FIXTURES, 'upstream', dialect), join(ROOT, '..', 'shared', 'fixtures', 'upstream', dialect)]) {
    if (!existsSync(dir)) continue;
    for (const f of readdirSync(dir).sort()) {
      if (!f.endsWith('.sse')) continue;
      const bytes = readFileSync(join(dir, f));
      if (!found.has(f)) found.set(f, bytes);
      else if (!found.get(f)!.equals(bytes)) found.set(`shared/${f}`, bytes);
    }
  }
  return [...found].map(([name, bytes]) => ({ name, bytes }));
}

/** one byte of the stream changed, at a seeded place, to a seeded byte of SSE or JSON punctuation */
export function mutated(bytes: Buffer, seed: number): Buffer {
  const random = prng(seed);
  const copy = Buffer.from(bytes);
  const chars = '{}[]":,\\\n \r0a';
  copy[Math.floor(random() * copy.length)] = chars.charCodeAt(Math.floor(random() * chars.length));
  return copy;
}

/** what a chain gave for one stream: its pieces, its notes (as text) and its failure */
export interface Outcome {
  pieces: string[];
  notes: string[];
  error: string | undefined;
}

/** A stage as the runner sees it without `steps` (nor a promise): every item through `step`, one at a time. */
export function oneByOne(stage: Stage<unknown, unknown>): Stage<unknown, unknown> {
  return {
    name: stage.name,
    step: (item, ctx) => stage.step(item, ctx),
    ...(stage.flush !== undefined ? { flush: (ctx: RequestContext) => stage.flush!(ctx) } : {}),
    ...(stage.note !== undefined ? { note: (n: ChainNote, ctx: RequestContext) => stage.note!(n, ctx) } : {}),
  };
}
