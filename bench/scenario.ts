// What a scenario is, and what the runner hands it. A scenario file exports `scenario`: either an
// HTTP request that the runner loads against the bare proxy and the gateway the same way, or a
// `run(env)` of its own (memory, store, uploads) that returns table rows.
import type { Proc } from './procs.js';

export interface HttpRequestSpec {
  path: string;
  headers: Record<string, string>;
  body: string | Buffer;
}

/** A system under test: the bare proxy or the gateway, pinned to `cpu`. */
export interface Target {
  name: 'bare' | 'gateway';
  url: string;
  pid: number;
  cpu: number | null;
}

export interface BenchEnv {
  quick: boolean;
  /** closed-loop connections of the throughput runs (16) */
  connections: number;
  /** seconds of one measured load phase */
  seconds: number;
  bare: Target;
  gateway: Target;
  upstream: Proc;
  /** the gateway key (full scopes, an org with plenty of credits) */
  key: string;
  /** scratch directory of this run (config, store, logs) */
  dir: string;
  /** processes whose CPU counts as ours in the noise measurement, with their CPU */
  ours(): { pid: number; cpu: number | null }[];
  /** a new gateway process with the same configuration and its own store (for memory scenarios) */
  freshGateway(name: string, opts?: { store?: string }): Promise<{ target: Target; stop(): Promise<void> }>;
  log(line: string): void;
}

export interface Row {
  scenario: string;
  target: string;
  rps?: number;
  p50?: number;
  p99?: number;
  /** paced run (fixed rate): absolute for the bare proxy, gateway minus bare for the gateway */
  pacedP50?: number;
  pacedP99?: number;
  addP50?: number;
  addP99?: number;
  /** saturated run: gateway p50/p99 minus the bare proxy's */
  satAddP50?: number;
  satAddP99?: number;
  /** whole-answer latency p50 at concurrency 1 (one request at a time), and gateway minus bare */
  serialP50?: number;
  addSerialP50?: number;
  /** gateway CPU µs per request ÷ the bare proxy's */
  cpuRatio?: number;
  ttft?: number;
  ttftP99?: number;
  addTtft?: number;
  cpuUsPerReq?: number;
  /** CPU use of the system under test during the throughput run, % of one core */
  cpuPct?: number;
  peakRssMB?: number;
  ratio?: number;
  /** other load per CPU during the run, % */
  noise?: string;
  notes: string[];
  skipped?: string;
  /** raw figures for the JSON report */
  extra?: Record<string, unknown>;
}

export interface HttpScenario {
  kind: 'http';
  name: string;
  title: string;
  stream: boolean;
  request(env: BenchEnv): HttpRequestSpec;
  /** one of the scenarios the targets are judged on (and profiled by default) */
  main?: boolean;
  /** closed-loop connections of this scenario's throughput phase (default: the runner's, 16) */
  connections?: number;
  /** a row issue #21 is judged on (geometric mean of ×bare, conc-1 latency, CPU, see table.ts) */
  judged?: boolean;
}

/** The same scenario at another concurrency, named `<name>@<connections>`. */
export function atConnections(sc: HttpScenario, connections: number): HttpScenario {
  return { ...sc, name: `${sc.name}@${connections}`, title: `${sc.title}, ${connections} connections`, connections };
}

export interface CustomScenario {
  kind: 'custom';
  name: string;
  title: string;
  run(env: BenchEnv): Promise<Row[]>;
}

export type Scenario = HttpScenario | CustomScenario;
