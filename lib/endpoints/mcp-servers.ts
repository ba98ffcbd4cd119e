// GET /v1/mcp_servers: checked like a Messages request; the gateway hosts no MCP servers (lib/routes/mcp-servers.ts).
import { listMcpServers } from '../routes/mcp-servers.js';
import { anthropicDialect } from './dialects.js';
import { auth, messagesHeaders, scope } from './hooks.js';
import type { EndpointDefinition } from './types.js';

export const mcpServers: EndpointDefinition = {
  method: 'GET',
  path: '/v1/mcp_servers',
  build: () => ({ name: 'mcp_servers', dialect: anthropicDialect, hooks: [auth, messagesHeaders(false), scope('messages')], handle: (ctx, _req, res) => listMcpServers(ctx, res) }),
};
