// `npm run bench -- --profile`: instead of the table, each chosen HTTP scenario against a gateway of
// its own started under --cpu-prof; after warm-up and one measured phase the gateway stops, its
// profile goes to `<out>/profiles/<scenario>.cpuprofile` and a summary of where the time went (start-up,
// warm-up and shutdown left out) to `<scenario>.txt` and standard output.
import { mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Timing } from './http-phases.js';
import { answerProblem, probe, runLoad } from './load.js';
import type { Proc } from './procs.js';
import { formatSummary, summariseFile } from './profile-summary.js';
import type { BenchEnv, HttpScenario, Target } from './scenario.js';

export interface ProfileRunOptions {
  env: BenchEnv;
  scenarios: HttpScenario[];
  /** the results folder: profiles go to its `profiles/` */
  outDir: string;
  timing: Timing;
  /** starts a gateway named `name` whose CPU profile is written into `profileDir` */
  startGateway(name: string, profileDir: string): Promise<Proc>;
  /** stops a gateway `startGateway` started */
  stopGateway(p: Proc): Promise<void>;
  log(line: string): void;
}

export async function profileRun(o: ProfileRunOptions): Promise<void> {
  const { env, timing } = o;
  const profDir = join(o.outDir, 'profiles');
  mkdirSync(profDir, { recursive: true });
  for (const sc of o.scenarios) {
    const before = new Set(readdirSync(profDir));
    const spawnedAt = performance.now();
    const gw = await o.startGateway(`profile-${sc.name}`, profDir);
    const t: Target = { name: 'gateway', url: gw.url, pid: gw.pid, cpu: env.gateway.cpu };
    const spec = sc.request(env);
    const problem = answerProblem(await probe(t.url, spec), sc.stream);
    if (problem) o.log(`profile ${sc.name}: requests fail (${problem}); profiling anyway`);
    const connections = sc.connections ?? env.connections;
    await runLoad(t.url, spec, { connections, seconds: timing.warm });
    // the summary leaves out start-up and warm-up
    const skipMs = performance.now() - spawnedAt;
    const load = await runLoad(t.url, spec, { connections, seconds: timing.seconds });
    // and shutdown (the store's closing checkpoint), which the row's CPU per request does not hold
    const stoppedAt = performance.now();
    await o.stopGateway(gw);
    const tailMs = performance.now() - stoppedAt;
    const file = readdirSync(profDir).find((f) => !before.has(f) && f.endsWith('.cpuprofile'));
    if (!file) {
      o.log(`profile ${sc.name}: no .cpuprofile written`);
      continue;
    }
    const target = join(profDir, `${sc.name}.cpuprofile`);
    rmSync(target, { force: true });
    renameSync(join(profDir, file), target);
    const text = formatSummary(summariseFile(target, 30, skipMs, tailMs), `${sc.name}: ${Math.round(load.rps)} req/s under --cpu-prof (${load.ok} requests; start-up, warm-up and shutdown left out)`);
    writeFileSync(join(profDir, `${sc.name}.txt`), `${text}\n`);
    process.stdout.write(`${text}\n\n`);
  }
  o.log(`profiles and summaries in ${profDir}`);
}
