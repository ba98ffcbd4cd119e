// The dialect registry (lib/dialects/index.ts): every dialect is there under its own name, every
// client dialect reaches every text deployment API (natively or through lib/translate), and each
// dialect's error envelope, rate-limit names and request-id header are the ones its clients read.
import t from 'tap';
import type { Deployment, DialectName } from '../../lib/chunks.js';
import { canEncode, dialectFor, dialects, renderError, upstreamDialect } from '../../lib/dialects/index.js';
import { createError } from '../../lib/errors.js';

const NAMES: DialectName[] = ['anthropic', 'openai-chat', 'openai-responses', 'openai-transcriptions'];
const TEXT_APIS: Deployment['api'][] = ['messages', 'chat', 'responses'];

t.test('one dialect per name', async (t) => {
  t.same(Object.keys(dialects).sort(), [...NAMES].sort());
  for (const name of NAMES) t.equal(dialectFor(name).name, name, name);
});

t.test('every text client dialect reaches every text deployment API', async (t) => {
  for (const source of ['anthropic', 'openai-chat', 'openai-responses'] as const) {
    for (const api of TEXT_APIS) t.ok(canEncode(source, api), `${source} > ${api}`);
    t.notOk(canEncode(source, 'transcriptions'), `${source} > transcriptions`);
  }
  for (const api of TEXT_APIS) t.notOk(canEncode('openai-transcriptions', api), `openai-transcriptions > ${api}`);
});

t.test('the upstream dialect follows the provider protocol and api', async (t) => {
  const provider = (protocol: Deployment['protocol'], api: Deployment['api']) => ({ id: 'p', protocol, api, upstreamModel: 'm', stream: true });
  t.equal(upstreamDialect(provider('anthropic', 'messages')), 'anthropic');
  t.equal(upstreamDialect(provider('openai', 'chat')), 'openai-chat');
  t.equal(upstreamDialect(provider('openai', 'responses')), 'openai-responses');
  t.equal(upstreamDialect(provider('openai', 'transcriptions')), 'openai-transcriptions');
  t.equal(upstreamDialect(null), undefined);
  for (const name of ['anthropic', 'openai-chat', 'openai-responses'] as const) t.ok(dialects[name].decoder, `${name} decodes upstream bodies`);
});

t.test('headers and envelopes per client dialect', async (t) => {
  t.equal(dialects.anthropic.requestId.header, 'request-id');
  t.equal(dialects.anthropic.rateLimitHeaders.requestsLimit, 'anthropic-ratelimit-requests-limit');
  const err = createError('GW_ERR_NOT_FOUND', 'nothing here');
  t.match(JSON.parse(renderError('anthropic', err, 'req_1').body), { type: 'error', error: { type: 'not_found_error' }, request_id: 'req_1' });
  for (const name of ['openai-chat', 'openai-responses', 'openai-transcriptions'] as const) {
    t.equal(dialects[name].requestId.header, 'x-request-id', `${name} request id`);
    t.equal(dialects[name].rateLimitHeaders.requestsLimit, 'x-ratelimit-limit-requests', `${name} rate-limit names`);
    const rendered = renderError(name, err, 'req_1');
    t.equal(rendered.status, 404);
    t.match(JSON.parse(rendered.body), { error: { message: /nothing here/ } }, `${name} envelope`);
  }
});
