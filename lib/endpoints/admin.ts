// /admin/v1/*: the admin API (decisions §12, lib/admin/). One endpoint for every path under the
// prefix: the admin credential first (so an unauthenticated caller learns nothing of the routes),
// then lib/admin/router.ts picks the operation. Answers and errors in the admin contract's JSON.
import { requireAdmin } from '../admin/credential.js';
import { readJson, replyError, replyJson } from '../admin/http.js';
import { checkQuery, matchAdmin } from '../admin/router.js';
import { GatewayError } from '../errors.js';
import { openAiDialect } from './dialects.js';
import type { EndpointDefinition } from './types.js';

export const ADMIN_PREFIX = '/admin/v1';

export const admin: EndpointDefinition = {
  method: '*',
  path: ADMIN_PREFIX,
  build: () => ({
    name: 'admin',
    dialect: openAiDialect,
    hooks: [],
    async handle(ctx, req, res) {
      try {
        const actor = `admin:${requireAdmin(ctx)}`;
        const { method, params } = matchAdmin(ctx.method, ctx.path);
        checkQuery(method, ctx.query);
        const body = method.body === true ? await readJson(req) : undefined;
        const { store, catalog, keysChanged } = ctx.services;
        const answer = await method.run({ store, catalog, actor, keysChanged }, { params, query: ctx.query, body });
        replyJson(res, ctx.responseHeaders, method.status ?? 200, answer);
      } catch (err) {
        // an unexpected error goes to the server, which logs it and answers 500
        if (!GatewayError.is(err)) throw err;
        replyError(res, ctx.responseHeaders, err);
        return err;
      }
    },
  }),
};
