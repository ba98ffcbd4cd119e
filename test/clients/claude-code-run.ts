// Runs inside a loopback-only network namespace (started by claude-code.ts `runScenario`): starts
// bin/gateway on a free port with the simulated provider behind it, runs `claude -p` against it as a
// user would (only ANTHROPIC_BASE_URL and ANTHROPIC_API_KEY point it at the gateway, plus the
// variables that keep it off the network), then writes what happened to a JSON file and stops the
// gateway. Argument: JSON `{bin, out, prompt, args}`.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startGateway, TEST_KEY, type RunningGateway } from '../helpers/gateway.js';
import { CLAUDE_TIMEOUT_S, type RunResult } from './claude-code.js';
import { clientsConfig } from './config.js';

interface Spec {
  bin: string;
  out: string;
  prompt: string;
  args: string[];
}

if (process.argv[2] === undefined) {
  // run without a scenario (e.g. `tap dist/test/clients/` picks up every file): nothing to do
  process.stdout.write('1..0 # the Claude Code runner is started by claude-code.test.js\n');
  process.exit(0);
}
const spec = JSON.parse(process.argv[2]) as Spec;
const quote = (s: string): string => (/^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);

async function main(): Promise<RunResult> {
  let gw: RunningGateway | undefined;
  const home = mkdtempSync(join(tmpdir(), 'gw-cc-home-'));
  const work = mkdtempSync(join(tmpdir(), 'gw-cc-work-'));
  const result: RunResult = { command: '', env: {}, exit: null, signal: null, stdout: '', stderr: '', ms: 0, gatewayUrl: '', gatewayLogs: [], sim: [] };
  try {
    gw = await startGateway(clientsConfig());
    result.gatewayUrl = gw.url;
    const env: Record<string, string> = {
      ANTHROPIC_BASE_URL: gw.url,
      ANTHROPIC_API_KEY: TEST_KEY,
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      DISABLE_TELEMETRY: '1',
      DISABLE_ERROR_REPORTING: '1',
      DISABLE_AUTOUPDATER: '1',
      HOME: home,
    };
    const args = ['-p', spec.prompt, '--allowedTools', 'Bash', ...spec.args];
    result.env = env;
    result.command = `${Object.entries(env).map(([k, v]) => `${k}=${quote(v)}`).join(' ')} timeout ${CLAUDE_TIMEOUT_S} claude ${args.map(quote).join(' ')}`;
    const started = Date.now();
    await new Promise<void>((resolve) => {
      // a clean environment: nothing of the caller's (keys, proxies, CLAUDE_* settings) leaks in
      const child = spawn('timeout', ['-k', '5', String(CLAUDE_TIMEOUT_S), spec.bin, ...args], {
        cwd: work,
        env: { PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin', LANG: 'C.UTF-8', ...env },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      child.stdout.on('data', (c: Buffer) => (result.stdout += c.toString()));
      child.stderr.on('data', (c: Buffer) => (result.stderr += c.toString()));
      child.on('error', (err) => {
        result.error = String(err);
        resolve();
      });
      child.on('close', (code, signal) => {
        result.exit = code;
        result.signal = signal;
        resolve();
      });
    });
    result.ms = Date.now() - started;
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
