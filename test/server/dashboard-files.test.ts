// The dashboard's files through bin/gateway (lib/endpoints/dashboard.ts): served without a key,
// with their content types, a strict Content-Security-Policy (no inline script anywhere in the
// page), revalidation by ETag; /dashboard redirects to /dashboard/ (under a library user's mount
// prefix too, where the page's relative URLs then find its files and /admin/v1); paths that leave
// the folder, hidden files, unknown extensions and missing files are 404; other methods 405.
// (The page itself, in a real browser: test/browser/dashboard.test.ts.)
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import { createGateway } from '../../lib/index.js';
import { baseConfig, startGateway, type RunningGateway } from '../helpers/gateway.js';

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** A request with the exact path given: fetch() and URL parsing would remove dot segments first. */
function raw(gw: RunningGateway, path: string, method = 'GET', headers: Record<string, string> = {}): Promise<Answer> {
  const { hostname, port } = new URL(gw.url);
  return new Promise((resolve, reject) => {
    const req = request({ host: hostname, port, path, method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

let gw: RunningGateway;
t.before(async () => {
  gw = await startGateway(baseConfig({ admin: { keys: ['sk-admin-dashboard-0001'] } }));
});
t.teardown(() => gw?.stop());

t.test('/dashboard redirects to /dashboard/, which is the page, served without a key', async (t) => {
  const redirect = await raw(gw, '/dashboard');
  t.equal(redirect.status, 308);
  t.equal(redirect.headers.location, 'dashboard/', 'relative: right under any mount prefix');
  const page = await raw(gw, '/dashboard/');
  t.equal(page.status, 200);
  t.equal(page.headers['content-type'], 'text/html; charset=utf-8');
  t.match(page.body, /<title>model-gateway · dashboard<\/title>/);
  t.match(page.body, /<label for="admin-key">Admin key<\/label>/, 'the sign-in field is labelled');
  const scripts = [...page.body.matchAll(/<script\b[^>]*>([\s\S]*?)<\/script>/g)];
  t.ok(scripts.length > 0, 'the page loads its script');
  for (const [tag, inner] of scripts) {
    t.match(tag, /src="[^":]+"/, 'every script is a file of its own, from this origin');
    t.equal(inner, '', 'no inline script');
  }
  t.notMatch(page.body, /\sstyle=|\son[a-z]+=|https?:\/\//, 'no inline style or handler, no other origin');
});

t.test('the start banner says where the dashboard is', async (t) => {
  const shown = () => gw.stderr.find((l) => l.startsWith('Dashboard: '));
  for (let i = 0; i < 40 && shown() === undefined; i++) await new Promise((r) => setTimeout(r, 50));
  t.equal(shown(), `Dashboard: ${gw.url}/dashboard (sign in with an admin key: admin.keys in the config, or GATEWAY_ADMIN_KEY)`);
});

t.test('content types, the CSP and the caching headers of each kind of file', async (t) => {
  const csp = (await raw(gw, '/dashboard/')).headers['content-security-policy'] as string;
  t.match(csp, /default-src 'none'/);
  t.match(csp, /script-src 'self'(;|$)/);
  t.match(csp, /style-src 'self'(;|$)/);
  t.match(csp, /connect-src 'self'/);
  t.match(csp, /frame-ancestors 'none'/);
  t.notMatch(csp, /unsafe-inline|unsafe-eval|\*/, 'nothing inline, no wildcard');
  for (const [path, type] of [
    ['/dashboard/index.html', 'text/html; charset=utf-8'],
    ['/dashboard/app.js', 'text/javascript; charset=utf-8'],
    ['/dashboard/chart.js', 'text/javascript; charset=utf-8'],
    ['/dashboard/style.css', 'text/css; charset=utf-8'],
  ]) {
    const r = await raw(gw, path!);
    t.equal(r.status, 200, path);
    t.equal(r.headers['content-type'], type, `${path} content type`);
    t.equal(r.headers['content-security-policy'], csp, `${path} CSP`);
    t.equal(r.headers['x-content-type-options'], 'nosniff');
    t.equal(r.headers['cache-control'], 'no-cache', 'revalidated: the names carry no content hash');
    const etag = r.headers.etag as string;
    t.match(etag, /^"[0-9a-f]+-[0-9a-f]+"$/);
    const again = await raw(gw, path!, 'GET', { 'if-none-match': etag });
    t.equal(again.status, 304, `${path} unchanged: 304`);
    t.equal(again.body, '');
  }
  const head = await raw(gw, '/dashboard/app.js', 'HEAD');
  t.equal(head.status, 200);
  t.ok(Number(head.headers['content-length']) > 0, 'HEAD gives the length');
  t.equal(head.body, '');
});

t.test('paths out of the folder, hidden files, unknown extensions and missing files are 404', async (t) => {
  for (const path of [
    '/dashboard/../package.json',
    '/dashboard/%2e%2e/%2e%2e/package.json',
    '/dashboard/..%2flib%2fendpoints%2fdashboard.js',
    '/dashboard/..%2F..%2Fdashboard%2Fstyle.css',
    '/dashboard/sub%2F..%2F..%2Flib%2Findex.js',
    '/dashboard/..%5clib%5cindex.js',
    '/dashboard/%2fetc%2fpasswd',
    '/dashboard//etc/passwd.css',
    '/dashboard/app.js%00.css',
    '/dashboard/.dashboard.tsbuildinfo',
    '/dashboard/%E0%A4%A',
    '/dashboard/missing.js',
    '/dashboard/app.ts',
    '/dashboardx/app.js',
  ]) {
    const r = await raw(gw, path);
    t.equal(r.status, 404, path);
    t.notMatch(r.body, /DASHBOARD_DIR|export |:root|root:/, `${path}: nothing of a file leaks`);
  }
  const post = await raw(gw, '/dashboard/app.js', 'POST');
  t.equal(post.status, 405);
  t.match(post.headers.allow, /GET/);
});

t.test('mounted under a prefix: the redirect and the page stay under it', async (t) => {
  const gateway = await createGateway({ store: 'sqlite::memory:', logLevel: 'silent', providers: [{ id: 'sim', protocol: 'anthropic', simulated: true }], models: [{ id: 'anthropic/claude-sonnet-5', deployments: [{ provider: 'sim', model: 'claude-sonnet-5' }], pricing: { input: 3, output: 15 } }] }, { prefix: '/llm' });
  const server = createServer((req, res) => {
    if (!gateway.handle(req, res)) res.writeHead(404).end('not the gateway');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(async () => {
    server.close();
    await gateway.close();
  });
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const page = await fetch(`${base}/llm/dashboard`);
  t.equal(page.status, 200);
  t.equal(new URL(page.url).pathname, '/llm/dashboard/', 'the relative redirect stays under the prefix');
  t.match(await page.text(), /src="app\.js"/);
  t.equal(new URL('../admin/v1/orgs', page.url).pathname, '/llm/admin/v1/orgs', 'where the page asks the admin API');
  t.equal((await fetch(`${base}/llm/dashboard/style.css`)).headers.get('content-type'), 'text/css; charset=utf-8');
});
