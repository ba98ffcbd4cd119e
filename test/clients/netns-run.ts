// Runs inside a loopback-only network namespace (started by tier.ts `runInNamespace`): starts
// bin/gateway on a free port with the simulated provider behind it, runs one client command against
// it in a fresh work folder with a fresh HOME (the client's environment is the spec's and nothing
// of the caller's: no keys, proxies or settings leak in), then writes what happened to a JSON file
// and stops the gateway. Argument: the path of a JSON RunSpec.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { startGateway, type RunningGateway } from '../helpers/gateway.js';
import { commandLine, runClient } from './client-process.js';
import { CLIENT_TIMEOUT_S, GATEWAY_URL, type ClientRun, type RunSpec } from './tier.js';

function listFiles(root: string, rel = '', out: Record<string, string> = {}): Record<string, string> {
  for (const name of readdirSync(join(root, rel))) {
    const path = rel === '' ? name : `${rel}/${name}`;
    const st = statSync(join(root, path));
    if (st.isDirectory()) listFiles(root, path, out);
    else if (st.size < 65536) out[path] = readFileSync(join(root, path), 'utf8');
  }
  return out;
}

async function run(spec: RunSpec): Promise<ClientRun> {
  let gw: RunningGateway | undefined;
  const home = mkdtempSync(join(tmpdir(), 'gw-client-home-'));
  const work = mkdtempSync(join(tmpdir(), 'gw-client-work-'));
  const timeoutS = spec.timeoutS ?? CLIENT_TIMEOUT_S;
  const result: ClientRun = { command: '', env: {}, exit: null, signal: null, stdout: '', stderr: '', ms: 0, gatewayUrl: '', gatewayLogs: [], sim: [], files: {} };
  try {
    gw = await startGateway(spec.config);
    const url = gw.url;
    result.gatewayUrl = url;
    const fill = (s: string): string => s.split(GATEWAY_URL).join(url);
    for (const [path, text] of Object.entries(spec.files ?? {})) {
      mkdirSync(dirname(join(work, path)), { recursive: true });
      writeFileSync(join(work, path), fill(text));
    }
    const env = Object.fromEntries(Object.entries(spec.env).map(([k, v]) => [k, fill(v)]));
    const args = spec.args.map(fill);
    result.env = env;
    result.command = commandLine(env, timeoutS, spec.bin, args);
    Object.assign(result, await runClient(spec.bin, args, { cwd: work, env: { HOME: home, ...env }, timeoutS }));
    result.sim = await gw.simRequests();
    result.files = listFiles(work);
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

if (process.argv[2] === undefined) {
  // run without a spec (e.g. `tap dist/test/clients/` picks up every file): nothing to do
  process.stdout.write('1..0 # the client runner is started by the client-tier tests\n');
  process.exit(0);
}
const spec = JSON.parse(readFileSync(process.argv[2], 'utf8')) as RunSpec;
run(spec)
  .then((r) => writeFileSync(spec.out, JSON.stringify(r)))
  .catch((err: unknown) => {
    process.stderr.write(`${String(err)}\n`);
    process.exit(1);
  });
