// The PostgreSQL store through the real bin/gateway: a database that cannot be reached or refuses
// the password stops the gateway at start with one line naming the URL without its password;
// replicas starting together migrate and seed once (advisory locks). Skipped when PostgreSQL is not installed (the
// default `npm test` stays runnable without it); `npm run test:postgres` runs it on its server.
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { baseConfig, startGateway } from '../helpers/gateway.js';
import { ROOT } from '../helpers/paths.js';
import { postgresBin, sharedPostgres } from '../helpers/postgres.js';
import { PG_MIGRATIONS } from '../../lib/store/pg/pg-migrations.js';

const PASSWORD = 'pw-never-logged-4711';

/** bin/gateway on `config`: its exit code, stdout and stderr (killed after 20 s). */
function runGateway(config: Record<string, unknown>): Promise<{ code: number | null; out: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'gw-pg-open-'));
  const file = join(dir, 'config.json');
  writeFileSync(file, JSON.stringify(config));
  const proc = spawn(process.execPath, [join(ROOT, 'dist/bin/gateway.js'), '--config', file, '--port', '0'], { cwd: dir });
  let out = '';
  proc.stdout.on('data', (b: Buffer) => (out += b.toString('utf8')));
  proc.stderr.on('data', (b: Buffer) => (out += b.toString('utf8')));
  const timer = setTimeout(() => proc.kill('SIGKILL'), 20_000);
  return new Promise((resolve) =>
    proc.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, out });
    }),
  );
}

async function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const srv = createServer().listen(0, '127.0.0.1', () => {
      const port = (srv.address() as { port: number }).port;
      srv.close(() => resolve(port));
    });
  });
}

t.test('an unreachable database: one start-up line naming the URL without its password', async (t) => {
  const port = await closedPort();
  const { code, out } = await runGateway({ ...baseConfig(), store: `postgres://gw:${PASSWORD}@127.0.0.1:${port}/gateway` });
  t.equal(code, 1, 'exit 1');
  t.match(out, new RegExp(`cannot open postgres://gw:\\*\\*\\*@127\\.0\\.0\\.1:${port}/gateway: .*ECONNREFUSED`), 'names the URL, the password hidden, and the reason');
  t.match(out, /PostgreSQL .* is running and reachable/, 'says what to check');
  t.notMatch(out, PASSWORD, 'the password is never printed');
  t.notMatch(out, /\n\s+at /, 'no stack trace');
});

const skip = postgresBin() === null ? 'PostgreSQL is not installed' : false;

t.test('with a PostgreSQL server', { skip }, async (t) => {
  const pg = await sharedPostgres();
  t.teardown(() => pg.stop());

  t.test('a wrong password is refused at start, the password never printed', async (t) => {
    const url = new URL(pg.createDatabase());
    url.password = PASSWORD;
    const { code, out } = await runGateway({ ...baseConfig(), store: url.toString() });
    t.equal(code, 1);
    t.match(out, /password authentication failed/);
    t.match(out, /user or password in `store` is refused/);
    t.notMatch(out, PASSWORD);
  });

  t.test('replicas starting together migrate once', async (t) => {
    const url = pg.createDatabase();
    const replicas = await Promise.all([startGateway({ ...baseConfig(), store: url }), startGateway({ ...baseConfig(), store: url })]);
    t.teardown(async () => {
      for (const r of replicas) await r.stop('SIGKILL');
    });
    t.same(pg.query(url, 'SELECT version FROM gateway_migrations ORDER BY version'), PG_MIGRATIONS.map((_, i) => ({ version: i + 1 })), 'each migration applied once');
    t.same(pg.query(url, 'SELECT count(*)::int AS n FROM keys'), [{ n: 1 }], 'seeded once');
  });
});
