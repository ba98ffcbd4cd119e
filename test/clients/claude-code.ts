// Claude Code for the client tier: installs `@anthropic-ai/claude-code` into a cache folder (not a
// dependency of the gateway: the native binary is ~380 MB), finds its native binary, and runs one
// scenario inside a loopback-only network namespace (`../shared/clients/loopback-netns.sh`), where
// `claude-code-run.js` starts bin/gateway and then `claude -p` against it.
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, readSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { ROOT } from '../helpers/paths.js';

export const CLAUDE_CODE_VERSION = '2.1.330';
export const CACHE_DIR = join(ROOT, '.cache', 'clients');
/** The namespace script: `../shared/clients/loopback-netns.sh` beside the clone, or GATEWAY_CLIENT_NETNS. */
export const NETNS = process.env.GATEWAY_CLIENT_NETNS || resolve(ROOT, '..', 'shared', 'clients', 'loopback-netns.sh');
/** Longest one `claude -p` run may take (the runner wraps it in `timeout`). */
export const CLAUDE_TIMEOUT_S = 120;

const PKG_DIR = join(CACHE_DIR, 'node_modules', '@anthropic-ai', 'claude-code');

function platformPackage(): string {
  const musl = process.platform === 'linux' && !(process.report?.getReport() as { header?: { glibcVersionRuntime?: string } } | undefined)?.header?.glibcVersionRuntime;
  return `@anthropic-ai/claude-code-${process.platform}-${process.arch}${musl ? '-musl' : ''}`;
}

function isElf(file: string): boolean {
  try {
    if (statSync(file).size < 1_000_000) return false;
    const fd = openSync(file, 'r');
    const b = Buffer.alloc(4);
    readSync(fd, b, 0, 4, 0);
    closeSync(fd);
    return b.equals(Buffer.from([0x7f, 0x45, 0x4c, 0x46]));
  } catch {
    return false;
  }
}

/** `claude --version` prints "2.1.330 (Claude Code)"; true when this binary runs and is that version. */
function runs(bin: string): boolean {
  const r = spawnSync(bin, ['--version'], { encoding: 'utf8', timeout: 30_000, env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: tmpdir() } });
  return r.status === 0 && r.stdout.includes(CLAUDE_CODE_VERSION);
}

/**
 * The native binary, or null. npm 11 may skip the package's postinstall (`install.cjs`, which puts
 * the platform binary over the `bin/claude.exe` placeholder) when install scripts are not allowed;
 * then it is run here, and failing that the platform package's binary is used directly.
 */
function locateBinary(): string | null {
  const wrapper = join(PKG_DIR, 'bin', 'claude.exe');
  if (!existsSync(join(PKG_DIR, 'package.json'))) return null;
  const version = (JSON.parse(readFileSync(join(PKG_DIR, 'package.json'), 'utf8')) as { version?: string }).version;
  if (version !== CLAUDE_CODE_VERSION) return null;
  if (!isElf(wrapper)) spawnSync(process.execPath, ['install.cjs'], { cwd: PKG_DIR, stdio: 'ignore', timeout: 120_000 });
  const candidates = [wrapper, join(CACHE_DIR, 'node_modules', platformPackage(), 'claude')];
  for (const bin of candidates) {
    if (!isElf(bin)) continue;
    if ((statSync(bin).mode & 0o111) === 0) chmodSync(bin, 0o755);
    if (runs(bin)) return bin;
  }
  return null;
}

export interface Install {
  bin: string | null;
  /** why there is no binary */
  reason?: string;
  /** true when this call ran npm install */
  installed: boolean;
  ms: number;
}

/** Installs Claude Code into `.cache/clients` unless a working copy of the right version is there. */
export function ensureClaudeCode(): Install {
  const started = Date.now();
  const present = locateBinary();
  if (present) return { bin: present, installed: false, ms: Date.now() - started };
  mkdirSync(CACHE_DIR, { recursive: true });
  const npm = spawnSync(
    'npm',
    ['install', '--prefix', CACHE_DIR, '--no-save', '--no-package-lock', '--no-audit', '--no-fund', '--loglevel=error', `@anthropic-ai/claude-code@${CLAUDE_CODE_VERSION}`],
    { cwd: ROOT, encoding: 'utf8', timeout: 15 * 60_000 },
  );
  const bin = locateBinary();
  if (bin) return { bin, installed: true, ms: Date.now() - started };
  const lines = (npm.stderr ?? '').trim().split('\n');
  const telling = lines.filter((l) => /^npm error (code|errno|network|request to|notarget|\d{3})/.test(l));
  const why = npm.error ? String(npm.error) : `npm exited ${npm.status}: ${(telling.length > 0 ? telling : lines.slice(-3)).slice(0, 4).join(' | ')}`;
  return { bin: null, reason: `@anthropic-ai/claude-code@${CLAUDE_CODE_VERSION} could not be installed into ${CACHE_DIR} (${why})`, installed: true, ms: Date.now() - started };
}

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

export interface Scenario {
  /** extra `claude` arguments, e.g. ['--model', 'openai/gpt-5'] */
  args: string[];
  prompt: string;
}

export interface SimCall {
  method: string;
  path: string;
  query?: string;
  headers: Record<string, string | string[] | undefined>;
  body: Record<string, unknown>;
}

/** What `claude-code-run.js` reports. */
export interface RunResult {
  /** the exact command line, as a user would type it inside the namespace */
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
  sim: SimCall[];
  error?: string;
}

/** Runs one scenario in a fresh loopback-only namespace: gateway and claude both inside it. */
export function runScenario(bin: string, scenario: Scenario): Promise<RunResult> {
  const dir = mkdtempSync(join(tmpdir(), 'gw-cc-'));
  const out = join(dir, 'result.json');
  const spec = JSON.stringify({ bin, out, ...scenario });
  return new Promise((resolvePromise, reject) => {
    const child = spawn('bash', [NETNS, process.execPath, join(ROOT, 'dist', 'test', 'clients', 'claude-code-run.js'), spec], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let log = '';
    child.stdout.on('data', (c: Buffer) => (log += c.toString()));
    child.stderr.on('data', (c: Buffer) => (log += c.toString()));
    const guard = setTimeout(() => child.kill('SIGKILL'), (CLAUDE_TIMEOUT_S + 60) * 1000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(guard);
      try {
        resolvePromise(JSON.parse(readFileSync(out, 'utf8')) as RunResult);
      } catch (err) {
        reject(new Error(`the runner (exit ${code}) left no result: ${String(err)}\n${log.slice(-3000)}`));
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  });
}
