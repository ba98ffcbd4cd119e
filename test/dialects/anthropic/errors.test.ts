// Every gateway error code has a Messages error type matching the spec's status table; Anthropic
// upstream errors keep their own type and wording (errors/anthropic-*.json bodies).
import { readdirSync, readFileSync } from 'node:fs';
import t from 'tap';
import { anthropicErrorBody, anthropicErrorType, errorFromAnthropic } from '../../../lib/dialects/anthropic/errors.js';
import { ERROR_CODES, GatewayError, statusOf } from '../../../lib/errors.js';
import { fixture } from '../../helpers/paths.js';

/** The spec's "Messages envelope" table: status → allowed error types. */
const BY_STATUS: Record<number, string[]> = {
  400: ['invalid_request_error'],
  401: ['authentication_error'],
  402: ['billing_error'],
  403: ['permission_error'],
  404: ['not_found_error'],
  405: ['invalid_request_error'],
  // not in the spec's table: Node's own 408 and 431, now in the envelope (issue #18); the client's request is at fault
  408: ['invalid_request_error'],
  431: ['invalid_request_error'],
  // not in the spec's table either: the admin API's 409 (a duplicate id, a row the config file owns); the request is at fault
  409: ['invalid_request_error'],
  413: ['request_too_large'],
  429: ['rate_limit_error'],
  499: ['api_error'],
  500: ['api_error'],
  502: ['api_error'],
  503: ['overloaded_error', 'api_error'],
  504: ['timeout_error'],
  529: ['overloaded_error'],
};

t.test('every code maps to the type its status calls for', async (t) => {
  for (const code of ERROR_CODES) {
    const allowed = BY_STATUS[statusOf(code)];
    t.ok(allowed?.includes(anthropicErrorType[code]), `${code} (${statusOf(code)}) → ${anthropicErrorType[code]}`);
  }
  t.equal(anthropicErrorType.GW_ERR_METHOD_NOT_ALLOWED, 'invalid_request_error');
  t.equal(anthropicErrorType.GW_ERR_CLIENT_CLOSED, 'api_error');
  t.equal(anthropicErrorType.GW_ERR_CONFIG_INVALID, 'api_error');
});

t.test('envelope body', async (t) => {
  const err = new GatewayError('GW_ERR_CREDITS_INSUFFICIENT', 'need 2, have 1');
  t.equal(anthropicErrorBody(err, 'req_1'), '{"type":"error","error":{"type":"billing_error","message":"need 2, have 1"},"request_id":"req_1"}');
  const openai = new GatewayError('GW_ERR_UPSTREAM_RATE_LIMITED', 'Slow down', { upstream: { protocol: 'openai', status: 429, type: 'tokens', message: 'Rate limit reached' } });
  t.same(JSON.parse(anthropicErrorBody(openai, 'r')).error, { type: 'rate_limit_error', message: 'Slow down' }, 'a foreign upstream type is not passed to a Messages client');
  const internal = GatewayError.from(new Error('secret detail'));
  t.notMatch(anthropicErrorBody(internal, 'r'), /secret/, 'internal details stay hidden');
});

t.test('recorded Anthropic error bodies keep their type and wording', async (t) => {
  const dir = fixture('upstream', 'errors');
  const files = readdirSync(dir).filter((f) => f.startsWith('anthropic-') && f.endsWith('.json'));
  t.ok(files.length >= 5);
  const codeFor: Record<string, string> = { rate_limit_error: 'GW_ERR_UPSTREAM_RATE_LIMITED', overloaded_error: 'GW_ERR_UPSTREAM_OVERLOADED' };
  for (const file of files) {
    const recorded = JSON.parse(readFileSync(`${dir}/${file}`, 'utf8')) as { status: number; body: string };
    const body = JSON.parse(recorded.body) as { error: { type: string; message: string }; request_id: string };
    const err = errorFromAnthropic(body.error.type, body.error.message, body.request_id);
    t.equal(err.code, codeFor[body.error.type] ?? 'GW_ERR_UPSTREAM', `${file}: code`);
    t.equal(err.upstream?.status, recorded.status, `${file}: the status the type stands for`);
    t.same(JSON.parse(anthropicErrorBody(err, 'req_gw')), { type: 'error', error: body.error, request_id: 'req_gw' }, `${file}: body`);
  }
});
