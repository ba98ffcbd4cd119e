// `npm start` as an operator (or a supervisor) runs it: npm 11 forwards SIGTERM and SIGINT to its
// child, so the script execs node (no shell in between to swallow the signal) and the gateway shuts
// down gracefully, exit 0. npm dies at once on SIGKILL and SIGHUP; the gateway notices it lost its
// parent and stops by itself instead of running on orphaned.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import t, { type Test } from 'tap';
import { baseConfig } from '../helpers/gateway.js';
import { eventually } from '../helpers/messages.js';
import { ROOT } from '../helpers/paths.js';

interface NpmStart {
  npm: ChildProcess;
  logs: Record<string, unknown>[];
  /** the gateway's pid, from its `listening` line */
  pid: number;
  url: string;
  /** resolves when the gateway's stdout closes: every process holding it has exited */
  closed: Promise<void>;
  npmExit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

async function npmStart(t: Test): Promise<NpmStart> {
  const dir = mkdtempSync(join(tmpdir(), 'gw-npm-start-'));
  const file = join(dir, 'config.json');
  writeFileSync(file, JSON.stringify(baseConfig({ listen: { host: '127.0.0.1', port: 0 }, store: `sqlite:${join(dir, 'gw.db')}` })));
  // without npm's update check
  const env = { ...process.env, npm_config_update_notifier: 'false' };
  const npm = spawn('npm', ['start', '--', '--config', file], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  const logs: Record<string, unknown>[] = [];
  const closed = new Promise<void>((resolve) => npm.stdout!.once('end', () => resolve()));
  createInterface({ input: npm.stdout! }).on('line', (l) => {
    if (!l.startsWith('{')) return;
    try {
      logs.push(JSON.parse(l) as Record<string, unknown>);
    } catch {
      // not a log line
    }
  });
  npm.stderr!.resume();
  const npmExit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => npm.once('exit', (code, signal) => resolve({ code, signal })));
  const listening = await eventually(async () => logs.find((l) => l.msg === 'listening'), 20_000, 50);
  if (!listening) throw new Error('npm start did not start the gateway');
  const pid = listening.pid as number;
  t.teardown(() => {
    for (const p of [npm.pid, pid]) {
      try {
        if (p) process.kill(p, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  });
  return { npm, logs, pid, url: listening.url as string, closed, npmExit };
}

/** `p`, or `fallback` after `ms` (a failing run ends quickly instead of hanging until the tap timeout) */
function within<V, F>(p: Promise<V>, ms: number, fallback: F): Promise<V | F> {
  return Promise.race([p, new Promise<F>((r) => setTimeout(() => r(fallback), ms).unref())]);
}

/** The process has exited (gone, or a zombie waiting for a reaper). */
function exited(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return true;
  }
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /, '').startsWith('Z');
  } catch {
    return true;
  }
}

t.test('npm start, then SIGTERM to npm: the gateway shuts down gracefully and exits 0', async (t) => {
  const run = await npmStart(t);
  t.equal((await fetch(`${run.url}/v1/models`, { headers: { 'x-api-key': 'sk-test-full-0000' } })).status, 200, 'serving');
  run.npm.kill('SIGTERM');
  t.same(await within(run.npmExit, 10_000, 'still running'), { code: 0, signal: null }, 'npm exits 0: the gateway exited 0');
  await within(run.closed, 5000, null);
  t.ok(
    run.logs.some((l) => l.msg === 'shutting down' && l.signal === 'SIGTERM'),
    'the gateway received the SIGTERM',
  );
  t.ok(
    run.logs.some((l) => l.msg === 'stopped'),
    'and stopped gracefully',
  );
  t.ok(await eventually(async () => exited(run.pid)), 'the gateway process is gone');
});

for (const signal of ['SIGKILL', 'SIGHUP'] as const) {
  t.test(`npm start, then ${signal} to npm: the gateway notices and exits by itself`, async (t) => {
    const run = await npmStart(t);
    run.npm.kill(signal);
    t.match(await run.npmExit, { signal }, `npm died of ${signal}`);
    const started = Date.now();
    const stopped = await within(run.closed.then(() => true), 5000, false);
    t.ok(stopped, `the gateway exited within 5 s (${Date.now() - started} ms)`);
    t.ok(
      run.logs.some((l) => l.msg === 'shutting down' && l.signal === 'parent exited'),
      'shutting down because npm is gone',
    );
    t.ok(
      run.logs.some((l) => l.msg === 'stopped'),
      'gracefully',
    );
    t.ok(await eventually(async () => exited(run.pid)), 'the gateway process is gone');
  });
}
