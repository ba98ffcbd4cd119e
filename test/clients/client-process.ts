// One client program run as a user would start it, shared by the client runners (netns-run.ts,
// codex-run.ts): under `timeout` (killed 5 s after), in its work folder, with exactly the environment
// given plus PATH and LANG (nothing of the caller's — keys, proxies, OPENAI_* settings — leaks in),
// its output collected.
import { spawn } from 'node:child_process';

export interface ClientExit {
  exit: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  ms: number;
  error?: string;
}

const quote = (s: string): string => (/^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);

/** The command line a user would type for this run (shown in a failing test's report). */
export function commandLine(env: Readonly<Record<string, string>>, timeoutS: number, bin: string, args: readonly string[]): string {
  return `${Object.entries(env).map(([k, v]) => `${k}=${quote(v)}`).join(' ')} timeout ${timeoutS} ${quote(bin)} ${args.map(quote).join(' ')}`;
}

export function runClient(bin: string, args: readonly string[], opts: { cwd: string; env: Readonly<Record<string, string>>; timeoutS: number }): Promise<ClientExit> {
  const result: ClientExit = { exit: null, signal: null, stdout: '', stderr: '', ms: 0 };
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn('timeout', ['-k', '5', String(opts.timeoutS), bin, ...args], {
      cwd: opts.cwd,
      env: { PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin', LANG: 'C.UTF-8', ...opts.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout.on('data', (c: Buffer) => (result.stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (result.stderr += c.toString()));
    child.on('error', (err) => {
      result.error = String(err);
      result.ms = Date.now() - started;
      resolve(result);
    });
    child.on('close', (code, signal) => {
      result.exit = code;
      result.signal = signal;
      result.ms = Date.now() - started;
      resolve(result);
    });
  });
}
