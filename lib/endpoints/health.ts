// GET /healthz and GET /readyz, without auth, for load balancers and orchestrators.
//   /healthz: the process serves (200), nothing else is asked.
//   /readyz: it can take a request now: the store takes writes (no settle waiting for it) and answers
//   a trivial query within a second, and, with `limits`, Redis answers. 200 when all are, else 503; the body names each check:
//   {"status":"not ready","checks":{"store":"ok","limits":"redis is unreachable (reconnecting)"}}
import type { ServerResponse } from 'node:http';
import { anthropicDialect } from './dialects.js';
import type { EndpointDefinition } from './types.js';

function reply(res: ServerResponse, headers: Record<string, string>, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { ...headers, 'content-type': 'application/json', 'cache-control': 'no-store', 'content-length': String(Buffer.byteLength(text)) });
  res.end(text);
}

export const healthz: EndpointDefinition = {
  method: 'GET',
  path: '/healthz',
  build: () => ({
    name: 'health',
    dialect: anthropicDialect,
    hooks: [],
    handle: (ctx, _req, res) => reply(res, ctx.responseHeaders, 200, { status: 'ok' }),
  }),
};

export const readyz: EndpointDefinition = {
  method: 'GET',
  path: '/readyz',
  build: () => ({
    name: 'health',
    dialect: anthropicDialect,
    hooks: [],
    async handle(ctx, _req, res) {
      const checks: Record<string, string> = {};
      let ready = true;
      const probes = ctx.services.probes ?? [];
      const problems = await Promise.all(probes.map((p) => p.problem()));
      for (const [i, probe] of probes.entries()) {
        const problem = problems[i] ?? null;
        checks[probe.name] = problem ?? 'ok';
        if (problem !== null) ready = false;
      }
      reply(res, ctx.responseHeaders, ready ? 200 : 503, { status: ready ? 'ready' : 'not ready', checks });
    },
  }),
};
