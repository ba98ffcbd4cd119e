// Codex for the client tier: installs `@openai/codex` into its own cache folder (not a dependency of
// the gateway: the native binary is ~290 MB; its own prefix, so installing it never prunes Claude
// Code's), finds the native binary, and runs one scenario inside a loopback-only network namespace
// (`../shared/clients/loopback-netns.sh`), where `codex-run.js` starts bin/gateway and then
// `codex exec` against it. What points Codex at the gateway (config.toml, the model catalog that
// gives a gateway model Codex's own apply_patch tool) is written by `codexHome`.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from '../helpers/paths.js';
import { CACHE_DIR, NETNS, type SimCall } from './claude-code.js';

export const CODEX_VERSION = '0.169.0';
export const CODEX_DIR = join(CACHE_DIR, 'codex');
/** Longest one `codex exec` run may take (the runner wraps it in `timeout`). */
export const CODEX_TIMEOUT_S = 120;

const TRIPLES: Readonly<Record<string, string>> = {
  'linux-x64': 'x86_64-unknown-linux-musl',
  'linux-arm64': 'aarch64-unknown-linux-musl',
};

/** `codex --version` prints "codex-cli 0.169.0"; the binary when it runs and is that version. */
function locateBinary(): string | null {
  const triple = TRIPLES[`${process.platform}-${process.arch}`];
  if (triple === undefined) return null;
  const bin = join(CODEX_DIR, 'node_modules', '@openai', `codex-${process.platform}-${process.arch}`, 'vendor', triple, 'bin', 'codex');
  if (!existsSync(bin)) return null;
  const r = spawnSync(bin, ['--version'], { encoding: 'utf8', timeout: 30_000, env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: tmpdir() } });
  return r.status === 0 && r.stdout.includes(CODEX_VERSION) ? bin : null;
}

export interface Install {
  bin: string | null;
  reason?: string;
  installed: boolean;
  ms: number;
}

/** Installs Codex into `.cache/clients/codex` unless a working copy of the right version is there. */
export function ensureCodex(): Install {
  const started = Date.now();
  const present = locateBinary();
  if (present) return { bin: present, installed: false, ms: Date.now() - started };
  mkdirSync(CODEX_DIR, { recursive: true });
  const npm = spawnSync(
    'npm',
    ['install', '--prefix', CODEX_DIR, '--no-save', '--no-package-lock', '--no-audit', '--no-fund', '--loglevel=error', `@openai/codex@${CODEX_VERSION}`],
    { cwd: ROOT, encoding: 'utf8', timeout: 15 * 60_000 },
  );
  const bin = locateBinary();
  if (bin) return { bin, installed: true, ms: Date.now() - started };
  const lines = (npm.stderr ?? '').trim().split('\n');
  const why = npm.error ? String(npm.error) : `npm exited ${npm.status}: ${lines.slice(-3).join(' | ')}`;
  return { bin: null, reason: `@openai/codex@${CODEX_VERSION} could not be installed into ${CODEX_DIR} (${why})`, installed: true, ms: Date.now() - started };
}

/**
 * Codex's entry for a gateway model in its model catalog (`model_catalog_json`): without one Codex
 * uses fallback metadata for an id it does not know and offers no apply_patch tool (FAILURE-MODES
 * F33). `apply_patch_tool_type: "freeform"` gives the model Codex's own `apply_patch` (a custom
 * tool with its patch grammar); the other fields are the ones Codex 0.169 requires.
 */
export function catalogEntry(model: string): Record<string, unknown> {
  return {
    slug: model,
    display_name: `${model} (model-gateway)`,
    base_instructions: 'You are a coding agent running in the Codex CLI. Edit files with the apply_patch tool.',
    apply_patch_tool_type: 'freeform',
    shell_type: 'shell_command',
    supported_reasoning_levels: [{ effort: 'medium', description: 'Default' }],
    visibility: 'list',
    supported_in_api: true,
    priority: 1,
    support_verbosity: false,
    truncation_policy: { mode: 'tokens', limit: 10000 },
    experimental_supported_tools: [],
  };
}

/** `$CODEX_HOME/config.toml`: the gateway as a custom provider speaking the Responses API. */
export function configToml(model: string, gatewayUrl: string, catalogFile: string): string {
  return [
    `model = ${JSON.stringify(model)}`,
    'model_provider = "gateway"',
    `model_catalog_json = ${JSON.stringify(catalogFile)}`,
    'check_for_update_on_startup = false',
    '',
    '[analytics]',
    'enabled = false',
    '',
    '[model_providers.gateway]',
    'name = "model-gateway"',
    `base_url = ${JSON.stringify(`${gatewayUrl}/v1`)}`,
    'env_key = "GATEWAY_API_KEY"',
    'wire_api = "responses"',
    '',
  ].join('\n');
}

/** Writes a CODEX_HOME for `model` behind the gateway; returns its path. */
export function codexHome(dir: string, model: string, gatewayUrl: string): string {
  const catalog = join(dir, 'gateway-models.json');
  writeFileSync(catalog, JSON.stringify({ models: [catalogEntry(model)] }, null, 2));
  writeFileSync(join(dir, 'config.toml'), configToml(model, gatewayUrl, catalog));
  return dir;
}

export interface Scenario {
  model: string;
  prompt: string;
}

/** What `codex-run.js` reports. */
export interface RunResult {
  command: string;
  config: string;
  exit: number | null;
  signal: string | null;
  stdout: string;
  stderr: string;
  ms: number;
  /** the files in the working directory after the run, with their contents */
  files: Record<string, string>;
  gatewayLogs: Record<string, unknown>[];
  sim: SimCall[];
  error?: string;
}

/** Runs one scenario in a fresh loopback-only namespace: gateway and codex both inside it. */
export function runScenario(bin: string, scenario: Scenario): Promise<RunResult> {
  const dir = mkdtempSync(join(tmpdir(), 'gw-codex-'));
  const out = join(dir, 'result.json');
  const spec = JSON.stringify({ bin, out, ...scenario });
  return new Promise((resolvePromise, reject) => {
    const child = spawn('bash', [NETNS, process.execPath, join(ROOT, 'dist', 'test', 'clients', 'codex-run.js'), spec], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let log = '';
    child.stdout.on('data', (c: Buffer) => (log += c.toString()));
    child.stderr.on('data', (c: Buffer) => (log += c.toString()));
    const guard = setTimeout(() => child.kill('SIGKILL'), (CODEX_TIMEOUT_S + 60) * 1000);
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
