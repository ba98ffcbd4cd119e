// fastify's rules for its errors, applied here: every code has a named definition that some code
// uses and a documented status (docs/errors.md), and error wording lives only in lib/errors*: no
// other source file builds a GatewayError from a sentence of its own.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { ERROR_CODES, GatewayError, type ErrorCode } from '../lib/errors.js';
import { errorAreas, errors } from '../lib/errors/index.js';
import { renderError } from '../lib/dialects/index.js';
import { ROOT } from './helpers/paths.js';

/** codes with no definition on purpose, and why */
const RESERVED: Partial<Record<ErrorCode, string>> = {
  GW_ERR_PERMISSION_DENIED: 'reserved by decisions.md for abuse rejection; nothing raises it yet',
};

/**
 * Files being refactored on another branch (stages, server, endpoints, providers) whose error sites
 * still build their own GatewayError; each has its definition waiting in lib/errors/ (PENDING_USE).
 * Remove an entry once its file calls `errors.*`.
 */
const PENDING_FILES: RegExp[] = [];

/** definitions written for the sites in PENDING_FILES, not called yet */
const PENDING_USE: string[] = [];

/** the definitions' own home: the only place a GatewayError is worded */
const DEFINITION_FILES = /^lib\/errors(\.ts$|\/)/;

function sources(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(join(ROOT, dir))) {
    const path = `${dir}/${name}`;
    if (statSync(join(ROOT, path)).isDirectory()) out.push(...sources(path));
    else if (name.endsWith('.ts') && !name.endsWith('.d.ts')) out.push(path);
  }
  return out;
}

const FILES = ['lib', 'stages', 'bin'].flatMap(sources).map((path) => ({ path, text: readFileSync(join(ROOT, path), 'utf8') }));
const pending = (path: string): boolean => PENDING_FILES.some((re) => re.test(path));

t.test('the scan sees the source tree', async (t) => {
  t.ok(FILES.some((f) => f.path === 'lib/auth.ts'));
  t.ok(FILES.some((f) => f.path === 'lib/errors/auth.ts'));
  t.ok(FILES.length > 100, `${FILES.length} files`);
});

t.test('no file outside lib/errors* words a GatewayError itself', async (t) => {
  const offenders: string[] = [];
  for (const { path, text } of FILES) {
    if (DEFINITION_FILES.test(path) || pending(path)) continue;
    text.split('\n').forEach((line, i) => {
      if (/new GatewayError\(|\bcreateError\(/.test(line)) offenders.push(`${path}:${i + 1}: ${line.trim()}`);
    });
  }
  t.same(offenders, [], 'add a definition to lib/errors/ and throw errors.<name>(...) instead');
});

t.test('every code has a definition, and every definition is used', async (t) => {
  const defined = new Set(Object.values(errors).map((f) => f.code));
  for (const code of ERROR_CODES) {
    if (RESERVED[code] !== undefined) t.notOk(defined.has(code), `${code} is defined now: remove it from RESERVED`);
    else t.ok(defined.has(code), `${code} has a definition in lib/errors/`);
  }
  const callers = FILES.filter((f) => !DEFINITION_FILES.test(f.path)).map((f) => f.text).join('\n');
  for (const name of Object.keys(errors)) {
    const used = new RegExp(`\\berrors\\.${name}\\b`).test(callers);
    t.ok(used || PENDING_USE.includes(name), `errors.${name} is used somewhere (or delete it)`);
  }
  for (const name of PENDING_USE) t.ok(Object.hasOwn(errors, name), `pending errors.${name} is defined`);
});

t.test('no name is defined in two areas', async (t) => {
  const names = Object.values(errorAreas).flatMap((area) => Object.keys(area));
  t.equal(names.length, new Set(names).size, 'a later area would silently replace an earlier definition');
});

t.test('docs/errors.md documents every code with its status and envelopes', async (t) => {
  const doc = readFileSync(join(ROOT, 'docs', 'errors.md'), 'utf8');
  const rows = new Map<string, string[]>();
  for (const line of doc.split('\n')) {
    const m = /^\| `(GW_ERR_[A-Z_]+)` \|(.*)\|$/.exec(line);
    if (m) rows.set(m[1]!, m[2]!.split('|').map((c) => c.trim()));
  }
  t.same([...rows.keys()].sort(), [...ERROR_CODES].sort(), 'one row per code, no stale rows');
  for (const code of ERROR_CODES) {
    const [status, retryable, messages, openai, when] = rows.get(code) ?? [];
    const err = new GatewayError(code, 'x');
    t.equal(status, String(err.status), `${code}: status`);
    t.equal(retryable, err.retryable ? 'yes' : 'no', `${code}: retryable`);
    const a = renderError('anthropic', err, 'req');
    t.equal(messages, `${a.status} \`${(JSON.parse(a.body) as { error: { type: string } }).error.type}\``, `${code}: Messages envelope`);
    for (const dialect of ['openai-chat', 'openai-responses', 'openai-transcriptions'] as const) {
      const o = renderError(dialect, err, 'req');
      t.equal(openai, `${o.status} \`${(JSON.parse(o.body) as { error: { code: string } }).error.code}\``, `${code}: ${dialect} envelope`);
    }
    t.ok(when !== undefined && when.length > 10, `${code}: says when it happens`);
  }
});

t.test('a definition carries code, status, wording and options', async (t) => {
  const err = errors.modelNotAllowed('claude-x', 'k1');
  t.equal(err.code, 'GW_ERR_MODEL_NOT_ALLOWED');
  t.equal(err.status, 403);
  t.equal(err.param, 'model');
  t.equal(err.message, 'model: this API key may not use model "claude-x". The models a key may use are `keys[].models` in the gateway config (key id "k1").');
  t.equal(errors.modelNotAllowed('claude-x', undefined).message, 'model: this API key may not use model "claude-x". The models a key may use are `keys[].models` in the gateway config.');
  const limited = errors.rateLimited('k1', ['60 requests per minute'], 7, { 'x-ratelimit-limit-requests': '60' });
  t.same(limited.headers, { 'retry-after': '7', 'x-ratelimit-limit-requests': '60' });
  t.equal(limited.retryable, true);
  const broken = errors.integrity('two finishes', new Error('inner'));
  t.equal(broken.message, 'The provider response failed an integrity check: two finishes');
  t.equal(broken.providerWork, true);
  t.equal((broken.cause as Error).message, 'inner');
});
