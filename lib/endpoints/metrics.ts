// GET /metrics: the Prometheus text (lib/metrics/), for the admin credential only unless
// `metrics.public` is true (decisions §12). Errors in the OpenAI-style envelope, as on every admin
// route. With `metrics.enabled: false` nothing is collected and the route is not served.
import { requireAdmin } from '../admin/credential.js';
import { errors } from '../errors/index.js';
import { EXPOSITION_CONTENT_TYPE } from '../metrics/exposition.js';
import { openAiDialect } from './dialects.js';
import type { EndpointDefinition, Hook } from './types.js';

/** The admin key, unless the config makes /metrics public. */
const adminUnlessPublic: Hook = (head) => {
  if (!head.config.metrics.enabled) throw errors.routeNotFound(head.method, head.path);
  if (!head.config.metrics.public) requireAdmin(head);
};

export const metrics: EndpointDefinition = {
  method: 'GET',
  path: '/metrics',
  build: () => ({
    name: 'metrics',
    dialect: openAiDialect,
    hooks: [adminUnlessPublic],
    async handle(ctx, _req, res) {
      await ctx.services.metrics!.refresh();
      const body = ctx.services.metrics!.text();
      res.writeHead(200, { ...ctx.responseHeaders, 'content-type': EXPOSITION_CONTENT_TYPE, 'content-length': String(Buffer.byteLength(body)), 'cache-control': 'no-store' });
      res.end(body);
    },
  }),
};
