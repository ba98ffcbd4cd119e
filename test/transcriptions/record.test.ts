// bin/gateway --record DIR covers transcriptions too: they fail over through the same loop as text
// generation, so each try's upstream answer is written (numbered by attempt) with its .meta.json.
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { baseConfig, startGateway, withModels } from '../helpers/gateway.js';
import { HELLO_TEXT, makeWav, postForm } from './helpers.js';

t.test('a transcription that fails over is recorded, one file per try', async (t) => {
  const dir = join(mkdtempSync(join(tmpdir(), 'gw-record-audio-')), 'recordings');
  const config = withModels(baseConfig(), [
    {
      id: 'openai/flaky-recorded',
      deployments: [
        { provider: 'sim-openai', model: 'fault:503', api: 'transcriptions' },
        { provider: 'sim-openai', model: 'gpt-4o-transcribe', api: 'transcriptions' },
      ],
      pricing: { input: 2.5, output: 10 },
      input: ['audio'],
    },
  ]);
  const gw = await startGateway(config, { args: ['--record', dir] });
  t.teardown(() => gw.stop());

  const wav = makeWav({ sampleRate: 16000, channels: 1, bits: 16, frames: 16000 });
  const res = await postForm(gw.url, { model: 'openai/flaky-recorded', prompt: HELLO_TEXT }, { data: wav, filename: 'hello.wav', type: 'audio/wav' });
  t.equal(res.status, 200, res.text);
  const id = res.headers.get('x-request-id')!;
  t.ok(id, 'the request id the client saw');
  for (let i = 0; i < 200 && !existsSync(join(dir, `${id}.2.meta.json`)); i++) await new Promise((r) => setTimeout(r, 10));

  const first = JSON.parse(readFileSync(join(dir, `${id}.1.meta.json`), 'utf8')) as Record<string, Record<string, unknown>>;
  t.match(first, { attempt: 1, upstream: { dialect: 'openai-transcriptions', status: 503, model: 'fault:503' }, client: { endpoint: 'audio.transcriptions' } });
  const second = JSON.parse(readFileSync(join(dir, `${id}.2.meta.json`), 'utf8')) as Record<string, Record<string, unknown>>;
  t.match(second, { attempt: 2, upstream: { dialect: 'openai-transcriptions', status: 200, model: 'gpt-4o-transcribe' }, complete: true, served: { modelId: 'openai/flaky-recorded' } });
  const body = readFileSync(join(dir, `${id}.2.json`), 'utf8');
  t.equal(second.bytes as unknown as number, Buffer.byteLength(body), 'the upstream body as it came');
  t.match(JSON.parse(body), { text: String(res.body.text) }, 'the transcript the client got');
});
