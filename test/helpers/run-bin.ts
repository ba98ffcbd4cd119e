// Runs a command of this project as a user does (bin/gateway, or a compiled script with node):
// a child process fed `stdin`, its stdout, stderr and exit code.
import { spawn } from 'node:child_process';
import { ROOT } from './paths.js';

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function runCommand(command: string, args: readonly string[], stdin = '', env: NodeJS.ProcessEnv = process.env): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: ROOT, env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.on('error', () => {}); // a command that exits before reading all of stdin
    child.stdin.end(stdin);
  });
}
