// The search loop's own latency (decisions §11), run by bench/search-loop.ts as its own process: a
// gateway (bin/gateway, a child process) in front of the simulated provider and the simulated search
// backend (both in this process, answering at once). Sequential requests, p50 and p99 of: a Responses
// request with `web_search` (two model rounds and one search), the same request without it (one
// round), and the two things the loop adds that are not the loop (one more model round and one
// search call, each timed directly). Prints one line per figure for the scenario to parse.
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startSimProvider } from '../lib/sim/server.js';
import { startSimSearch } from '../lib/sim/search-server.js';
import { freePort } from './procs.js';

const KEY = 'sk-bench-search-0000';
const GATEWAY = fileURLToPath(new URL('../bin/gateway.js', import.meta.url));
const n = Number(process.argv[2] ?? 200);

function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
}

async function timed(times: number, call: () => Promise<Response>): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < times; i++) {
    const t0 = performance.now();
    const res = await call();
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`HTTP ${res.status}`);
    out.push(performance.now() - t0);
  }
  return out;
}

const sim = await startSimProvider({ host: '127.0.0.1', port: 0 });
const search = await startSimSearch();
const dir = mkdtempSync(join(tmpdir(), 'bench-search-'));
const config = {
  store: `sqlite:${join(dir, 'gw.db')}`,
  logLevel: 'warn',
  providers: [{ id: 'sim', protocol: 'openai', baseUrl: `${sim.url}/v1`, apiKey: 'bench' }],
  models: [{ id: 'bench/search', deployments: [{ provider: 'sim', model: 'gpt-5', api: 'chat' }], pricing: { input: 1, output: 1 }, maxOutputTokens: 1000 }],
  webSearch: { backends: [{ type: 'brave', baseUrl: search.url, apiKey: 'bench' }] },
  orgs: [{ id: 'bench', credits: 1_000_000 }],
  keys: [{ id: 'bench', key: KEY, org: 'bench' }],
};
writeFileSync(join(dir, 'config.json'), JSON.stringify(config));
const port = await freePort();
const gw = spawn(process.execPath, [GATEWAY, '--config', join(dir, 'config.json'), '--port', String(port)], { cwd: dir, stdio: ['ignore', 'ignore', 'ignore'] });
const url = `http://127.0.0.1:${port}`;
for (let i = 0; ; i++) {
  const up = await fetch(`${url}/api/hello`, { method: 'HEAD' }).then((r) => r.status === 204, () => false);
  if (up) break;
  if (i > 300 || gw.exitCode !== null) throw new Error('the gateway did not start');
  await new Promise((r) => setTimeout(r, 50));
}

const headers = { 'content-type': 'application/json', authorization: `Bearer ${KEY}` };
const ask = (tools: boolean) => (): Promise<Response> =>
  fetch(`${url}/v1/responses`, { method: 'POST', headers, body: JSON.stringify({ model: 'bench/search', input: 'bench query', max_output_tokens: 200, ...(tools ? { tools: [{ type: 'web_search' }] } : {}) }) });
const modelRound = (): Promise<Response> =>
  fetch(`${sim.url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer bench' }, body: JSON.stringify({ model: 'gpt-5', messages: [{ role: 'user', content: 'bench query' }], max_completion_tokens: 200 }) });
const searchCall = (): Promise<Response> => fetch(`${search.url}/res/v1/web/search?q=bench+query&count=5`, { headers: { 'x-subscription-token': 'bench' } });

try {
  const warm = Math.max(20, Math.floor(n / 5));
  for (const f of [ask(true), ask(false), modelRound, searchCall]) await timed(warm, f);
  const withSearch = await timed(n, ask(true));
  const without = await timed(n, ask(false));
  const model = await timed(n, modelRound);
  const backend = await timed(n, searchCall);
  for (const [name, xs] of [['with-search', withSearch], ['without', without], ['model-round', model], ['search-call', backend]] as const) {
    console.log(`${name} p50 ${pct(xs, 50).toFixed(3)} p99 ${pct(xs, 99).toFixed(3)} n ${xs.length}`);
  }
  const loop = (p: number): number => pct(withSearch, p) - pct(without, p) - pct(model, p) - pct(backend, p);
  console.log(`loop p50 ${loop(50).toFixed(3)} p99 ${loop(99).toFixed(3)} n ${n}`);
} finally {
  gw.kill('SIGTERM');
  await sim.close();
  await search.close();
}
