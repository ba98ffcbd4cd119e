// The README's runnable blocks, found by the `<!-- readme-test: NAME -->` marker on the line before
// their fence, and what running them needs: `npm start` in a scratch directory that is a copy of the
// project (package.json, with dist/ and node_modules linked), as a newcomer runs it from a clone.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, symlinkSync, copyFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { ROOT } from '../helpers/paths.js';

export interface Block {
  lang: string;
  code: string;
}

export function readmeBlock(name: string): Block {
  const text = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const marker = `<!-- readme-test: ${name} -->`;
  const at = text.indexOf(marker);
  if (at < 0) throw new Error(`README.md has no block marked ${marker}`);
  const fence = /```(\w*)\n([\s\S]*?)\n```/.exec(text.slice(at + marker.length));
  if (fence === null) throw new Error(`no fenced block after ${marker}`);
  return { lang: fence[1]!, code: fence[2]! };
}

/** The block's shell command lines, comments stripped and continuations joined. */
export function commandLines(block: Block): string[] {
  return block.code
    .replace(/\\\n\s*/g, ' ')
    .split('\n')
    .map((l) => l.replace(/\s+#.*$/, '').trim())
    .filter((l) => l !== '' && !l.startsWith('#'));
}

/** A scratch copy of the project: what `npm start` needs, with its own ./data. */
export function scratchProject(): string {
  const dir = mkdtempSync(join(tmpdir(), 'gw-readme-'));
  copyFileSync(join(ROOT, 'package.json'), join(dir, 'package.json'));
  symlinkSync(join(ROOT, 'dist'), join(dir, 'dist'));
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
  symlinkSync(join(ROOT, 'bin'), join(dir, 'bin'));
  return dir;
}

export interface Started {
  proc: ChildProcess;
  listening: Record<string, unknown>;
  logs: Record<string, unknown>[];
  stderr: string[];
  /** SIGTERM to the process group (npm and the gateway) and wait for exit */
  stop(): Promise<void>;
}

/** Run a shell command line as written (in its own process group) and wait for the `listening` line. */
export async function startShell(line: string, cwd: string, env: NodeJS.ProcessEnv): Promise<Started> {
  const proc = spawn('sh', ['-c', line], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  const logs: Record<string, unknown>[] = [];
  const stderr: string[] = [];
  createInterface({ input: proc.stderr! }).on('line', (l) => stderr.push(l));
  const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
  const listening = await new Promise<Record<string, unknown>>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no listening line from "${line}": ${stderr.join('\n')}`)), 30_000);
    createInterface({ input: proc.stdout! }).on('line', (l) => {
      let rec: Record<string, unknown>;
      try {
        rec = JSON.parse(l) as Record<string, unknown>;
      } catch {
        return;
      }
      logs.push(rec);
      if (rec.msg === 'listening') {
        clearTimeout(timer);
        resolve(rec);
      }
    });
    proc.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`"${line}" exited with ${code} before listening:\n${stderr.join('\n')}`));
    });
  });
  return {
    proc,
    listening,
    logs,
    stderr,
    async stop() {
      try {
        process.kill(-proc.pid!, 'SIGTERM');
      } catch {
        // already gone
      }
      await exited;
    },
  };
}

/** Run a shell snippet to completion; its stdout. */
export function runShell(script: string, cwd: string, env: NodeJS.ProcessEnv = process.env): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const proc = spawn('sh', ['-c', script], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    proc.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    proc.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    proc.once('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

/** The environment of a newcomer's shell: none of the provider or gateway variables a developer may have set. */
export function cleanEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (/^(ANTHROPIC_|OPENAI_|GATEWAY_|npm_|TAP)/.test(k)) continue;
    env[k] = v;
  }
  return { ...env, ...extra };
}
