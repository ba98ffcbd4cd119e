// The route table of one configuration, built from an endpoint table: exact method + path matches,
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
  /** the endpoints that also answer below their path: '/dashboard' → its methods, matched as '/dashboard/…' */
  readonly subtrees: Map<string, Map<string, Endpoint>>;
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
  const subtrees = new Map<string, Map<string, Endpoint>>();
  for (const def of table) {
    if (!exact.has(def.path)) exact.set(def.path, new Map());
    const endpoint = def.build(config);
    exact.get(def.path)!.set(def.method, endpoint);
    if (def.subtree === true) {
      if (!subtrees.has(def.path)) subtrees.set(def.path, new Map());
      subtrees.get(def.path)!.set(def.method, endpoint);
    }
  }
  return { table, exact, subtrees, storedResponses: /^\/v1\/responses\/(compact|[^/]+(\/input_items|\/cancel)?)$/ };
}

/** The methods of the subtree endpoint whose path is a parent of `path` ('/dashboard' for '/dashboard/app.js'). */
function subtreeOf(routes: Routes, path: string): Map<string, Endpoint> | undefined {
  if (routes.subtrees.size === 0) return undefined;
  for (const [prefix, byMethod] of routes.subtrees) if (path.startsWith(prefix) && path[prefix.length] === '/') return byMethod;
  return undefined;
}

export function matchEndpoint(routes: Routes, method: string, path: string): Endpoint {
  const byMethod = routes.exact.get(path) ?? subtreeOf(routes, path);
  if (byMethod) {
    const e = byMethod.get(method);
    if (e) return e;
    const first = byMethod.values().next().value as Endpoint;
    return methodNotAllowed([...byMethod.keys()], first.dialect);
  }
  if (routes.storedResponses.test(path)) return storedResponses;
  return notFound;
}
