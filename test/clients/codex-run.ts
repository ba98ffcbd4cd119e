// Runs inside a loopback-only network namespace (started by codex.ts `runScenario`): starts
// bin/gateway on a free port with the simulated provider behind it, writes a CODEX_HOME that points
// Codex at it as a user would (config.toml with a custom Responses provider, GATEWAY_API_KEY, a
// model catalog entry), runs `codex exec` in an empty working directory, then writes what happened
// (and the files the run left there) to a JSON file and stops the gateway. Argument: JSON
// `{bin, out, model, prompt}`.
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startGateway, TEST_KEY, type RunningGateway } from '../helpers/gateway.js';
import { clientsConfig } from './config.js';
import { commandLine, runClient } from './client-process.js';
import { CODEX_TIMEOUT_S, codexHome, type RunResult } from './codex.js';

interface Spec {
  bin: string;
  out: string;
  model: string;
  prompt: string;
}

if (process.argv[2] === undefined) {
  // run without a scenario (e.g. `tap dist/test/clients/` picks up every file): nothing to do
  process.stdout.write('1..0 # the Codex runner is started by codex.test.js\n');
  process.exit(0);
}
const spec = JSON.parse(process.argv[2]) as Spec;

function filesIn(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of readdirSync(dir)) {
    const file = join(dir, name);
    if (statSync(file).isFile()) out[name] = readFileSync(file, 'utf8');
  }
  return out;
}

async function main(): Promise<RunResult> {
  let gw: RunningGateway | undefined;
  const home = mkdtempSync(join(tmpdir(), 'gw-codex-home-'));
  const work = mkdtempSync(join(tmpdir(), 'gw-codex-work-'));
  const result: RunResult = { command: '', config: '', exit: null, signal: null, stdout: '', stderr: '', ms: 0, files: {}, gatewayLogs: [], sim: [] };
  try {
    gw = await startGateway(clientsConfig());
    codexHome(home, spec.model, gw.url);
    result.config = readFileSync(join(home, 'config.toml'), 'utf8');
    const env: Record<string, string> = { CODEX_HOME: home, GATEWAY_API_KEY: TEST_KEY, HOME: home };
    const args = ['exec', '--skip-git-repo-check', '--dangerously-bypass-approvals-and-sandbox', spec.prompt];
    result.command = commandLine(env, CODEX_TIMEOUT_S, 'codex', args);
    Object.assign(result, await runClient(spec.bin, args, { cwd: work, env, timeoutS: CODEX_TIMEOUT_S }));
    result.files = filesIn(work);
    result.sim = (await gw.simRequests()) as RunResult['sim'];
  } catch (err) {
    result.error = err instanceof Error ? err.stack ?? err.message : String(err);
  } finally {
    if (gw) {
      await gw.stop();
      result.gatewayLogs = gw.logs;
    }
    rmSync(home, { recursive: true, force: true });
    rmSync(work, { recursive: true, force: true });
  }
  return result;
}

main()
  .then((r) => writeFileSync(spec.out, JSON.stringify(r)))
  .catch((err: unknown) => {
    process.stderr.write(`${String(err)}\n`);
    process.exit(1);
  });
