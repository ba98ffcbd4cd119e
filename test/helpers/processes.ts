// bin/gateway and bin/sim-provider as an operator runs them: in a chosen working directory, with only
// the environment given (never the test runner's ANTHROPIC_API_KEY and the like), all on loopback.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { ROOT } from './paths.js';

export const GATEWAY = join(ROOT, 'dist/bin/gateway.js');
const SIM_PROVIDER = join(ROOT, 'dist/bin/sim-provider.js');

export interface Served {
  url: string;
  stderr: string[];
  /** the first stderr line matching `re`, once it is written */
  stderrLine(re: RegExp): Promise<string>;
  stop(): Promise<void>;
}

/** Waits for the `{"msg":"listening","url":...}` line on stdout. */
function served(proc: ChildProcess, what: string): Promise<Served> {
  const stderr: string[] = [];
  const lines = createInterface({ input: proc.stderr! });
  lines.on('line', (l) => stderr.push(l));
  const stderrLine = (re: RegExp): Promise<string> =>
    new Promise((resolve, reject) => {
      const found = stderr.find((l) => re.test(l));
      if (found !== undefined) return resolve(found);
      const onLine = (l: string): void => {
        if (!re.test(l)) return;
        lines.off('line', onLine);
        resolve(l);
      };
      lines.on('line', onLine);
      proc.once('exit', () => reject(new Error(`exited without printing ${String(re)}: ${stderr.join('\n')}`)));
    });
  const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
  return new Promise((resolve, reject) => {
    createInterface({ input: proc.stdout! }).on('line', (line) => {
      const m = /"msg":"listening".*?"url":"(http:[^"]+)"|"url":"(http:[^"]+)".*?"msg":"listening"/.exec(line);
      if (m) {
        resolve({
          url: m[1] ?? m[2]!,
          stderr,
          stderrLine,
          stop: () => {
            if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGTERM');
            return exited;
          },
        });
      }
    });
    proc.once('exit', (code) => reject(new Error(`${what} exited with ${code} before listening: ${stderr.join('\n')}`)));
  });
}

/** `gateway --port 0 [args]` in `cwd` with exactly `env` (plus PATH). */
export function runGateway(cwd: string, env: NodeJS.ProcessEnv = {}, args: string[] = []): Promise<Served> {
  const proc = spawn(process.execPath, [GATEWAY, '--port', '0', ...args], { cwd, env: { PATH: process.env.PATH, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  return served(proc, 'gateway');
}

export function runSimProvider(): Promise<Served> {
  const proc = spawn(process.execPath, [SIM_PROVIDER, '--host', '127.0.0.1', '--port', '0'], { env: { PATH: process.env.PATH }, stdio: ['ignore', 'pipe', 'pipe'] });
  return served(proc, 'sim-provider');
}

/** `gateway <args>` to completion (the credits CLI). */
export function gatewayCli(cwd: string, args: string[], env: NodeJS.ProcessEnv = {}): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [GATEWAY, ...args], { cwd, env: { PATH: process.env.PATH, ...env }, encoding: 'utf8', timeout: 15_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** The JSON lines `gateway credits usage ...` printed. */
export function usageLines(stdout: string): Record<string, unknown>[] {
  return stdout
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}
