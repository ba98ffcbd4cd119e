// Start-up: configuration → services → server (the command line and the configuration it names:
// command-line.ts). Used by bin/gateway to serve.
import cluster from 'node:cluster';
import type { Config } from './config.js';
import { resolveConfig, type StartOptions } from './command-line.js';
import { createRootLogger } from './logger.js';
import { createGateway } from './server.js';
import { openSharedServices } from './services.js';
import { listen } from './listen.js';
import { ConfigReloader, servingState } from './reload.js';
import { holdReloads, type HeldReloads } from './held-reloads.js';
import { watchNpmParent } from './parent-watch.js';
import { unitsToUsd } from './pricing.js';
import type { Unsettled } from './store/settle-backlog.js';
import type { Logger } from 'pino';

/** What a newcomer needs next, on stderr (the log stays JSON on stdout): the URL, the key, one request. */
export function startBanner(url: string, demoKey: string | null, config: Config): string {
  const textModels = config.models.filter((m) => (m.input ?? ['text']).includes('text'));
  const preferred = textModels.find((m) => m.id === config.router?.candidates?.[0]) ?? textModels[0];
  const model = preferred?.aliases?.[0] ?? preferred?.id ?? 'MODEL';
  const key = demoKey ?? 'YOUR_GATEWAY_KEY';
  const lines = [
    `model-gateway is serving on ${url}`,
    demoKey !== null ? `Gateway key (built-in default): ${demoKey}` : 'Gateway keys: the ones in your config file (keys[].key)',
    'Try it:',
    `  curl -s ${url}/v1/messages -H 'x-api-key: ${key}' -H 'anthropic-version: 2023-06-01' -H 'content-type: application/json' \\`,
    `    -d '{"model":"${model}","max_tokens":256,"messages":[{"role":"user","content":"Hello"}]}'`,
    `Dashboard: ${url}/dashboard (sign in with an admin key: admin.keys in the config, or GATEWAY_ADMIN_KEY)`,
    'Stop with Ctrl-C (graceful); reload the config with kill -HUP <pid>. The README covers the SDKs and Claude Code.',
  ];
  return `${lines.join('\n')}\n`;
}

/**
 * Shutdown with settles the store never took (disk full, read-only file, through every retry): one
 * error line naming each reservation, its organization and the charge it was due, and exit code 1 so
 * a supervisor sees it. The holds stay in the store; the next start releases them (stale
 * reservations), so the charges listed must be applied by hand (`gateway credits add --usd -X`).
 */
export function reportUnsettled(left: readonly Unsettled[], log: Pick<Logger, 'error'>): number {
  if (left.length === 0) return 0;
  const unsettled = left.map((u) => ({ ...u, reservedUsd: unitsToUsd(u.reservedUnits), chargeUsd: unitsToUsd(u.chargeUnits) }));
  log.error(
    { unsettled, count: left.length },
    'shutdown: settles left unwritten (the store refused every retry); the next start releases these holds, so charge them by hand with `gateway credits add --org ORG --usd -CHARGE`',
  );
  return 1;
}

/** Serves until stopped. `held`: SIGHUP as bin/gateway held it from the process's first steps (else from here). */
export async function startGateway(opts: StartOptions, held: HeldReloads = holdReloads()): Promise<void> {
  const { config, demoKey, source } = resolveConfig(opts);
  const log = createRootLogger(config.logLevel);
  // the cluster modules are imported only under --workers
  if (opts.workers !== undefined && cluster.isPrimary) {
    const { runPrimary, workerCount } = await import('./cluster/primary.js');
    const workers = workerCount(opts.workers);
    await runPrimary({ config, workers, log, banner: (url) => startBanner(url, demoKey, config), held });
    return;
  }
  // a cluster worker: the primary prints the banner and the one `listening` line, and keeps the limits
  const worker = cluster.isWorker ? new (await import('./cluster/worker-link.js')).WorkerLink() : null;
  const shared = await openSharedServices(config, log, { worker });
  // settles the store refused are retried in the background: their progress goes to the log
  shared.store.ledger.backlog.log = log;
  const gateway = createGateway(servingState(config, shared), log);
  // SIGHUP resolves the config again exactly as above: same options, same environment. The built-in
  // default depends only on that environment (fixed at start) and on a demo key that is random per
  // start when real providers are configured: reloading it keeps the running config, so the key
  // printed above keeps working.
  const reloader = new ConfigReloader(
    () => {
      const again = resolveConfig(opts);
      return again.demoKey !== null && demoKey !== null ? { config: gateway.state().config, source: again.source } : again;
    },
    gateway,
    shared,
    log,
  );
  const url = await listen(gateway.server, config.listen.port, config.listen.host);
  if (shared.released > 0) log.warn({ released: shared.released }, 'released reservations left by a previous process');

  let stopping = false;
  // started by `npm start` and npm died (SIGHUP, SIGKILL): stop as on SIGTERM instead of running orphaned
  const stopWatch = watchNpmParent(process.env, (parent) => {
    log.warn({ parent }, 'the npm process that started the gateway is gone');
    stop('parent exited');
  });
  const stop = (signal: string): void => {
    if (stopping) return;
    stopping = true;
    stopWatch();
    log.info({ signal, inflight: gateway.inflight() }, 'shutting down');
    gateway
      .close()
      .then(() => reloader.close())
      .then(() => shared.close())
      .then(() => {
        const code = reportUnsettled(shared.store.unsettled(), log);
        log.info({ exitCode: code }, 'stopped');
        log.flush();
        // the code holds also when the loop empties before the timer (unref) fires
        process.exitCode = code;
        setTimeout(() => process.exit(code), 20).unref();
      })
      .catch((err: unknown) => {
        log.error({ err: String(err) }, 'shutdown failed');
        process.exit(1);
      });
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  // a worker whose primary is gone (killed) stops instead of serving on alone
  if (worker !== null) process.on('disconnect', () => stop('primary exited'));
  // SIGHUP reloads the configuration (see reload.ts); it writes one line, reloaded or refused. One
  // asked for while the gateway started runs now.
  held.release(() => {
    if (!stopping) void reloader.reload();
  });
  // announced only now: a supervisor may signal the gateway as soon as it reads the line, and a signal
  // that came before its handler would end the process (node's default for SIGHUP, SIGTERM, SIGINT)
  if (worker !== null) {
    log.info({ url, pid: process.pid }, 'worker listening');
    worker.listening(url, shared.sim?.url ?? null);
  } else {
    log.info({ url, config: source, sim: shared.sim?.url, pid: process.pid }, 'listening');
    process.stderr.write(startBanner(url, demoKey, gateway.state().config));
  }
}
