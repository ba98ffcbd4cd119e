// POST /v1/responses: the key authenticated and scoped, a JSON content type, then the generation
// chain (lib/chains.ts) with the Responses validator. Stored-response routes: ./stored-responses.ts.
import { buildResponsesChain } from '../chains.js';
import { auth, jsonContentType, scope } from './hooks.js';
import type { EndpointDefinition } from './types.js';

export const responses: EndpointDefinition = {
  method: 'POST',
  path: '/v1/responses',
  build: (config) => ({ name: 'responses', dialect: () => 'openai-responses', hooks: [auth, scope('responses'), jsonContentType], chain: buildResponsesChain(config) }),
};
