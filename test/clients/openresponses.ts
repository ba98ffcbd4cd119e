// The Open Responses compliance suite (`openresponses/openresponses`, Apache-2.0,
// `bin/compliance-test.ts`) for the client tier. The suite is not published on npm, and CI reaches
// only the npm registry, so it is never downloaded here: GATEWAY_OPENRESPONSES_DIR names a checkout
// of it. What it needs to run comes from npm into `.cache/clients` (never a dependency of the
// gateway): `bun` (pinned) and the suite's one runtime dependency, `zod`, found through NODE_PATH,
// so the checkout needs no install of its own.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from '../helpers/paths.js';
import { CACHE_DIR } from './claude-code.js';

export const BUN_VERSION = '1.4.4';
/** the suite's own pin (its package.json: zod ^3.25.76) */
export const ZOD_VERSION = '3.25.76';
const MODULES = join(CACHE_DIR, 'node_modules');
const BUN = join(MODULES, '.bin', 'bun');

/**
 * Tests the suite runs that the gateway's spec rules out, each with the reason: the gateway is
 * stateless (decisions §1: no stored responses, so no `previous_response_id` and no
 * `/responses/compact`), serves Responses over HTTP only (the WebSocket transport is optional in
 * the suite), and a Responses `input_file` carries only image data (gateway-api.md, Responses
 * content parts). The last three ids are from other versions of the suite.
 */
export const RULED_OUT: Readonly<Record<string, string>> = {
  'compact-response': '/responses/compact needs stored responses; the gateway stores none (400)',
  'previous-response-id': 'previous_response_id needs stored responses; the gateway stores none',
  'function-call-roundtrip': 'its second turn sends previous_response_id',
  'file-input': 'input_file carries image data only (a PDF is 400 by the spec)',
};

/** Why the spec rules a test out, or undefined when it applies. */
export function ruledOut(id: string): string | undefined {
  if (id.startsWith('websocket-')) return 'the WebSocket transport is optional; the gateway serves Responses over HTTP only';
  return RULED_OUT[id];
}

/**
 * The one place the suite and the spec disagree: its ResponseResource schema types `service_tier`
 * as a required string, while gateway-api.md has the gateway echo it as null (the tier it would
 * name is the upstream's, which the gateway does not relay). A test failing on this alone is
 * reported, not counted; its validators never ran, so `relaxedCopy` runs the suite once more
 * with only that field allowed to be null.
 */
export const SERVICE_TIER_ISSUE = 'service_tier: Invalid input: expected string, received null';
const SERVICE_TIER_STRICT = 'service_tier: z\n      .string()';
const SERVICE_TIER_NULLABLE = 'service_tier: z\n      .string().nullable()';

/** True when the test failed on the spec's `service_tier: null` and on nothing else. */
export function failsOnlyOnServiceTier(r: SuiteResult): boolean {
  return r.status === 'failed' && (r.errors ?? []).length > 0 && (r.errors ?? []).every((e) => e === SERVICE_TIER_ISSUE);
}

/**
 * A copy of the checkout's runnable part (bin, src) in a temp dir, its ResponseResource schema
 * allowing `service_tier: null` and nothing else changed; or why not (the schema text moved).
 */
export function relaxedCopy(dir: string): { dir: string } | { why: string } {
  const schema = join('src', 'generated', 'kubb', 'zod', 'responseResourceSchema.ts');
  const text = readFileSync(join(dir, schema), 'utf8');
  if (!text.includes(SERVICE_TIER_STRICT)) return { why: `${schema} no longer types service_tier as \`${SERVICE_TIER_STRICT}\`` };
  const copy = mkdtempSync(join(tmpdir(), 'openresponses-relaxed-'));
  for (const part of ['bin', 'src', 'package.json', 'tsconfig.json']) {
    if (existsSync(join(dir, part))) cpSync(join(dir, part), join(copy, part), { recursive: true });
  }
  writeFileSync(join(copy, schema), text.replace(SERVICE_TIER_STRICT, SERVICE_TIER_NULLABLE));
  return { dir: copy };
}

export interface SuiteResult {
  id: string;
  name: string;
  status: 'passed' | 'failed' | 'skipped' | string;
  errors?: string[];
}

/** The checkout, or why there is none. */
export function suiteDir(env: NodeJS.ProcessEnv): { dir: string } | { why: string } {
  const dir = env.GATEWAY_OPENRESPONSES_DIR;
  if (!dir) {
    return { why: 'GATEWAY_OPENRESPONSES_DIR is not set (the suite is not on npm: point it at a checkout of openresponses/openresponses)' };
  }
  if (!existsSync(join(dir, 'bin', 'compliance-test.ts'))) return { why: `${dir}/bin/compliance-test.ts does not exist` };
  return { dir };
}

function installedVersion(name: string): string | undefined {
  try {
    return (JSON.parse(readFileSync(join(MODULES, name, 'package.json'), 'utf8')) as { version?: string }).version;
  } catch {
    return undefined;
  }
}

function bunRuns(): boolean {
  const r = spawnSync(BUN, ['--version'], { encoding: 'utf8', timeout: 30_000 });
  return r.status === 0 && r.stdout.trim() === BUN_VERSION;
}

/** Installs bun and zod into `.cache/clients` unless the pinned versions are there; null or why not. */
export function ensureBun(): string | null {
  if (installedVersion('bun') === BUN_VERSION && installedVersion('zod') === ZOD_VERSION && bunRuns()) return null;
  mkdirSync(CACHE_DIR, { recursive: true });
  const npm = spawnSync(
    'npm',
    ['install', '--prefix', CACHE_DIR, '--no-save', '--no-package-lock', '--no-audit', '--no-fund', '--loglevel=error', `bun@${BUN_VERSION}`, `zod@${ZOD_VERSION}`],
    { cwd: ROOT, encoding: 'utf8', timeout: 10 * 60_000 },
  );
  if (bunRuns()) return null;
  return `bun@${BUN_VERSION} could not be installed into ${CACHE_DIR} (npm exited ${npm.status}: ${(npm.stderr ?? '').trim().split('\n').slice(-3).join(' | ')})`;
}

/** Runs the suite against `baseUrl` for one model; its JSON report's results. */
export function runSuite(dir: string, baseUrl: string, apiKey: string, model: string): { results: SuiteResult[]; raw: string } {
  const r = spawnSync(BUN, ['--no-install', 'run', join(dir, 'bin', 'compliance-test.ts'), '--base-url', baseUrl, '--api-key', apiKey, '--model', model, '--json'], {
    cwd: dir,
    encoding: 'utf8',
    timeout: 5 * 60_000,
    maxBuffer: 64 * 1024 * 1024,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/tmp', NODE_PATH: MODULES, NO_COLOR: '1' },
  });
  const raw = `${r.stdout ?? ''}${r.stderr ?? ''}`;
  try {
    const report = JSON.parse(r.stdout) as { results?: SuiteResult[] };
    return { results: report.results ?? [], raw };
  } catch {
    return { results: [], raw };
  }
}
