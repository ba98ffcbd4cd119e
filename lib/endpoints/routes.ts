// The route table of one configuration, built from an endpoint table: exact method + path matches,
// an endpoint that serves every path under its own (method '*': the admin API routes within it),
// 405 with `allow` for a known path, the stored-response routes this stateless gateway refuses,
// and 404 for everything else.
import type { Config } from '../config.js';
import { errors } from '../errors/index.js';
import { byHeaders, openAiDialect } from './dialects.js';
import { auth, scope } from './hooks.js';
import type { Endpoint, EndpointTable } from './types.js';

/** The route table of one configuration: each gateway state has its own (a reload builds a new one). */
export interface Routes {
  /** the endpoint table it was built from (a reload builds the new configuration's routes from it) */
  readonly table: EndpointTable;
  readonly exact: Map<string, Map<string, Endpoint>>;
  /** endpoints serving every method and every path under a prefix, by prefix */
  readonly prefixes: readonly (readonly [string, Endpoint])[];
  readonly storedResponses: RegExp;
}

const notFound: Endpoint = {
  name: 'not_found',
  dialect: byHeaders,
  hooks: [],
  handle(ctx) {
    throw errors.routeNotFound(ctx.method, ctx.path);
  },
};

function methodNotAllowed(allowed: string[], dialect: Endpoint['dialect']): Endpoint {
  return {
    name: 'not_found',
    dialect,
    hooks: [],
    handle(ctx) {
      throw errors.methodNotAllowed(ctx.method, allowed);
    },
  };
}

// Authenticated and scoped like POST /v1/responses before the spec's 400: without a valid key
// the answer is 401, so the routes tell an unauthenticated caller nothing (issue #18).
const storedResponses: Endpoint = {
  name: 'responses',
  dialect: openAiDialect,
  hooks: [auth, scope('responses')],
  handle() {
    throw errors.storedResponsesUnsupported();
  },
};

export function buildRoutes(table: EndpointTable, config: Config): Routes {
  const exact = new Map<string, Map<string, Endpoint>>();
  const prefixes: [string, Endpoint][] = [];
  for (const def of table) {
    if (def.method === '*') {
      prefixes.push([def.path, def.build(config)]);
      continue;
    }
    if (!exact.has(def.path)) exact.set(def.path, new Map());
    exact.get(def.path)!.set(def.method, def.build(config));
  }
  return { table, exact, prefixes, storedResponses: /^\/v1\/responses\/(compact|[^/]+(\/input_items|\/cancel)?)$/ };
}

export function matchEndpoint(routes: Routes, method: string, path: string): Endpoint {
  const byMethod = routes.exact.get(path);
  if (byMethod) {
    const e = byMethod.get(method);
    if (e) return e;
    const first = byMethod.values().next().value as Endpoint;
    return methodNotAllowed([...byMethod.keys()], first.dialect);
  }
  for (const [prefix, e] of routes.prefixes) if (path === prefix || path.startsWith(`${prefix}/`)) return e;
  if (routes.storedResponses.test(path)) return storedResponses;
  return notFound;
}
