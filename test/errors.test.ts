// Every error code maps in every dialect: a status, and a well-formed envelope.
import t from 'tap';
import { ERROR_CODES, GatewayError, statusOf } from '../lib/errors.js';
import { renderError } from '../lib/dialects/index.js';
import type { DialectName } from '../lib/chunks.js';

const ANTHROPIC_TYPES = new Set([
  'invalid_request_error', 'authentication_error', 'billing_error', 'permission_error', 'not_found_error',
  'request_too_large', 'rate_limit_error', 'api_error', 'overloaded_error', 'timeout_error',
]);
const DIALECTS: DialectName[] = ['anthropic', 'openai-chat', 'openai-responses', 'openai-transcriptions'];

t.test('every code renders in every dialect', async (t) => {
  t.ok(ERROR_CODES.length >= 30);
  for (const code of ERROR_CODES) {
    const err = new GatewayError(code, `message for ${code}`);
    t.equal(err.status, statusOf(code));
    for (const dialect of DIALECTS) {
      const r = renderError(dialect, err, 'req_1');
      t.ok(r.status >= 400 && r.status < 600, `${code} in ${dialect}: status ${r.status}`);
      const body = JSON.parse(r.body) as { type?: string; error: { type?: string; code?: string; message: string }; request_id?: string };
      t.equal(body.error.message, err.message);
      if (dialect === 'anthropic') {
        t.equal(body.type, 'error');
        t.ok(ANTHROPIC_TYPES.has(body.error.type!), `${code}: anthropic type ${body.error.type}`);
        t.equal(body.request_id, 'req_1');
      } else {
        t.type(body.error.code, 'string', `${code}: openai code`);
        t.ok(body.error.code!.length > 0);
      }
      if (r.status === 429) t.ok(r.headers['retry-after'], `${code}: 429 carries retry-after`);
    }
  }
});

t.test('canonical upstream errors keep their status and wording on Messages', async (t) => {
  const err = new GatewayError('GW_ERR_UPSTREAM_OVERLOADED', 'Overloaded', {
    upstream: { protocol: 'anthropic', status: 529, type: 'overloaded_error', message: 'Overloaded', retryAfter: '3' },
  });
  const a = renderError('anthropic', err, 'req_2');
  t.equal(a.status, 529);
  t.equal(a.headers['retry-after'], '3');
  t.match(JSON.parse(a.body), { error: { type: 'overloaded_error', message: 'Overloaded' } });
  const o = renderError('openai-chat', err, 'req_2');
  t.equal(o.status, 503);
  t.match(JSON.parse(o.body), { error: { code: 'provider_unavailable' } });
});

t.test('final errors say not to retry', async (t) => {
  const r = renderError('anthropic', new GatewayError('GW_ERR_AUTH_INVALID', 'Invalid API key.'), 'req_3');
  t.equal(r.headers['x-should-retry'], 'false');
  const beta = renderError('anthropic', new GatewayError('GW_ERR_CAPABILITY_REJECTED', 'capability_rejected: speed: Unexpected value(s) `fast-mode-2026-02-01` for the `anthropic-beta` header'), 'req_4');
  t.equal(beta.headers['x-should-retry'], 'true', 'a 400 naming a beta is recoverable by dropping it');
});
