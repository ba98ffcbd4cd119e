// GET /v1/models: any authenticated key; the list in the caller's dialect (lib/routes/models.ts).
import { listModels } from '../routes/models.js';
import { byHeaders } from './dialects.js';
import { auth } from './hooks.js';
import type { EndpointDefinition } from './types.js';

export const models: EndpointDefinition = {
  method: 'GET',
  path: '/v1/models',
  build: () => ({ name: 'models', dialect: byHeaders, hooks: [auth], handle: (ctx, _req, res) => listModels(ctx, res) }),
};
