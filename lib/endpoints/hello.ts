// HEAD /api/hello: a liveness probe Claude clients send; 204 with the request id, no auth.
import { anthropicDialect } from './dialects.js';
import type { EndpointDefinition } from './types.js';

export const hello: EndpointDefinition = {
  method: 'HEAD',
  path: '/api/hello',
  build: () => ({
    name: 'hello',
    dialect: anthropicDialect,
    hooks: [],
    handle(ctx, _req, res) {
      res.writeHead(204, ctx.responseHeaders);
      res.end();
    },
  }),
};
