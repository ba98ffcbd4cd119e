// The form's fields against the real bin/gateway (FormData over undici's fetch): model rules,
// language, temperature, response_format, stream and unknown fields, what reaches the provider,
// and the key's endpoint and model allowlists.
import t from 'tap';
import { fetch, FormData } from 'undici';
import { AUTH, errorCode, formPost, HELLO_TEXT, makeWav, PATH, postForm, type RawPart, type RawResponse } from './helpers.js';
import { startTranscriptionGateway } from './transcription-gateway.js';

const gw = await startTranscriptionGateway();
t.teardown(() => gw.stop());

const WAV = makeWav({ sampleRate: 16000, channels: 1, bits: 16, frames: 16000 });
const HELLO = { data: WAV, filename: 'hello.wav', type: 'audio/wav' };

/** The last transcription request the simulated provider received: its form fields. */
async function upstreamFields(): Promise<Record<string, string>> {
  const reqs = (await gw.simRequests()).filter((r) => r.path.endsWith(PATH));
  return (reqs.at(-1)!.body as { fields: Record<string, string> }).fields;
}

t.test('model: omitted and the default names use the configured default model', async (t) => {
  const records = new Map<string, string | null>();
  for (const model of [undefined, 'gateway-auto', 'whisper-1', 'gpt-4o-transcribe', 'gpt-4o-mini-transcribe']) {
    await gw.clearSim();
    const res = await postForm(gw.url, model === undefined ? {} : { model }, HELLO);
    t.equal(res.status, 200, `${model ?? 'omitted'}`, { body: res.text });
    t.equal(res.body.text, HELLO_TEXT);
    t.equal((await upstreamFields()).model, 'gpt-4o-transcribe', `${model ?? 'omitted'} → the default model's deployment`);
    records.set(res.headers.get('x-request-id')!, model ?? null);
  }
  const usage = await gw.usage(records.keys());
  for (const [id, model] of records) {
    t.match(usage.get(id), { modelServed: 'openai/gpt-4o-transcribe', modelRequested: model, endpoint: 'audio.transcriptions', provider: 'sim-openai' });
  }
});

t.test('model: another catalog id is used directly when it takes audio', async (t) => {
  const res = await postForm(gw.url, { model: 'openai/whisper-minute' }, HELLO);
  t.equal(res.status, 200, 'status', { body: res.text });
  t.equal((await upstreamFields()).model, 'whisper-1');
  const direct = await postForm(gw.url, { model: 'openai/gpt-4o-transcribe' }, HELLO);
  t.equal(direct.status, 200);
});

t.test('model: 400 invalid_model otherwise', async (t) => {
  const cases: [string, RegExp][] = [
    ['anthropic/claude-opus-5', /does not accept audio input/],
    ['opus', /"anthropic\/claude-opus-5" does not accept audio/],
    ['openai/gpt-5', /does not accept audio input/],
    ['openai/audio-chat', /has no transcriptions deployment/],
    ['whisper-2', /unknown model "whisper-2"/],
    ['', /must not be empty/],
  ];
  for (const [model, message] of cases) {
    const res = await postForm(gw.url, { model }, HELLO);
    t.equal(res.status, 400, `"${model}"`);
    t.match(res.body, { error: { code: 'invalid_model', param: 'model', message } }, `"${model}"`);
  }
});

t.test('language: an ISO-639-1 code, in lower case', async (t) => {
  for (const language of ['en', 'de', 'zh', 'yo']) {
    const res = await postForm(gw.url, { language }, HELLO);
    t.equal(res.status, 200, language);
    t.equal((await upstreamFields()).language, language, `${language} is forwarded`);
  }
  for (const language of ['EN', 'eng', 'english', 'xx', 'e', '', 'en-US']) {
    const res = await postForm(gw.url, { language }, HELLO);
    t.equal(res.status, 400, `"${language}"`);
    t.match(res.body, { error: { code: 'invalid_request', param: 'language' } });
  }
  const upper = await postForm(gw.url, { language: 'EN' }, HELLO);
  t.match(upper.body, { error: { message: /lower case: "en"/ } });
});

t.test('temperature: a number from 0 to 1', async (t) => {
  for (const [temperature, sent] of [['0', '0'], ['1', '1'], ['0.25', '0.25'], ['.5', '0.5'], ['1e-1', '0.1']]) {
    const res = await postForm(gw.url, { temperature: temperature! }, HELLO);
    t.equal(res.status, 200, temperature);
    t.equal((await upstreamFields()).temperature, sent);
  }
  for (const temperature of ['1.01', '-0.1', '2', 'abc', '', 'NaN', 'Infinity', '0x1', ' 0.5']) {
    const res = await postForm(gw.url, { temperature }, HELLO);
    t.equal(res.status, 400, `"${temperature}"`);
    t.match(res.body, { error: { code: 'invalid_request', param: 'temperature' } });
  }
});

t.test('prompt is forwarded; the provider is always asked for json', async (t) => {
  const res = await postForm(gw.url, { prompt: 'Names: Zoë, Ångström.', response_format: 'text' }, HELLO);
  t.equal(res.status, 200);
  t.match(await upstreamFields(), { prompt: 'Names: Zoë, Ångström.', response_format: 'json', model: 'gpt-4o-transcribe' });
});

t.test('response_format: json (default) or text', async (t) => {
  const json = await postForm(gw.url, {}, HELLO);
  t.equal(json.status, 200);
  t.match(json.headers.get('content-type'), /^application\/json/);
  t.same(Object.keys(json.body), ['text', 'usage']);
  t.same(Object.keys(json.body.usage as object), ['seconds', 'total_tokens', 'input_tokens', 'output_tokens', 'cost']);
  const u = json.body.usage as Record<string, number>;
  t.equal(u.total_tokens, u.input_tokens! + u.output_tokens!);
  const explicit = await postForm(gw.url, { response_format: 'json' }, HELLO);
  t.equal(explicit.status, 200);
  t.same(explicit.body.text, HELLO_TEXT);
  const text = await postForm(gw.url, { response_format: 'text' }, HELLO);
  t.equal(text.status, 200);
  t.match(text.headers.get('content-type'), /^text\/plain/);
  t.equal(text.text, HELLO_TEXT, 'the bare transcript, no usage');
  for (const format of ['verbose_json', 'srt', 'vtt', 'diarized_json', 'JSON', '']) {
    const res = await postForm(gw.url, { response_format: format }, HELLO);
    t.equal(res.status, 400, `"${format}"`);
    t.match(res.body, { error: { code: 'unsupported_response_format', param: 'response_format' } });
  }
});

t.test('stream, OpenAI extras and unknown fields', async (t) => {
  t.equal((await postForm(gw.url, { stream: 'false' }, HELLO)).status, 200, 'stream=false');
  const streamed = await postForm(gw.url, { stream: 'true' }, HELLO);
  t.match(streamed, { status: 400, body: { error: { code: 'unsupported_parameter', param: 'stream' } } });
  const granular = await postForm(gw.url, { 'timestamp_granularities[]': 'word' }, HELLO);
  t.equal(granular.status, 200, 'timestamp_granularities[] is accepted and ignored');
  t.notOk('timestamp_granularities[]' in (await upstreamFields()));
  t.match(await postForm(gw.url, { chunking_strategy: 'auto' }, HELLO), { status: 400, body: { error: { code: 'unsupported_parameter' } } });
  t.match(await postForm(gw.url, { modle: 'whisper-1' }, HELLO), { status: 400, body: { error: { code: 'invalid_request', param: 'modle', message: /unknown field/ } } });
  const twice = new FormData();
  twice.append('file', new Blob([WAV]), 'hello.wav');
  twice.append('model', 'whisper-1');
  twice.append('model', 'whisper-1');
  const res = await fetch(`${gw.url}${PATH}`, { method: 'POST', headers: AUTH, body: twice });
  t.equal(res.status, 400);
  t.match(await res.json(), { error: { code: 'invalid_request', param: 'model', message: /more than once/ } });
});

t.test('authentication, endpoint scope and model allowlist', async (t) => {
  // refusals by the endpoint's hooks come before the body is read: sent over node:http, which reads
  // an early answer while it is still sending
  const parts: RawPart[] = [{ name: 'file', filename: 'hello.wav', contentType: 'audio/wav', data: WAV }];
  const post = (headers: Record<string, string>, extra: RawPart[] = []): Promise<RawResponse> => formPost(gw.url, headers, 'auth-boundary', [...extra, ...parts]);
  t.match((await post({})).json(), { error: { code: 'unauthorized' } });
  t.equal((await post({})).status, 401);
  const wrong = await post({ authorization: 'Bearer sk-nope' });
  t.match({ status: wrong.status, body: wrong.json() }, { status: 401, body: { error: { code: 'unauthorized' } } });
  const chatOnly = await post({ authorization: 'Bearer sk-test-chat-only' });
  t.match({ status: chatOnly.status, body: chatOnly.json() }, { status: 403, body: { error: { code: 'endpoint_not_allowed' } } });
  const audioOnly = await postForm(gw.url, {}, HELLO, { authorization: 'Bearer sk-test-audio-only' });
  t.equal(audioOnly.status, 200);
  const restricted = await postForm(gw.url, {}, HELLO, { authorization: 'Bearer sk-test-anthropic-only' });
  t.match(restricted, { status: 403, body: { error: { code: 'model_not_allowed', param: 'model', message: /openai\/gpt-4o-transcribe/ } } });
  const restrictedDirect = await postForm(gw.url, { model: 'openai/whisper-minute' }, HELLO, { authorization: 'Bearer sk-test-anthropic-only' });
  t.match(restrictedDirect, { status: 403, body: { error: { code: 'model_not_allowed' } } });
  t.equal(errorCode(restricted.body), 'model_not_allowed');
  const allowedText = await post({ authorization: 'Bearer sk-test-anthropic-only' }, [{ name: 'model', value: 'opus' }]);
  t.match({ status: allowedText.status, body: allowedText.json() }, { status: 400, body: { error: { code: 'invalid_model' } } }, 'an allowed model without audio is still invalid_model');
});
