// bin/gateway --workers N|auto: the primary process. It checks what every worker will need (the
// config, a store they can share, Redis when `limits` is set), opens the store once to migrate and
// seed it (so a broken store is one error line, not N), then forks N workers that each serve on the one listener
// (node:cluster shares it). Without `limits` it keeps the rate-limit buckets for all workers and
// answers their admissions over IPC, and relays pins and key changes between them. SIGTERM/SIGINT
// stop every worker gracefully (the exit code is the worst of theirs); SIGHUP reaches every worker,
// each reloads; a worker that dies is replaced.
import cluster, { type Worker } from 'node:cluster';
import { availableParallelism } from 'node:os';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { errors } from '../errors/index.js';
import { InProcessRateLimiter } from '../rate-limit.js';
import { StickyRoutes } from '../sticky.js';
import { openStore } from '../store/open-store.js';
import { isGatewayMessage, type PrimaryToWorker, type WorkerToPrimary } from './messages.js';
import { PROCESS_SEAL_KEY_ENV, processSealKey } from '../search/seal.js';
import type { HeldReloads } from '../held-reloads.js';

/** a worker that dies sooner than this after it started is replaced only after this long (no crash loop) */
const RESTART_BACKOFF_MS = 1000;

/** `--workers N|auto` as a count. */
export function workerCount(given: string): number {
  if (given === 'auto') return availableParallelism();
  if (!/^\d+$/.test(given) || Number(given) < 1) throw errors.workersInvalid(given);
  return Number(given);
}

export interface PrimaryOptions {
  config: Config;
  workers: number;
  log: Logger;
  /** what the start banner says once every worker listens */
  banner(url: string): string;
  /** SIGHUP, held since the process started (bin/gateway): released to the relay below */
  held: HeldReloads;
}

export async function runPrimary({ config, workers, log, banner, held }: PrimaryOptions): Promise<void> {
  if (config.store === 'sqlite::memory:') throw errors.workersNeedSharedStore(config.store);
  if (config.limits !== undefined) {
    // loaded only when configured: the Redis client is a few MB of start-up a gateway without `limits` never needs
    const { RedisLimits } = await import('../limits/redis.js');
    await (await RedisLimits.connect(config.limits)).close();
  }
  // each worker holds a lease of its own (lib/store/lease.ts): a worker that dies has its holds
  // released by a sweep on a live one once the lease expires, and never a live sibling's
  const store = await openStore(config);
  try {
    await store.seed(config);
  } finally {
    await store.close();
  }

  const limiter = config.limits === undefined ? new InProcessRateLimiter() : null;
  const sticky = new StickyRoutes();
  let stopping = false;
  let listeningOnce = false;
  const listeningWorkers = new Set<number>();
  const startedAt = new Map<number, number>();
  const exitCodes: number[] = [];
  /** workers not yet exited (cluster.workers keeps one until it has also disconnected) */
  const alive = new Set<number>();

  const send = (w: Worker, m: PrimaryToWorker): void => {
    if (w.isConnected()) w.send(m);
  };
  const onMessage = (w: Worker, m: WorkerToPrimary): void => {
    if (m.gw === 'admit') send(w, { gw: 'verdict', id: m.id, verdict: limiter!.verdict(m.key, m.estimate) });
    else if (m.gw === 'record') limiter?.record(m.key, m.tokens, m.estimate);
    else if (m.gw === 'bus') {
      if (m.msg.topic === 'sticky') sticky.adopt(m.msg.slot, m.msg.pin);
      for (const other of Object.values(cluster.workers ?? {})) if (other !== undefined && other !== w) send(other, { gw: 'bus', msg: m.msg });
    } else if (m.gw === 'sticky-snapshot') {
      send(w, { gw: 'sticky', entries: sticky.entries() });
    } else if (m.gw === 'listening') {
      listeningWorkers.add(w.id);
      if (!listeningOnce && listeningWorkers.size === workers) {
        listeningOnce = true;
        log.info({ url: m.url, sim: m.sim ?? undefined, pid: process.pid, workers }, 'listening');
        process.stderr.write(banner(m.url));
      }
    }
  };
  const fork = (): void => {
    // without webSearch.sealKey, every worker seals with the primary's random key (a turn may reach any worker)
    const w = cluster.fork({ [PROCESS_SEAL_KEY_ENV]: processSealKey() });
    startedAt.set(w.id, Date.now());
    w.on('message', (m: unknown) => {
      if (isGatewayMessage<WorkerToPrimary>(m)) onMessage(w, m);
    });
    alive.add(w.id);
  };

  cluster.on('exit', (w, code, signal) => {
    listeningWorkers.delete(w.id);
    alive.delete(w.id);
    // a worker stopped by our SIGTERM before it installed its handler ended as asked
    exitCodes.push(code ?? (stopping && signal === 'SIGTERM' ? 0 : 1));
    if (stopping) {
      if (alive.size === 0) finish();
      return;
    }
    if (!listeningOnce) {
      // a worker that cannot start (its own error is on stderr) will not start on a retry either
      log.error({ worker: w.process.pid, code, signal }, 'a worker exited before the gateway was listening');
      stop('worker failed to start', 1);
      return;
    }
    const lived = Date.now() - (startedAt.get(w.id) ?? 0);
    log.warn({ worker: w.process.pid, code, signal }, 'worker exited: starting another');
    setTimeout(() => {
      if (!stopping) fork();
    }, lived < RESTART_BACKOFF_MS ? RESTART_BACKOFF_MS : 0);
  });

  let forcedCode = 0;
  const finish = (): void => {
    const code = Math.max(forcedCode, ...exitCodes, 0);
    log.info({ exitCode: code }, 'stopped');
    log.flush();
    process.exitCode = code;
    setTimeout(() => process.exit(code), 20).unref();
  };
  const stop = (signal: string, code = 0): void => {
    if (stopping) return;
    stopping = true;
    forcedCode = code;
    exitCodes.length = 0;
    log.info({ signal, workers: alive.size }, 'shutting down');
    if (alive.size === 0) return finish();
    for (const w of Object.values(cluster.workers ?? {})) if (w !== undefined && alive.has(w.id)) w.process.kill('SIGTERM');
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  // each worker holds SIGHUP from its own start (held-reloads.ts), so one relayed to a worker that is
  // still starting is run once it serves
  held.release(() => {
    if (stopping) return;
    for (const w of Object.values(cluster.workers ?? {})) w?.process.kill('SIGHUP');
  });

  for (let i = 0; i < workers; i++) fork();
}
