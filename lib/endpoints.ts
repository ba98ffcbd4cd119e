// Every endpoint in one place: its dialect, its hooks (checks that need no body, in order) and its
// chain of stages, or a small handler for the helper routes (the fastify hooks-array idea).
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { DialectName } from './chunks.js';
import type { Config, Scope } from './config.js';
import type { EndpointName, RequestContext } from './context.js';
import { GatewayError } from './errors.js';
import { authenticate, requireScope } from './auth.js';
import { Chain } from './pipeline.js';
import { validateMessagesHeaders, validateMessagesQuery } from './dialects/index.js';
import { buildMessagesChain, buildCountTokensChain, buildChatChain, buildResponsesChain } from './chains.js';
import { requireJsonContentType } from './openai/headers.js';
import { listModels } from './routes/models.js';
import { listMcpServers } from './routes/mcp-servers.js';
import { buildTranscriptionChain } from './transcription-chain.js';

export type Hook = (ctx: RequestContext) => void;

export interface Endpoint {
  name: EndpointName;
  /** the client's dialect: decides error envelopes (a function: /v1/models depends on headers) */
  dialect: (req: IncomingMessage) => DialectName;
  before: readonly Hook[];
  chain?: Chain<Buffer, string | Buffer>;
  handle?: (ctx: RequestContext, req: IncomingMessage, res: ServerResponse) => void | Promise<void>;
}

const anthropicDialect = (): DialectName => 'anthropic';
const openAiDialect = (): DialectName => 'openai-chat';
/** Requests that carry `anthropic-version` (or target the Messages family) get the Messages envelope. */
const byHeaders = (req: IncomingMessage): DialectName => (req.headers['anthropic-version'] !== undefined || (req.url ?? '').startsWith('/v1/messages') ? 'anthropic' : 'openai-chat');

const auth: Hook = (ctx) => {
  authenticate(ctx);
};
const scope =
  (s: Scope): Hook =>
  (ctx) =>
    requireScope(ctx, s);
const jsonContentType: Hook = (ctx) => requireJsonContentType(ctx.rawHeaders);
const messagesQuery: Hook = (ctx) => validateMessagesQuery(ctx.query);
const messagesHeaders =
  (requireContentType: boolean): Hook =>
  (ctx) => {
    ctx.anthropic = validateMessagesHeaders(ctx.rawHeaders, ['2023-06-01', ...(ctx.config.anthropicVersions ?? [])], { requireContentType });
  };

function notFound(): Endpoint {
  return {
    name: 'not_found',
    dialect: byHeaders,
    before: [],
    handle(ctx) {
      throw new GatewayError('GW_ERR_NOT_FOUND', `No route for ${ctx.method} ${ctx.path}. The gateway serves /v1/messages, /v1/chat/completions, /v1/responses, /v1/audio/transcriptions and /v1/models.`);
    },
  };
}

/** The route table of one configuration: each gateway state has its own (a reload builds a new one). */
export interface Routes {
  exact: Map<string, Map<string, Endpoint>>;
  storedResponses: RegExp;
}

function methodNotAllowed(allowed: string[], dialect: Endpoint['dialect']): Endpoint {
  return {
    name: 'not_found',
    dialect,
    before: [],
    handle(ctx) {
      throw new GatewayError('GW_ERR_METHOD_NOT_ALLOWED', `${ctx.method} is not allowed here; use ${allowed.join(' or ')}.`, { headers: { allow: allowed.join(', ') } });
    },
  };
}

export function buildEndpoints(config: Config): Routes {
  const exact = new Map<string, Map<string, Endpoint>>();
  const add = (method: string, path: string, e: Endpoint): void => {
    if (!exact.has(path)) exact.set(path, new Map());
    exact.get(path)!.set(method, e);
  };
  add('HEAD', '/api/hello', {
    name: 'hello',
    dialect: anthropicDialect,
    before: [],
    handle(ctx, _req, res) {
      res.writeHead(204, ctx.response.headers);
      res.end();
      ctx.outcome = { status: 204 };
    },
  });
  add('GET', '/v1/models', { name: 'models', dialect: byHeaders, before: [auth], handle: (ctx, _req, res) => listModels(ctx, res) });
  add('GET', '/v1/mcp_servers', {
    name: 'mcp_servers',
    dialect: anthropicDialect,
    before: [auth, messagesHeaders(false), scope('messages')],
    handle: (ctx, _req, res) => listMcpServers(ctx, res),
  });
  add('POST', '/v1/messages', {
    name: 'messages',
    dialect: anthropicDialect,
    before: [messagesQuery, auth, messagesHeaders(true), scope('messages')],
    chain: buildMessagesChain(config),
  });
  add('POST', '/v1/messages/count_tokens', {
    name: 'messages.count_tokens',
    dialect: anthropicDialect,
    before: [messagesQuery, auth, messagesHeaders(true), scope('messages')],
    chain: buildCountTokensChain(config),
  });
  add('POST', '/v1/chat/completions', {
    name: 'chat.completions',
    dialect: openAiDialect,
    before: [auth, scope('chat.completions'), jsonContentType],
    chain: buildChatChain(config),
  });
  add('POST', '/v1/audio/transcriptions', {
    name: 'audio.transcriptions',
    dialect: openAiDialect,
    before: [auth, scope('audio.transcriptions')],
    chain: buildTranscriptionChain(config),
  });
  add('POST', '/v1/responses', {
    name: 'responses',
    dialect: () => 'openai-responses',
    before: [auth, scope('responses'), jsonContentType],
    chain: buildResponsesChain(config),
  });
  return { exact, storedResponses: /^\/v1\/responses\/(compact|[^/]+(\/input_items|\/cancel)?)$/ };
}

const storedResponses: Endpoint = {
  name: 'responses',
  dialect: openAiDialect,
  before: [],
  handle() {
    throw new GatewayError(
      'GW_ERR_STORED_RESPONSES_UNSUPPORTED',
      'This gateway is stateless: responses are never stored, so they cannot be retrieved, listed, cancelled, deleted or compacted. Send the whole conversation in `input` on every POST /v1/responses.',
    );
  },
};

export function matchEndpoint(routes: Routes, method: string, path: string): Endpoint {
  const byMethod = routes.exact.get(path);
  if (byMethod) {
    const e = byMethod.get(method);
    if (e) return e;
    const first = byMethod.values().next().value as Endpoint;
    return methodNotAllowed([...byMethod.keys()], first.dialect);
  }
  if (routes.storedResponses.test(path)) return storedResponses;
  return notFound();
}
