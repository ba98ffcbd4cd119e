// FAILURE-MODES.md §11b — audio transcriptions: response formats per model, streaming per model,
// upload sizes and containers. Served by the simulated provider.
import t from 'tap';
import { baseConfig, startGateway, withModels } from '../helpers/gateway.js';
import { errorCode, makeWav, postForm } from '../transcriptions/helpers.js';

const WAV = makeWav({ sampleRate: 16000, channels: 1, bits: 16, frames: 16000 });

t.test('failure modes §11b', async (t) => {
  const gw = await startGateway(
    withModels(baseConfig(), [{ id: 'openai/whisper-1', deployments: [{ provider: 'sim-openai', model: 'whisper-1', api: 'transcriptions' }], pricing: { perMinute: 0.006 }, input: ['audio'] }]),
  );
  t.teardown(() => gw.stop());
  const file = { data: WAV, filename: 'hello.wav', type: 'audio/wav' };

  // The spec serves `json` and `text` only (gateway-api.md, transcription request): every other
  // format is an explicit 400 naming response_format on every model, never a 500, a forced `json`
  // or a shape the client did not ask for; streamed transcription is refused the same way.
  t.test('F82 response_format: json and text on every model; the others an explicit 400, never a 500 or the wrong shape', async (t) => {
    for (const model of ['openai/gpt-4o-transcribe', 'openai/whisper-1']) {
      const j = await postForm(gw.url, { model, response_format: 'json' }, file);
      t.equal(j.status, 200, `${model} json: ${j.text.slice(0, 200)}`);
      t.type(j.body.text, 'string');
      const txt = await postForm(gw.url, { model, response_format: 'text' }, file);
      t.equal(txt.status, 200);
      t.match(txt.headers.get('content-type'), /^text\/plain/, 'text is text');
      for (const format of ['verbose_json', 'srt', 'vtt']) {
        const a = await postForm(gw.url, { model, response_format: format }, file);
        t.equal(a.status, 400, `${model} ${format}: ${a.text.slice(0, 200)}`);
        t.match(a.body.error, { code: 'unsupported_response_format', param: 'response_format' });
      }
    }
  });

  t.test('F83 stream=true is an explicit 400 naming stream, never a JSON answer in its place', async (t) => {
    for (const model of ['openai/gpt-4o-transcribe', 'openai/whisper-1']) {
      const s = await postForm(gw.url, { model, stream: 'true' }, file);
      t.equal(s.status, 400, `${model}: ${s.text.slice(0, 200)}`);
      t.match(s.body.error, { param: 'stream' });
    }
  });

  t.test('F84 uploads: a 6 MB file is accepted (no proxy-sized limit below the 25 MB one), audio/webm is a known container, over 25 MB is file_too_large', async (t) => {
    const big = makeWav({ sampleRate: 16000, channels: 1, bits: 16, frames: 3 * 1024 * 1024 });
    const a = await postForm(gw.url, { model: 'openai/gpt-4o-transcribe' }, { data: big, filename: 'long.wav', type: 'audio/wav' });
    t.equal(a.status, 200, `${(big.length / 1e6).toFixed(1)} MB: ${a.text.slice(0, 200)}`);
    const webm = Buffer.concat([Buffer.from([0x1a, 0x45, 0xdf, 0xa3]), Buffer.alloc(4096)]);
    const w = await postForm(gw.url, { model: 'openai/gpt-4o-transcribe' }, { data: webm, filename: 'rec.webm', type: 'audio/webm' });
    t.not(errorCode(w.body), 'unsupported_file_type', `webm not refused as a container: ${w.text.slice(0, 200)}`);
    const huge = makeWav({ sampleRate: 16000, channels: 1, bits: 16, frames: 13 * 1024 * 1024 });
    const h = await postForm(gw.url, { model: 'openai/gpt-4o-transcribe' }, { data: huge, filename: 'huge.wav', type: 'audio/wav' });
    t.equal(h.status, 400, h.text.slice(0, 200));
    t.equal(errorCode(h.body), 'file_too_large');
  });
});
