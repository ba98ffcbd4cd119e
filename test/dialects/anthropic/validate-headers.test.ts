import t from 'tap';
import { validateMessagesHeaders, validateMessagesQuery } from '../../../lib/dialects/anthropic/headers.js';
import type { ErrorCode } from '../../../lib/errors.js';
import { assertError, thrown } from './validate-harness.js';

const CC_BETAS =
  'claude-code-20250219,interleaved-thinking-2025-05-14,context-management-2025-06-27,per-turn-control-2026-07-01,' +
  'mid-conversation-tool-changes-2026-07-01,thinking-token-count-2026-05-13,advanced-tool-use-2025-11-20,effort-2025-11-24';

/** Claude Code 2.1.330's headers, in wire order (clients/REPORT.md §1.3). */
function ccHeaders(): string[] {
  return [
    'Accept', 'application/json',
    'Content-Type', 'application/json',
    'User-Agent', 'claude-cli/2.1.330 (external, sdk-cli)',
    'X-Claude-Code-Session-Id', '30d4321f-3afe-4c52-b862-f3e8930782b5',
    'X-Stainless-Retry-Count', '0',
    'anthropic-beta', CC_BETAS,
    'anthropic-dangerous-direct-browser-access', 'true',
    'anthropic-version', '2023-06-01',
    'x-api-key', 'sk-ant-dummy-key-0000',
    'x-app', 'cli',
  ];
}

/** Replace (or with value null remove) every header named `name`; append when absent. */
function withHeader(raw: string[], name: string, value: string | null): string[] {
  const out: string[] = [];
  let found = false;
  for (let i = 0; i < raw.length; i += 2) {
    if ((raw[i] as string).toLowerCase() === name.toLowerCase()) {
      found = true;
      if (value !== null) out.push(raw[i] as string, value);
    } else {
      out.push(raw[i] as string, raw[i + 1] as string);
    }
  }
  if (!found && value !== null) out.push(name, value);
  return out;
}

const ACCEPTED = ['2023-06-01'];
const check = (raw: string[], accepted: string[] = ACCEPTED, requireContentType = true) =>
  validateMessagesHeaders(raw, accepted, { requireContentType });

t.test('Claude Code headers', async (t) => {
  const info = check(ccHeaders());
  t.equal(info.version, '2023-06-01');
  t.same(info.betas, CC_BETAS.split(','));
  t.equal(info.sessionId, '30d4321f-3afe-4c52-b862-f3e8930782b5');
  t.same(info.forward, { 'anthropic-dangerous-direct-browser-access': 'true' });
});

t.test('no betas and no session header', async (t) => {
  const info = check(['content-type', 'application/json', 'anthropic-version', '2023-06-01']);
  t.same(info.betas, []);
  t.equal(info.sessionId, undefined);
  t.same(info.forward, {});
});

interface HeaderCase {
  name: string;
  raw: string[];
  accepted?: string[];
  requireContentType?: boolean;
  code?: ErrorCode;
  path?: string;
  contains?: string;
}

const H: ErrorCode = 'GW_ERR_HEADER_INVALID';
const CT: ErrorCode = 'GW_ERR_CONTENT_TYPE_INVALID';
const cc = ccHeaders();

const cases: HeaderCase[] = [
  { name: 'version missing', raw: withHeader(cc, 'anthropic-version', null), code: H, path: 'anthropic-version', contains: 'anthropic-version: 2023-06-01' },
  { name: 'version unknown', raw: withHeader(cc, 'anthropic-version', '2024-01-01'), code: H, path: 'anthropic-version', contains: '`2023-06-01`' },
  {
    name: 'version message names configured values',
    raw: withHeader(cc, 'anthropic-version', '2024-01-01'),
    accepted: ['2023-06-01', '2026-10-21'],
    code: H,
    path: 'anthropic-version',
    contains: '`2026-10-21`',
  },
  { name: 'configured version accepted', raw: withHeader(cc, 'anthropic-version', '2026-10-21'), accepted: ['2023-06-01', '2026-10-21'] },
  { name: 'unconfigured version rejected', raw: withHeader(cc, 'anthropic-version', '2026-10-21'), code: H, path: 'anthropic-version' },
  { name: '2023-06-01 always accepted', raw: cc, accepted: [] },
  { name: 'only 2023-06-01 configured elsewhere', raw: cc, accepted: ['2026-10-21'] },
  { name: 'duplicate version', raw: [...cc, 'Anthropic-Version', '2023-06-01'], code: H, path: 'anthropic-version', contains: 'more than once' },
  { name: 'duplicate beta', raw: [...cc, 'anthropic-beta', 'x-1'], code: H, path: 'anthropic-beta' },
  { name: 'duplicate session', raw: [...cc, 'x-claude-code-session-id', 'abc'], code: H, path: 'x-claude-code-session-id' },
  { name: 'duplicate content-type', raw: [...cc, 'content-type', 'application/json'], code: CT, path: 'content-type' },
  { name: 'content-type missing', raw: withHeader(cc, 'content-type', null), code: CT, path: 'content-type' },
  { name: 'content-type not required', raw: withHeader(cc, 'content-type', null), requireContentType: false },
  { name: 'content-type text/plain', raw: withHeader(cc, 'content-type', 'text/plain'), code: CT, path: 'content-type' },
  { name: 'content-type near miss', raw: withHeader(cc, 'content-type', 'application/jsonx'), code: CT, path: 'content-type' },
  { name: 'content-type charset', raw: withHeader(cc, 'content-type', 'application/json; charset=utf-8') },
  { name: 'content-type case', raw: withHeader(cc, 'content-type', 'Application/JSON;Charset=UTF-8') },
  { name: 'beta empty item', raw: withHeader(cc, 'anthropic-beta', 'a,,b'), code: H, path: 'anthropic-beta', contains: 'item 2' },
  { name: 'beta trailing comma', raw: withHeader(cc, 'anthropic-beta', 'a,'), code: H, path: 'anthropic-beta' },
  { name: 'beta with inner space', raw: withHeader(cc, 'anthropic-beta', 'a b'), code: H, path: 'anthropic-beta' },
  { name: 'session blank', raw: withHeader(cc, 'x-claude-code-session-id', '   '), code: H, path: 'x-claude-code-session-id' },
  { name: 'session too long', raw: withHeader(cc, 'x-claude-code-session-id', 'x'.repeat(257)), code: H, path: 'x-claude-code-session-id' },
  { name: 'session 256 chars', raw: withHeader(cc, 'x-claude-code-session-id', 'x'.repeat(256)) },
];

for (const c of cases) {
  t.test(c.name, async (t) => {
    const run = () => check(c.raw, c.accepted ?? ACCEPTED, c.requireContentType ?? true);
    if (c.code === undefined) {
      t.doesNotThrow(run);
      return;
    }
    const err = thrown(run);
    assertError(t, err, c.code, c.path ?? '', c.contains);
    t.equal(err.param, c.path, 'param');
  });
}

t.test('beta list: trimmed, ordered, first occurrence kept, unknown ids kept', async (t) => {
  const info = check(withHeader(cc, 'anthropic-beta', ' b-1 , a-2,b-1 ,future-beta-2099-01-01'));
  t.same(info.betas, ['b-1', 'a-2', 'future-beta-2099-01-01']);
  t.same(check(withHeader(cc, 'anthropic-beta', '')).betas, [], 'an empty header means no betas');
});

t.test('session id is trimmed', async (t) => {
  t.equal(check(withHeader(cc, 'x-claude-code-session-id', '  s-1  ')).sessionId, 's-1');
});

t.test('forwarded anthropic-* headers', async (t) => {
  const info = check([...cc, 'Anthropic-Future-Thing', 'v1', 'anthropic-future-thing', 'v2', 'X-Other', 'no']);
  t.same(info.forward, { 'anthropic-dangerous-direct-browser-access': 'true', 'anthropic-future-thing': 'v1, v2' });
  t.notOk('x-api-key' in info.forward);
});

t.test('query', async (t) => {
  t.doesNotThrow(() => validateMessagesQuery(new URLSearchParams('')));
  t.doesNotThrow(() => validateMessagesQuery(new URLSearchParams('beta=true')));
  const bad: [string, string][] = [
    ['beta=false', 'beta'],
    ['beta', 'beta'],
    ['beta=true&beta=true', 'beta'],
    ['limit=1', 'limit'],
    ['beta=true&x=1', 'x'],
  ];
  for (const [q, path] of bad) {
    const err = thrown(() => validateMessagesQuery(new URLSearchParams(q)));
    assertError(t, err, 'GW_ERR_QUERY_INVALID', path);
  }
});
