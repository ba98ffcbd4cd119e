// OpenCode for the client tier: installs `opencode-ai` into `.cache/clients/opencode` (its native
// Bun binary ships in a platform package on npm, ~185 MB), finds the binary, and builds the
// `opencode run` scenario: an `opencode.json` in the work folder naming the gateway as two
// providers, one through Messages (`@ai-sdk/anthropic`) and one through Chat Completions
// (`@ai-sdk/openai-compatible`), both bundled in the binary, so nothing is fetched at run time.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { TEST_KEY } from '../helpers/gateway.js';
import { clientsConfig } from './config.js';
import { ensureNpmClient, GATEWAY_URL, type RunSpec } from './tier.js';

export const OPENCODE_VERSION = '1.18.33';

/** The env variable the config's `{env:...}` reads the gateway key from. */
export const OPENCODE_KEY_VAR = 'GATEWAY_API_KEY';

/** The models each provider of the config lists (OpenCode refuses a model its config does not name). */
const MODELS = { 'claude-opus-5': { name: 'Claude Opus 5', tool_call: true }, 'gpt-5': { name: 'GPT-5', tool_call: true } };

/** What a user writes into `opencode.json` to use the gateway. */
export const OPENCODE_CONFIG = {
  provider: {
    'gateway-messages': {
      npm: '@ai-sdk/anthropic',
      name: 'Gateway (Messages)',
      options: { baseURL: `${GATEWAY_URL}/v1`, apiKey: `{env:${OPENCODE_KEY_VAR}}` },
      models: MODELS,
    },
    'gateway-chat': {
      npm: '@ai-sdk/openai-compatible',
      name: 'Gateway (Chat Completions)',
      options: { baseURL: `${GATEWAY_URL}/v1`, apiKey: `{env:${OPENCODE_KEY_VAR}}` },
      models: MODELS,
    },
  },
};

/** Keeps OpenCode off the network: no models.dev fetch, no update check, no sharing, no plugin or LSP installs. */
const OFFLINE_ENV = {
  OPENCODE_DISABLE_MODELS_FETCH: '1',
  OPENCODE_DISABLE_AUTOUPDATE: '1',
  OPENCODE_DISABLE_SHARE: '1',
  OPENCODE_DISABLE_LSP_DOWNLOAD: '1',
  OPENCODE_DISABLE_DEFAULT_PLUGINS: '1',
  OPENCODE_DISABLE_CLAUDE_CODE: '1',
};

function runs(bin: string): boolean {
  const r = spawnSync(bin, ['--version'], { encoding: 'utf8', timeout: 30_000, env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: '/tmp' } });
  return r.status === 0 && r.stdout.trim() === OPENCODE_VERSION;
}

/**
 * The binary, or null. The package's postinstall puts the platform binary over `bin/opencode.exe`;
 * when npm skipped it, the platform packages' binaries (AVX2 build first, then the baseline and
 * musl builds) are tried directly.
 */
function locateBinary(dir: string): string | null {
  const nm = join(dir, 'node_modules');
  const base = `opencode-${process.platform}-${process.arch}`;
  const candidates = [join(nm, 'opencode-ai', 'bin', 'opencode.exe'), ...['', '-baseline', '-musl', '-baseline-musl'].map((v) => join(nm, `${base}${v}`, 'bin', 'opencode'))];
  return candidates.find((bin) => existsSync(bin) && runs(bin)) ?? null;
}

export interface OpenCodeInstall {
  bin: string | null;
  reason?: string;
  installed: boolean;
  ms: number;
}

export function ensureOpenCode(): OpenCodeInstall {
  const inst = ensureNpmClient('opencode', { 'opencode-ai': OPENCODE_VERSION });
  if (inst.reason) return { bin: null, reason: inst.reason, installed: inst.installed, ms: inst.ms };
  const bin = locateBinary(inst.dir);
  return bin ? { bin, installed: inst.installed, ms: inst.ms } : { bin: null, reason: `no working opencode ${OPENCODE_VERSION} binary under ${inst.dir}`, installed: inst.installed, ms: inst.ms };
}

/** `opencode run --model <provider>/<model> <prompt>` in a work folder holding the gateway config. */
export function openCodeRun(bin: string, model: string, prompt: string): Omit<RunSpec, 'out'> {
  return {
    config: clientsConfig(),
    bin,
    args: ['run', '--model', model, prompt],
    env: { [OPENCODE_KEY_VAR]: TEST_KEY, ...OFFLINE_ENV },
    files: { 'opencode.json': JSON.stringify(OPENCODE_CONFIG, null, 2) },
  };
}
