// The reference every gateway figure is compared with: a bare reverse proxy (node:http in, undici
// out), which forwards method, path, headers and body to one upstream and streams the answer back,
// with no parsing, validation, auth or billing. What the gateway adds is measured against this.
//
// Run alone: node dist/bench/bare-proxy.js --upstream http://127.0.0.1:PORT [--port 0]
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { pathToFileURL } from 'node:url';
import { Pool, type Dispatcher } from 'undici';
import { closeNow, listen } from '../lib/listen.js';

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'te', 'upgrade', 'proxy-connection', 'trailer', 'host']);

function forwardHeaders(h: IncomingHttpHeaders): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const k in h) {
    const v = h[k];
    if (v !== undefined && !HOP_BY_HOP.has(k)) out[k] = v;
  }
  return out;
}

export interface BareProxy {
  url: string;
  server: Server;
  close(): Promise<void>;
}

export async function startBareProxy(opts: { upstream: string; host?: string; port?: number }): Promise<BareProxy> {
  // the same connection budget as the gateway's provider pool would need for 1,000 open streams
  const pool = new Pool(opts.upstream, { connections: 2048, pipelining: 1, keepAliveTimeout: 30_000 });
  const server = createServer({ keepAliveTimeout: 65_000, requestTimeout: 0 }, (req, res) => {
    const hasBody = req.method !== 'GET' && req.method !== 'HEAD';
    pool.request(
      {
        method: req.method as Dispatcher.HttpMethod,
        path: req.url ?? '/',
        headers: forwardHeaders(req.headers),
        body: hasBody ? req : null,
        headersTimeout: 600_000,
        bodyTimeout: 600_000,
      },
      (err, data) => {
        if (err) {
          if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
          res.end(`bare proxy: ${err.message}`);
          return;
        }
        const headers: Record<string, string | string[]> = {};
        for (const k in data.headers) {
          const v = data.headers[k];
          if (v !== undefined && !HOP_BY_HOP.has(k)) headers[k] = v;
        }
        res.writeHead(data.statusCode, headers);
        const body = data.body;
        body.on('data', (c: Buffer) => {
          if (!res.write(c)) body.pause();
        });
        res.on('drain', () => body.resume());
        body.on('end', () => res.end());
        body.on('error', () => res.destroy());
        res.on('close', () => {
          if (!res.writableFinished) body.destroy();
        });
      },
    );
  });
  return {
    url: await listen(server, opts.port ?? 0, opts.host ?? '127.0.0.1'),
    server,
    async close() {
      await closeNow(server);
      await pool.close();
    },
  };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const argv = process.argv.slice(2);
  const arg = (name: string): string | undefined => {
    const i = argv.indexOf(name);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const upstream = arg('--upstream');
  if (!upstream) {
    process.stderr.write('usage: bare-proxy --upstream http://127.0.0.1:PORT [--port 0]\n');
    process.exit(2);
  }
  const proxy = await startBareProxy({ upstream, port: Number(arg('--port') ?? 0) });
  process.stdout.write(`${JSON.stringify({ msg: 'listening', url: proxy.url })}\n`);
  const stop = (): void => {
    proxy.close().then(() => process.exit(0), () => process.exit(1));
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}
