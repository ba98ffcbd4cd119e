// A real Redis server (Debian's redis-server) for a test: started in a temp folder on a free
// loopback port, without persistence, stopped (and its folder removed) by `stop`. `pause`/`resume`
// freeze and thaw it (SIGSTOP/SIGCONT) to play an outage; `kill` and `restart` take it down and
// bring it back on the same port.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';

export interface RedisServer {
  url: string;
  port: number;
  /** a client for the test's own checks (closed by `stop`) */
  client: Redis;
  /** stop the server (SIGKILL), then start it again on the same port, empty */
  kill(): Promise<void>;
  restart(): Promise<void>;
  stop(): Promise<void>;
}

export async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  const port = (srv.address() as { port: number }).port;
  await new Promise<void>((resolve) => srv.close(() => resolve()));
  return port;
}

export function redisServerBinary(): string {
  return process.env.REDIS_SERVER ?? 'redis-server';
}

async function waitForPing(port: number, ms = 10_000): Promise<void> {
  const until = Date.now() + ms;
  for (;;) {
    const probe = new Redis({ host: '127.0.0.1', port, lazyConnect: true, retryStrategy: () => null, maxRetriesPerRequest: 0 });
    probe.on('error', () => undefined);
    try {
      await probe.connect();
      await probe.ping();
      probe.disconnect();
      return;
    } catch {
      probe.disconnect();
      if (Date.now() > until) throw new Error(`redis-server did not answer on port ${port}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}

export async function startRedis(): Promise<RedisServer> {
  const dir = mkdtempSync(join(tmpdir(), 'gw-redis-'));
  const port = await freePort();
  let proc: ChildProcess | null = null;
  const launch = async (): Promise<void> => {
    proc = spawn(redisServerBinary(), ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir, '--protected-mode', 'yes'], { stdio: 'ignore' });
    await waitForPing(port);
  };
  const killNow = async (): Promise<void> => {
    const p = proc;
    proc = null;
    if (p === null || p.exitCode !== null || p.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => p.once('exit', () => resolve()));
    p.kill('SIGKILL');
    await exited;
  };
  await launch();
  const client = new Redis({ host: '127.0.0.1', port, maxRetriesPerRequest: 1 });
  client.on('error', () => undefined);
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    client,
    kill: killNow,
    restart: launch,
    async stop() {
      client.disconnect();
      await killNow();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
