// A real PostgreSQL server for tests, from Debian's packages (/usr/lib/postgresql/<v>/bin, or
// GATEWAY_PG_BIN): initdb into a temp dir, `postgres` on a free loopback port (TCP on 127.0.0.1
// only, its socket in the same dir), password authentication for the user `gateway`, stopped (and
// the dir removed) by `stop()`. PostgreSQL refuses to run as root: when the tests run as root (CI
// containers do), initdb and postgres run as `nobody` through runuser, in a dir nobody owns.
//
//   const pg = await startPostgres();          // one server
//   const url = pg.createDatabase();           // a fresh database on it (synchronous: psql)
//   pg.query(url, 'SELECT ...')                // rows as JSON objects (synchronous: psql)
//   await pg.stop();
//
// `GATEWAY_TEST_PG_URL` (set by test/helpers/postgres-tier.ts for `npm run test:postgres`) names a
// server already running: `sharedPostgres()` then uses it instead of starting one.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';

export const PG_URL_ENV = 'GATEWAY_TEST_PG_URL';
/** `postgres` runs the store-parametrised tests on PostgreSQL (GATEWAY_TEST_PG_URL names the server) */
export const STORE_ENV = 'GATEWAY_TEST_STORE';

export interface PgServer {
  /** admin URL (database `postgres`) */
  url: string;
  /** the server's process (runuser's when started as root), whose descendants are the backends; 0 when not ours */
  pid: number;
  /** creates an empty database and returns its URL */
  createDatabase(name?: string): string;
  /** runs SQL on a database URL and returns its rows (JSON-decoded) */
  query<R = Record<string, unknown>>(url: string, sql: string): R[];
  stop(): Promise<void>;
}

/** Whether the store-parametrised tests run on PostgreSQL in this process. */
export function testStoreIsPostgres(env: NodeJS.ProcessEnv = process.env): boolean {
  return env[STORE_ENV] === 'postgres';
}

/** The folder of PostgreSQL's programs, or null when none is installed. */
export function postgresBin(env: NodeJS.ProcessEnv = process.env): string | null {
  if (env.GATEWAY_PG_BIN) return env.GATEWAY_PG_BIN;
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return null;
  const versions = readdirSync(root)
    .map(Number)
    .filter((v) => v >= 15)
    .sort((a, b) => b - a);
  return versions.length > 0 ? join(root, String(versions[0]), 'bin') : null;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as { port: number }).port;
      srv.close(() => resolve(port));
    });
  });
}

function psql(bin: string, url: string, sql: string): string {
  return execFileSync(join(bin, 'psql'), ['-X', '-q', '-At', '-v', 'ON_ERROR_STOP=1', '-d', url, '-c', sql], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

function queryRows<R>(bin: string, url: string, sql: string): R[] {
  const out = psql(bin, url, `SELECT coalesce(json_agg(t), '[]'::json) FROM (${sql}) t`).trim();
  return JSON.parse(out) as R[];
}

function client(bin: string, admin: string, stop: () => Promise<void>, pid = 0): PgServer {
  let n = 0;
  return {
    url: admin,
    pid,
    createDatabase(name = `gw_${process.pid}_${++n}_${randomBytes(3).toString('hex')}`) {
      psql(bin, admin, `CREATE DATABASE ${name}`);
      const u = new URL(admin);
      u.pathname = `/${name}`;
      return u.toString();
    },
    query: <R>(url: string, sql: string) => queryRows<R>(bin, url, sql),
    stop,
  };
}

/** A synchronous client of a running server (its admin URL); `stop()` leaves the server running. */
export function connectTo(admin: string): PgServer {
  const bin = postgresBin();
  if (bin === null) throw new Error('PostgreSQL is not installed (apt-get install postgresql), or set GATEWAY_PG_BIN');
  return client(bin, admin, async () => undefined);
}

/** The server GATEWAY_TEST_PG_URL names (left running), or a new one stopped at `stop()`. */
export async function sharedPostgres(): Promise<PgServer> {
  const url = process.env[PG_URL_ENV];
  const bin = postgresBin();
  if (bin === null) throw new Error('PostgreSQL is not installed (apt-get install postgresql), or set GATEWAY_PG_BIN');
  if (url) return client(bin, url, async () => undefined);
  return startPostgres();
}

export interface StartOptions {
  /** extra `-c name=value` settings; the default turns fsync off (tests do not survive power loss) */
  settings?: Record<string, string>;
}

export async function startPostgres(opts: StartOptions = {}): Promise<PgServer> {
  const bin = postgresBin();
  if (bin === null) throw new Error('PostgreSQL is not installed (apt-get install postgresql), or set GATEWAY_PG_BIN');
  const dir = mkdtempSync(join(tmpdir(), 'gw-pg-'));
  const asRoot = process.getuid?.() === 0;
  // postgres refuses root: run it as nobody, in a dir nobody owns
  const run = (cmd: string, args: string[]): [string, string[]] => (asRoot ? ['runuser', ['-u', 'nobody', '--', cmd, ...args]] : [cmd, args]);
  if (asRoot) chownSync(dir, 65534, 65534);
  const password = randomBytes(12).toString('hex');
  const pwfile = join(dir, 'pw');
  writeFileSync(pwfile, `${password}\n`, { mode: 0o600 });
  if (asRoot) chownSync(pwfile, 65534, 65534);
  const data = join(dir, 'data');
  const [initCmd, initArgs] = run(join(bin, 'initdb'), ['-D', data, '-U', 'gateway', '--auth=scram-sha-256', `--pwfile=${pwfile}`, '-E', 'UTF8', '--no-locale', '--no-sync']);
  execFileSync(initCmd, initArgs, { stdio: ['ignore', 'ignore', 'pipe'] });
  const port = await freePort();
  const settings = { fsync: 'off', synchronous_commit: 'off', full_page_writes: 'off', max_connections: '200', ...opts.settings };
  const args = ['-D', data, '-p', String(port), '-k', dir, '-c', 'listen_addresses=127.0.0.1'];
  for (const [k, v] of Object.entries(settings)) args.push('-c', `${k}=${v}`);
  const [cmd, cmdArgs] = run(join(bin, 'postgres'), args);
  const proc: ChildProcess = spawn(cmd, cmdArgs, { stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  proc.stderr!.on('data', (d: Buffer) => {
    log = (log + d.toString('utf8')).slice(-4000);
  });
  const admin = `postgres://gateway:${password}@127.0.0.1:${port}/postgres`;
  const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
  const stop = async (): Promise<void> => {
    // The spawned process may be runuser, which does not pass signals on to the postmaster it
    // started (killing runuser left the server running, orphaned): signal the postmaster itself,
    // by the pid it wrote in its data dir, and wait until its port refuses connections.
    const postmaster = postmasterPid(data) ?? proc.pid;
    if (postmaster !== undefined && alive(postmaster)) {
      // fast shutdown: disconnect clients, stop
      process.kill(postmaster, 'SIGINT');
      if (!(await portClosed(port, 10_000)) && alive(postmaster)) process.kill(postmaster, 'SIGKILL');
    }
    await Promise.race([exited, new Promise((r) => setTimeout(r, 5_000))]);
    if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL');
    await portClosed(port, 5_000);
    rmSync(dir, { recursive: true, force: true });
  };
  const end = Date.now() + 30_000;
  for (;;) {
    try {
      psql(bin, admin, 'SELECT 1');
      break;
    } catch (err) {
      if (proc.exitCode !== null || Date.now() > end) {
        await stop();
        throw new Error(`PostgreSQL did not start: ${log || String(err)}`);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  return client(bin, admin, stop, proc.pid ?? 0);
}

/** The postmaster's pid, from the first line of `postmaster.pid` in its data dir. */
function postmasterPid(data: string): number | undefined {
  try {
    const pid = Number(readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n')[0]);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** True once nothing accepts connections on 127.0.0.1:`port`; false if still open after `ms`. */
async function portClosed(port: number, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    const open = await new Promise<boolean>((resolve) => {
      const sock = connect({ host: '127.0.0.1', port });
      sock.once('connect', () => {
        sock.destroy();
        resolve(true);
      });
      sock.once('error', () => resolve(false));
    });
    if (!open) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return false;
}
