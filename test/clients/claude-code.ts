// Claude Code for the client tier: installs `@anthropic-ai/claude-code` into `.cache/clients/claude-code`
// (not a dependency of the gateway: the native binary is ~380 MB), finds its native binary, and runs
// one `claude -p` scenario inside a loopback-only network namespace (tier.ts `runInNamespace`, where
// `netns-run.js` starts bin/gateway and then claude against it).
import { spawnSync } from 'node:child_process';
import { chmodSync, closeSync, existsSync, openSync, readSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TEST_KEY } from '../helpers/gateway.js';
import { clientsConfig } from './config.js';
import { ensureNpmClient, GATEWAY_URL, installedVersion, runInNamespace, type ClientRun } from './tier.js';

// the tier's shared parts, from where they used to be
export { CACHE_DIR, NETNS, netnsProblem, tierVerdict, underCi } from './tier.js';

export const CLAUDE_CODE_VERSION = '2.1.330';
/** Longest one `claude -p` run may take (the runner wraps it in `timeout`). */
export const CLAUDE_TIMEOUT_S = 120;

const PACKAGE = '@anthropic-ai/claude-code';

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
function locateBinary(dir: string): string | null {
  const pkgDir = join(dir, 'node_modules', PACKAGE);
  const wrapper = join(pkgDir, 'bin', 'claude.exe');
  if (installedVersion(dir, PACKAGE) !== CLAUDE_CODE_VERSION) return null;
  if (!isElf(wrapper) && existsSync(join(pkgDir, 'install.cjs'))) spawnSync(process.execPath, ['install.cjs'], { cwd: pkgDir, stdio: 'ignore', timeout: 120_000 });
  const candidates = [wrapper, join(dir, 'node_modules', platformPackage(), 'claude')];
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

/** Installs Claude Code into `.cache/clients/claude-code` unless the right version is there. */
export function ensureClaudeCode(): Install {
  const inst = ensureNpmClient('claude-code', { [PACKAGE]: CLAUDE_CODE_VERSION });
  if (inst.reason) return { bin: null, reason: inst.reason, installed: inst.installed, ms: inst.ms };
  const bin = locateBinary(inst.dir);
  if (bin) return { bin, installed: inst.installed, ms: inst.ms };
  return { bin: null, reason: `no working claude ${CLAUDE_CODE_VERSION} binary under ${inst.dir}`, installed: inst.installed, ms: inst.ms };
}

export interface Scenario {
  /** extra `claude` arguments, e.g. ['--model', 'openai/gpt-5'] */
  args: string[];
  prompt: string;
  /** the gateway's config; default clientsConfig() */
  config?: Record<string, unknown>;
}

export type { SimRequestLog as SimCall } from '../helpers/gateway.js';
/** What one run reports (tier.ts). */
export type RunResult = ClientRun;

/**
 * Runs `claude -p <prompt> --allowedTools Bash <args>` in a fresh loopback-only namespace against
 * bin/gateway: only ANTHROPIC_BASE_URL and ANTHROPIC_API_KEY point it at the gateway, plus the
 * variables that keep it off the network.
 */
export function runScenario(bin: string, scenario: Scenario): Promise<RunResult> {
  return runInNamespace({
    config: scenario.config ?? clientsConfig(),
    bin,
    args: ['-p', scenario.prompt, '--allowedTools', 'Bash', ...scenario.args],
    env: {
      ANTHROPIC_BASE_URL: GATEWAY_URL,
      ANTHROPIC_API_KEY: TEST_KEY,
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      DISABLE_TELEMETRY: '1',
      DISABLE_ERROR_REPORTING: '1',
      DISABLE_AUTOUPDATER: '1',
    },
    timeoutS: CLAUDE_TIMEOUT_S,
  });
}
