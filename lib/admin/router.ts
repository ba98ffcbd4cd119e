// The admin API's routes under /admin/v1 (decisions §12): path patterns, the methods each serves,
// the query parameters each accepts (any other is a 400 naming it), and the operation it calls. An
// unknown path is 404 and a known path with another method 405 with `allow`, in the admin envelope.
import { errors } from '../errors/index.js';
import type { AdminContext } from './context.js';
import * as keys from './keys.js';
import * as orgs from './orgs.js';
import { addCredits } from './credits.js';
import { AUDIT_PARAMS, getAudit } from './audit.js';
import { getRequests, REQUESTS_PARAMS } from './requests.js';
import { getUsage, USAGE_PARAMS } from './usage.js';
import { oneParam } from './filters.js';

export interface AdminCall {
  /** the path's `{id}` segments, decoded */
  params: string[];
  query: URLSearchParams;
  body: unknown;
}

interface Method {
  run(ctx: AdminContext, call: AdminCall): Promise<unknown>;
  /** 201 for a creation */
  status?: number;
  /** query parameters accepted */
  query?: readonly string[];
  /** reads a JSON body */
  body?: boolean;
}

interface Route {
  pattern: RegExp;
  methods: Record<string, Method>;
}

const SEGMENT = '([^/]+)';
const route = (path: string, methods: Record<string, Method>): Route => ({ pattern: new RegExp(`^/admin/v1${path.replace(/\{\w+\}/g, SEGMENT)}$`), methods });

const ROUTES: readonly Route[] = [
  route('/orgs', {
    GET: { run: (ctx) => orgs.listOrgs(ctx) },
    POST: { run: (ctx, c) => orgs.createOrg(ctx, c.body), status: 201, body: true },
  }),
  route('/orgs/{id}', {
    GET: { run: (ctx, c) => orgs.getOrg(ctx, c.params[0]!) },
    PATCH: { run: (ctx, c) => orgs.updateOrg(ctx, c.params[0]!, c.body), body: true },
  }),
  route('/orgs/{id}/credits', { POST: { run: (ctx, c) => addCredits(ctx, c.params[0]!, c.body), body: true } }),
  route('/orgs/{id}/projects', {
    GET: { run: (ctx, c) => orgs.listProjects(ctx, c.params[0]!) },
    POST: { run: (ctx, c) => orgs.createProject(ctx, c.params[0]!, c.body), status: 201, body: true },
  }),
  route('/orgs/{id}/projects/{pid}/environments', {
    GET: { run: (ctx, c) => orgs.listEnvironments(ctx, c.params[0]!, c.params[1]!) },
    POST: { run: (ctx, c) => orgs.createEnvironment(ctx, c.params[0]!, c.params[1]!, c.body), status: 201, body: true },
  }),
  route('/keys', {
    GET: { run: (ctx, c) => keys.listKeys(ctx, { org: oneParam(c.query, 'org'), project: oneParam(c.query, 'project') }), query: ['org', 'project'] },
    POST: { run: (ctx, c) => keys.createKey(ctx, c.body), status: 201, body: true },
  }),
  route('/keys/{id}', {
    GET: { run: (ctx, c) => keys.getKey(ctx, c.params[0]!) },
    PATCH: { run: (ctx, c) => keys.updateKey(ctx, c.params[0]!, c.body), body: true },
    DELETE: { run: (ctx, c) => keys.revokeKey(ctx, c.params[0]!) },
  }),
  route('/usage', { GET: { run: (ctx, c) => getUsage(ctx, c.query), query: USAGE_PARAMS } }),
  route('/requests', { GET: { run: (ctx, c) => getRequests(ctx, c.query), query: REQUESTS_PARAMS } }),
  route('/audit', { GET: { run: (ctx, c) => getAudit(ctx, c.query), query: AUDIT_PARAMS } }),
];

export interface Matched {
  method: Method;
  params: string[];
}

/** The route for a method and path, or the 404 / 405 to answer. */
export function matchAdmin(method: string, path: string): Matched {
  for (const r of ROUTES) {
    const m = r.pattern.exec(path);
    if (m === null) continue;
    const found = r.methods[method];
    if (found === undefined) throw errors.methodNotAllowed(method, Object.keys(r.methods));
    let params: string[];
    try {
      params = m.slice(1).map((s) => decodeURIComponent(s));
    } catch {
      throw errors.adminRouteNotFound(method, path);
    }
    return { method: found, params };
  }
  throw errors.adminRouteNotFound(method, path);
}

/** Refuses query parameters the route does not take. */
export function checkQuery(method: Method, query: URLSearchParams): void {
  for (const name of query.keys()) {
    if (!(method.query ?? []).includes(name)) throw errors.adminFieldInvalid(name, `unknown query parameter${method.query?.length ? `; this route accepts ${method.query.join(', ')}` : ''}`);
  }
}
