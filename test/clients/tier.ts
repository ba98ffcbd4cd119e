// What every client of the client tier shares: the cache folder each real client is installed into
// (pinned versions from the npm registry, never a dependency of the gateway), the loopback-only
// network namespace it runs in (`../shared/clients/loopback-netns.sh`), and the rule for what a
// test file does when the tier cannot run here (skip quietly, skip loudly, or fail under CI).
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { ROOT } from '../helpers/paths.js';
import type { SimRequestLog } from '../helpers/gateway.js';

export const CACHE_DIR = join(ROOT, '.cache', 'clients');
/** The namespace script: `../shared/clients/loopback-netns.sh` beside the clone, or GATEWAY_CLIENT_NETNS. */
export const NETNS = process.env.GATEWAY_CLIENT_NETNS || resolve(ROOT, '..', 'shared', 'clients', 'loopback-netns.sh');

/** CI=true (or any value but empty, `false` and `0`), as CI services set it. */
export function underCi(env: NodeJS.ProcessEnv): boolean {
  const ci = (env.CI ?? '').trim().toLowerCase();
  return ci !== '' && ci !== 'false' && ci !== '0';
}

/**
 * What the client tier does when it cannot run (`why`): outside `npm run test:clients` it skips
 * quietly (the normal `npm test`); asked for (GATEWAY_CLIENT_TIER=1) under CI it fails, since a skip
 * would look green while nothing ran; asked for elsewhere it skips, saying loudly why.
 */
export function tierVerdict(why: string | null, env: NodeJS.ProcessEnv): 'run' | 'skip' | 'skip-loudly' | 'fail' {
  if (why === null) return 'run';
  if (env.GATEWAY_CLIENT_TIER !== '1') return 'skip';
  return underCi(env) ? 'fail' : 'skip-loudly';
}

/** Why a loopback-only namespace cannot be made here, or null when it can. */
export function netnsProblem(): string | null {
  if (!existsSync(NETNS)) return `${NETNS} is missing`;
  const r = spawnSync('bash', [NETNS, 'true'], { encoding: 'utf8', timeout: 30_000 });
  if (r.status !== 0) return `${NETNS} does not work here (needs root and unshare): ${(r.stderr ?? '').trim() || r.error}`;
  return null;
}

/** The part of tap's `t` that gateTier uses (this file is also loaded outside tap, in the namespace). */
interface TapFile {
  fail(message: string): unknown;
  plan(n: number, comment?: string): unknown;
}

/**
 * Applies the verdict for `why` to a tap file `t` (named `client` in the messages): a failure under
 * CI, a loud banner on stderr when skipped on request (tap shows a skipped file as one quiet line),
 * a quiet plan of 0 otherwise. True when the file's tests should run.
 */
export function gateTier(t: TapFile, client: string, why: string | null): boolean {
  const verdict = tierVerdict(why, process.env);
  if (verdict === 'fail') {
    t.fail(`the ${client} client tier must run under CI (CI=${process.env.CI}), and cannot: ${why}`);
  } else if (verdict === 'skip-loudly') {
    const banner = `CLIENT TIER SKIPPED (${client}): nothing was tested, because ${why}. Under CI (CI=true) this is a failure.`;
    console.error(`\n${'!'.repeat(banner.length)}\n${banner}\n${'!'.repeat(banner.length)}\n`);
    t.plan(0, why!);
  } else if (verdict === 'skip') {
    t.plan(0, why!);
  }
  return verdict === 'run';
}

/** The usual preconditions of a client test file: asked for, and a namespace can be made. */
export function tierProblem(): string | null {
  if (process.env.GATEWAY_CLIENT_TIER !== '1') return 'the client tier runs with `npm run test:clients`';
  return netnsProblem();
}

export interface Install {
  /** the client's folder, `.cache/clients/<name>` (its node_modules holds the packages) */
  dir: string;
  /** why the packages are not there */
  reason?: string;
  /** true when this call ran npm install */
  installed: boolean;
  ms: number;
}

/** The installed version of `pkg` under `dir`, or undefined. */
export function installedVersion(dir: string, pkg: string): string | undefined {
  try {
    return (JSON.parse(readFileSync(join(dir, 'node_modules', pkg, 'package.json'), 'utf8')) as { version?: string }).version;
  } catch {
    return undefined;
  }
}

/**
 * Installs `packages` (name → exact version) into `.cache/clients/<name>` from the npm registry,
 * unless every one of them is there at that version already. One folder per client, so that one
 * client's dependencies (zod, openai, ...) never pick another's versions.
 */
export function ensureNpmClient(name: string, packages: Record<string, string>): Install {
  const started = Date.now();
  const dir = join(CACHE_DIR, name);
  const present = (): boolean => Object.entries(packages).every(([pkg, version]) => installedVersion(dir, pkg) === version);
  if (present()) return { dir, installed: false, ms: Date.now() - started };
  mkdirSync(dir, { recursive: true });
  const specs = Object.entries(packages).map(([pkg, version]) => `${pkg}@${version}`);
  const npm = spawnSync('npm', ['install', '--prefix', dir, '--no-save', '--no-package-lock', '--no-audit', '--no-fund', '--loglevel=error', ...specs], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 15 * 60_000,
  });
  if (present()) return { dir, installed: true, ms: Date.now() - started };
  const lines = (npm.stderr ?? '').trim().split('\n');
  const telling = lines.filter((l) => /^npm error (code|errno|network|request to|notarget|\d{3})/.test(l));
  const why = npm.error ? String(npm.error) : `npm exited ${npm.status}: ${(telling.length > 0 ? telling : lines.slice(-3)).slice(0, 4).join(' | ')}`;
  return { dir, reason: `${specs.join(' ')} could not be installed into ${dir} (${why})`, installed: true, ms: Date.now() - started };
}

/** Written into env values, arguments and files, replaced by the gateway's base URL (no path). */
export const GATEWAY_URL = '{{GATEWAY_URL}}';

export interface RunSpec {
  /** where the result goes */
  out: string;
  /** the gateway's configuration */
  config: Record<string, unknown>;
  bin: string;
  args: string[];
  /** the client's whole environment besides PATH, LANG and HOME */
  env: Record<string, string>;
  /** files written into the work folder before the run (relative path → text) */
  files?: Record<string, string>;
  timeoutS?: number;
}

/** What `netns-run.js` reports. */
export interface ClientRun {
  /** the command line as a user would type it inside the namespace */
  command: string;
  env: Record<string, string>;
  exit: number | null;
  signal: string | null;
  stdout: string;
  stderr: string;
  ms: number;
  gatewayUrl: string;
  /** the gateway's JSON log lines */
  gatewayLogs: Record<string, unknown>[];
  /** what the simulated provider received */
  sim: SimRequestLog[];
  /** the work folder's files after the run (relative path → text; files under 64 KiB) */
  files: Record<string, string>;
  error?: string;
}

/** Longest one client run may take inside the namespace (the runner wraps it in `timeout`). */
export const CLIENT_TIMEOUT_S = 120;

/**
 * Runs one client scenario in a fresh loopback-only namespace: `netns-run.js` starts bin/gateway
 * there with `spec.config`, runs the client command against it, and reports what happened.
 */
export function runInNamespace(spec: Omit<RunSpec, 'out'>): Promise<ClientRun> {
  const dir = mkdtempSync(join(tmpdir(), 'gw-client-'));
  const out = join(dir, 'result.json');
  const specFile = join(dir, 'spec.json');
  writeFileSync(specFile, JSON.stringify({ ...spec, out }));
  const timeoutS = spec.timeoutS ?? CLIENT_TIMEOUT_S;
  return new Promise((resolvePromise, reject) => {
    const child = spawn('bash', [NETNS, process.execPath, join(ROOT, 'dist', 'test', 'clients', 'netns-run.js'), specFile], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let log = '';
    child.stdout.on('data', (c: Buffer) => (log += c.toString()));
    child.stderr.on('data', (c: Buffer) => (log += c.toString()));
    const guard = setTimeout(() => child.kill('SIGKILL'), (timeoutS + 60) * 1000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(guard);
      try {
        resolvePromise(JSON.parse(readFileSync(out, 'utf8')) as ClientRun);
      } catch (err) {
        reject(new Error(`the runner (exit ${code}) left no result: ${String(err)}\n${log.slice(-3000)}`));
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  });
}
