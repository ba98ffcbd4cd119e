// The endpoint table: every endpoint the gateway serves, one file each, in the order they are
// matched. createGateway (lib/gateway.ts, lib/server.ts) takes this table or a custom one.
import { admin } from './admin.js';
import { chatCompletions } from './chat-completions.js';
import { countTokens } from './count-tokens.js';
import { dashboard } from './dashboard.js';
import { healthz, readyz } from './health.js';
import { hello } from './hello.js';
import { mcpServers } from './mcp-servers.js';
import { messages } from './messages.js';
import { metrics } from './metrics.js';
import { models } from './models.js';
import { responses } from './responses.js';
import { transcriptions } from './transcriptions.js';
import type { EndpointTable } from './types.js';

export const endpoints: EndpointTable = [hello, healthz, readyz, models, mcpServers, messages, countTokens, chatCompletions, transcriptions, responses, metrics, admin, dashboard];

export { buildRoutes, matchEndpoint, type Routes } from './routes.js';
export { auth, jsonContentType, messagesHeaders, messagesQuery, scope } from './hooks.js';
export type { Endpoint, EndpointChain, EndpointDefinition, EndpointTable, Hook, Learned, RequestHead } from './types.js';
export { admin, chatCompletions, countTokens, dashboard, healthz, hello, mcpServers, messages, metrics, models, readyz, responses, transcriptions };
