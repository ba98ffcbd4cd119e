// Scenario: the added latency of the web search loop itself (decisions §11), excluding the backend's
// and the model's time: bench/search-loop-run.js times a request with `web_search` (two rounds, one
// search), the same request without it, one model round and one search call, all against simulated
// upstreams answering at once; the loop's own share is the first minus the other three.
import { fileURLToPath } from 'node:url';
import { runScript } from './procs.js';
import type { CustomScenario, Row } from './scenario.js';

const script = fileURLToPath(new URL('./search-loop-run.js', import.meta.url));

export const scenario: CustomScenario = {
  kind: 'custom',
  name: 'search-loop',
  title: 'Web search loop: added latency (sim model and backend answering at once)',
  async run(env) {
    const n = env.quick ? 50 : 300;
    const r = await runScript(script, [String(n)], env.gateway.cpu, 300_000);
    const figures = new Map<string, [number, number]>();
    for (const line of r.stdout.split('\n')) {
      const m = /^(\S+) p50 (-?[\d.]+) p99 (-?[\d.]+)/.exec(line.trim());
      if (m) figures.set(m[1]!, [Number(m[2]), Number(m[3])]);
    }
    const loop = figures.get('loop');
    if (loop === undefined) return [{ scenario: this.name, target: 'gateway', notes: [], skipped: `bench/search-loop-run.js failed (exit ${r.code}): ${(r.stderr || r.stdout).slice(-300)}` }];
    const ms = (k: string): string => figures.get(k)!.map((v) => v.toFixed(2)).join(' / ');
    const row: Row = {
      scenario: this.name,
      target: 'gateway',
      addP50: loop[0],
      addP99: loop[1],
      notes: [
        `p50 / p99 ms, ${n} sequential requests each: with web_search ${ms('with-search')}, without ${ms('without')}, one model round ${ms('model-round')}, one search call ${ms('search-call')}`,
        'add = with − without − model round − search call: offering the function, reading the calls, feeding the results back, the second dispatch',
      ],
      extra: Object.fromEntries(figures),
    };
    return [row];
  },
};
