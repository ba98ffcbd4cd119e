// The upstream model-name grammar of the simulated provider, and where its files live.
//
//   <behaviour>[;key=value]...
//   behaviour = "fixture:<path>" | "fault:<kind>" | anything else (the deterministic demo model)
//
// A bare option without "=" means "1" (e.g. `demo;redacted`; `<model>;cut-tool` cuts a tool
// call at the token limit, cut-tool.ts). A request header `x-sim-model` is
// read instead of the body's model when present (a fixture served under a real model name).
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export type Behaviour = 'fixture' | 'fault' | 'demo';

export interface SimSpec {
  /** The whole model string as requested (echoed back in responses). */
  model: string;
  behaviour: Behaviour;
  /** Fixture path or fault kind; the behaviour name itself for the demo model. */
  arg: string;
  opts: Map<string, string>;
}

export const FAULT_KINDS = [
  '429', '500', '502', '503', '529', '400', '401', 'slow', 'reset-before', 'reset-mid', 'stall-mid',
  'malformed-sse', 'wrong-model', 'duplicate-keys', 'non-finite', 'bad-index', 'no-stop', 'unclosed-block',
  // after the 200 head, before any content (see faults.ts HEAD_FAULTS): the gateway may still fail over
  'reset-head', 'stall-head', 'reset-preamble', 'stall-preamble', 'end-preamble', 'malformed-first', 'error-preamble', 'error-mid',
] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

export function isFaultKind(s: string): s is FaultKind {
  return (FAULT_KINDS as readonly string[]).includes(s);
}

export function parseSimModel(model: string): SimSpec {
  const [head = '', ...rest] = model.split(';');
  const opts = new Map<string, string>();
  for (const part of rest) {
    const p = part.trim();
    if (p === '') continue;
    const eq = p.indexOf('=');
    if (eq < 0) opts.set(p, '1');
    else opts.set(p.slice(0, eq).trim(), p.slice(eq + 1).trim());
  }
  const h = head.trim();
  if (h.startsWith('fixture:')) return { model, behaviour: 'fixture', arg: h.slice(8), opts };
  if (h.startsWith('fault:')) return { model, behaviour: 'fault', arg: h.slice(6), opts };
  return { model, behaviour: 'demo', arg: h, opts };
}

/** A non-negative integer option, or the default when absent or malformed. */
export function optInt(spec: SimSpec, key: string, dflt: number): number {
  const v = spec.opts.get(key);
  if (v === undefined) return dflt;
  const n = Number(v);
  return Number.isFinite(n) && n >= 0 ? Math.floor(n) : dflt;
}

export function optFlag(spec: SimSpec, key: string): boolean {
  const v = spec.opts.get(key);
  return v !== undefined && v !== '0' && v !== 'false';
}

/**
 * The project root: $GATEWAY_ROOT if set, else the nearest directory above this module holding a
 * package.json (works from lib/sim and dist/lib/sim), else the working directory.
 */
export function projectRoot(): string {
  const env = process.env.GATEWAY_ROOT;
  if (env) return env;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    const up = dirname(dir);
    if (up === dir) break;
    dir = up;
  }
  return process.cwd();
}

export function fixturesDir(): string {
  return join(projectRoot(), 'fixtures');
}

/** Per-server deterministic id counters: `next('msg')` -> 1, 2, 3... per prefix. */
export class Ids {
  private counters = new Map<string, number>();
  next(kind: string): number {
    const n = (this.counters.get(kind) ?? 0) + 1;
    this.counters.set(kind, n);
    return n;
  }
}

/** What a protocol's demo model gets besides the request body. */
export interface DemoCtx {
  spec: SimSpec;
  ids: Ids;
}
