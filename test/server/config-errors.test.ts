// Every refusal a client gets because of how the gateway is configured names the config field that
// changes it, so the client can tell the operator what to change (through the real bin/gateway).
import t from 'tap';
import { baseConfig, startGateway, TEST_KEY, withModels, type RunningGateway } from '../helpers/gateway.js';
import { errorOf } from '../helpers/http.js';
import { msg, post } from '../helpers/messages.js';
import { makeWav, postForm } from '../transcriptions/helpers.js';

const OPUS_ONLY = 'sk-cfg-err-opus-only';
const MESSAGES_ONLY = 'sk-cfg-err-messages-only';
const ONE_RPM = 'sk-cfg-err-one-rpm';
const FAST = 'fast-mode-2026-02-01';
const PNG = { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==' } };

const { anthropicVersions: _dropped, ...withoutVersions } = baseConfig({
  maxBodyBytes: 4096,
  router: { candidates: ['anthropic/claude-opus-4.8'] },
  keys: [
    { id: 'full', key: TEST_KEY, org: 'acme' },
    { id: 'opus-only', key: OPUS_ONLY, org: 'acme', models: ['anthropic/claude-opus-5'] },
    { id: 'messages-only', key: MESSAGES_ONLY, org: 'acme', scopes: ['messages'] },
    { id: 'one-rpm', key: ONE_RPM, org: 'acme', rateLimit: { rpm: 1 } },
  ],
});

const RESPONSES_MODEL = { id: 'openai/gpt-5-via-responses', deployments: [{ provider: 'sim-openai', model: 'gpt-5', api: 'responses' }], pricing: { input: 1, output: 1 } };

let gw: RunningGateway;
t.before(async () => {
  gw = await startGateway(withModels(withoutVersions, [RESPONSES_MODEL]));
});
t.teardown(() => gw?.stop());

function chat(key: string, body: Record<string, unknown>): Promise<Response> {
  return fetch(`${gw.url}/v1/chat/completions`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
}

t.test('an anthropic-version the config does not list names `anthropicVersions`', async (t) => {
  const r = await post(gw, msg('opus'), { headers: { 'anthropic-version': '2026-10-21' } });
  t.equal(r.status, 400);
  t.match(errorOf(r.text).message, /`2026-10-21` is not an accepted version.*adds "2026-10-21" to `anthropicVersions` in the gateway config/);
  const junk = await post(gw, msg('opus'), { headers: { 'anthropic-version': 'latest' } });
  t.equal(junk.status, 400);
  t.notMatch(errorOf(junk.text).message, /anthropicVersions/, 'a value the config could not hold is not blamed on it');
});

t.test('a model outside the key allowlist names `keys[].models` and only this key', async (t) => {
  const r = await post(gw, msg('sonnet'), { headers: { 'x-api-key': OPUS_ONLY } });
  t.equal(r.status, 403);
  const message = errorOf(r.text).message;
  t.match(message, /may not use model "anthropic\/claude-sonnet-5"\. The models a key may use are `keys\[\]\.models` in the gateway config \(key id "opus-only"\)/);
  t.notMatch(message, /full|messages-only|sk-/, "no other key's data");
  const res = await chat(OPUS_ONLY, { model: 'openai/gpt-5', messages: [{ role: 'user', content: 'hi' }] });
  t.equal(res.status, 403);
  t.match(errorOf(await res.text()).message, /`keys\[\]\.models`/);
  const audio = await postForm(gw.url, {}, { data: makeWav({ sampleRate: 16000, channels: 1, bits: 16, frames: 1600 }), filename: 'a.wav', type: 'audio/wav' }, { authorization: `Bearer ${OPUS_ONLY}` });
  t.equal(audio.status, 403);
  t.match(audio.text, /`keys\[\]\.models`/);
});

t.test('an endpoint outside the key scopes names `keys[].scopes`', async (t) => {
  const res = await chat(MESSAGES_ONLY, { model: 'openai/gpt-5', messages: [{ role: 'user', content: 'hi' }] });
  t.equal(res.status, 403);
  t.match(errorOf(await res.text()).message, /`keys\[\]\.scopes` in the gateway config \(key id "messages-only"\)/);
});

t.test('gateway-auto with no candidate for the request names `router.candidates` and the missing capability', async (t) => {
  const r = await post(gw, msg('gateway-auto', { messages: [{ role: 'user', content: [PNG, { type: 'text', text: 'what is this?' }] }] }));
  t.equal(r.status, 400, r.text);
  t.match(errorOf(r.text).message, /\(image input\)\. "gateway-auto" chooses among `router\.candidates` in the gateway config; what each candidate offers is `models\[\]\.input` there/);
});

t.test('a model feature the catalog does not list names its `models[]` field', async (t) => {
  const fast = await post(gw, msg('sonnet', { speed: 'fast' }), { headers: { 'anthropic-beta': FAST } });
  t.equal(fast.status, 400);
  t.match(errorOf(fast.text).message, /`models\[\]\.speeds` in the gateway config lists "fast"/);
  const image = await post(gw, msg('anthropic/claude-opus-4.8', { messages: [{ role: 'user', content: [PNG, { type: 'text', text: 'what is this?' }] }] }));
  t.equal(image.status, 400, image.text);
  t.match(errorOf(image.text).message, /does not accept image input.*`models\[\]\.input` in the gateway config/);
  const notText = await post(gw, msg('openai/gpt-4o-transcribe'));
  t.equal(notText.status, 400);
  t.match(errorOf(notText.text).message, /not a text model.*`models\[\]\.deployments\[\]\.api`/);
});

t.test('a feature the API serving the model lacks names `models[].deployments[].api`', async (t) => {
  const res = await chat(TEST_KEY, { model: RESPONSES_MODEL.id, stop: ['END'], messages: [{ role: 'user', content: 'hi' }] });
  t.equal(res.status, 400);
  t.match(errorOf(await res.text()).message, /no stop sequences.*`models\[\]\.deployments\[\]\.api` in the gateway config/);
});

t.test('a body over the configured limit names `maxBodyBytes`', async (t) => {
  const r = await post(gw, msg('opus', { messages: [{ role: 'user', content: 'x'.repeat(5000) }] }));
  t.equal(r.status, 413);
  t.match(errorOf(r.text).message, /exceeds the maximum of 4096 bytes, set by `maxBodyBytes` in the gateway config/);
  t.notMatch(errorOf(r.text).message, /32 MiB/, 'the configured limit, not the default');
});

t.test('a rate limit names `keys[].rateLimit`', async (t) => {
  t.equal((await post(gw, msg('opus'), { headers: { 'x-api-key': ONE_RPM } })).status, 200);
  const r = await post(gw, msg('opus'), { headers: { 'x-api-key': ONE_RPM } });
  t.equal(r.status, 429);
  t.match(errorOf(r.text).message, /`keys\[\]\.rateLimit` in the gateway config/);
});

t.test('no router candidates and no transcription model name `router.candidates` and `transcription.defaultModel`', async (t) => {
  const base = baseConfig({ router: { candidates: [] } });
  const cfg: Record<string, unknown> = { ...base, models: (base.models as { id: string }[]).filter((m) => m.id !== 'openai/gpt-4o-transcribe') };
  delete cfg.transcription;
  const bare = await startGateway(cfg);
  t.teardown(() => bare.stop());
  const r = await fetch(`${bare.url}/v1/messages`, { method: 'POST', headers: { 'content-type': 'application/json', 'anthropic-version': '2023-06-01', 'x-api-key': TEST_KEY }, body: JSON.stringify(msg('gateway-auto')) });
  t.equal(r.status, 400);
  t.match(errorOf(await r.text()).message, /no candidates configured\)\. Its candidates are `router\.candidates` in the gateway config/);
  const audio = await postForm(bare.url, {}, { data: makeWav({ sampleRate: 16000, channels: 1, bits: 16, frames: 1600 }), filename: 'a.wav', type: 'audio/wav' });
  t.equal(audio.status, 400);
  t.match(audio.text, /`transcription\.defaultModel` in the gateway config/);
});
