// Runs the compiled bin/replay as a user does: a child process, its stdout, stderr and exit code.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { ROOT } from './paths.js';

export interface BinResult {
  code: number;
  stdout: string;
  stderr: string;
}

export function runReplay(args: string[]): Promise<BinResult> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [join(ROOT, 'dist/bin/replay.js'), ...args], { cwd: ROOT, maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => {
      const code = err === null ? 0 : typeof (err as { code?: unknown }).code === 'number' ? ((err as { code: number }).code) : -1;
      if (code === -1) reject(err);
      else resolve({ code, stdout, stderr });
    });
  });
}
