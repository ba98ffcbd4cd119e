// GET /dashboard/…: the operator's dashboard (decisions §12), static files that `npm run build`
// compiles from dashboard/ into dist/dashboard/. The files need no credential: the page holds no
// data, it asks /admin/v1 with the admin key the operator signs in with.
//   - Only files under dist/dashboard/ with a known extension are served; anything else, and any
//     path that decodes to a dot segment, a backslash or a NUL, is 404 (URL parsing has already
//     removed literal and %2e dot segments; this catches %2f and %5c).
//   - The Content-Security-Policy allows only the page's own scripts, styles and requests: no inline
//     script or style, no other origin, no framing, no form posting anywhere.
//   - `no-cache` with an ETag: the file names carry no content hash, so the browser revalidates
//     (a 304 on loopback costs nothing) and never mixes a new page with an old cached module.
import { readFile, stat } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';
import { extname, join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { RequestContext } from '../context.js';
import { errors } from '../errors/index.js';
import { openAiDialect } from './dialects.js';
import type { EndpointDefinition } from './types.js';

/** dist/dashboard/, beside dist/lib/ where this file runs from */
export const DASHBOARD_DIR = fileURLToPath(new URL('../../dashboard/', import.meta.url));

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
};

export const DASHBOARD_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': DASHBOARD_CSP,
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
};

const PREFIX = '/dashboard';

/** The file a path names, relative to the dashboard folder, or null when it names none it may serve. */
export function dashboardFile(path: string): string | null {
  if (path === `${PREFIX}/`) return 'index.html';
  if (!path.startsWith(`${PREFIX}/`)) return null;
  let rel: string;
  try {
    rel = decodeURIComponent(path.slice(PREFIX.length + 1));
  } catch {
    return null;
  }
  if (rel.includes('\\') || rel.includes('\0')) return null;
  const segments = rel.split('/');
  // no empty, dot or hidden segment: nothing outside the folder, nothing it did not mean to publish
  if (segments.some((s) => s === '' || s.startsWith('.'))) return null;
  if (!(extname(rel) in CONTENT_TYPES)) return null;
  return segments.join(sep);
}

async function serveFile(ctx: RequestContext, res: ServerResponse, rel: string, headOnly: boolean): Promise<void> {
  const file = join(DASHBOARD_DIR, rel);
  // defence in depth: dashboardFile already refused every way out of the folder
  if (!file.startsWith(DASHBOARD_DIR)) throw errors.routeNotFound(ctx.method, ctx.path);
  const info = await stat(file).catch(() => null);
  if (info === null || !info.isFile()) throw errors.routeNotFound(ctx.method, ctx.path);
  const etag = `"${info.size.toString(16)}-${Math.floor(info.mtimeMs).toString(16)}"`;
  const headers = { ...ctx.responseHeaders, ...SECURITY_HEADERS, 'content-type': CONTENT_TYPES[extname(rel)]!, 'cache-control': 'no-cache', etag };
  if (ctx.headers['if-none-match'] === etag) {
    res.writeHead(304, headers);
    res.end();
    return;
  }
  const body = headOnly ? null : await readFile(file);
  res.writeHead(200, { ...headers, 'content-length': String(body?.length ?? info.size) });
  res.end(body ?? undefined);
}

/** '/dashboard' and every path under it (method '*': the route table's prefix endpoint), GET and HEAD. */
export const dashboard: EndpointDefinition = {
  method: '*',
  path: PREFIX,
  build: () => ({
    name: 'dashboard',
    dialect: openAiDialect,
    hooks: [],
    async handle(ctx, _req, res) {
      if (ctx.method !== 'GET' && ctx.method !== 'HEAD') throw errors.methodNotAllowed(ctx.method, ['GET', 'HEAD']);
      // '/dashboard' → '/dashboard/', so the page's relative URLs (app.js, ../admin/v1) resolve
      // under any prefix the gateway is mounted at
      if (ctx.path === PREFIX) {
        res.writeHead(308, { ...ctx.responseHeaders, location: 'dashboard/', 'content-length': '0' });
        res.end();
        return;
      }
      const rel = dashboardFile(ctx.path);
      if (rel === null) throw errors.routeNotFound(ctx.method, ctx.path);
      await serveFile(ctx, res, rel, ctx.method === 'HEAD');
    },
  }),
};
