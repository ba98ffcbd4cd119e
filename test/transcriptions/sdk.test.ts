// The official `openai` SDK (7.57) against bin/gateway's transcriptions, used as a user would: a file
// stream (the SDK's own chunked multipart encoder, octet-stream file part) and `toFile` (undici's
// FormData), json and text answers, and the 400s as the SDK's typed errors.
import { createReadStream, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI, { toFile } from 'openai';
import t from 'tap';
import { HELLO_TEXT, makeWav } from './helpers.js';
import { startTranscriptionGateway } from './transcription-gateway.js';
import { TEST_KEY } from '../helpers/gateway.js';

const gw = await startTranscriptionGateway();
t.teardown(() => gw.stop());
const client = new OpenAI({ apiKey: TEST_KEY, baseURL: `${gw.url}/v1`, maxRetries: 0, timeout: 20_000 });

const WAV = makeWav({ sampleRate: 22050, channels: 2, bits: 16, frames: 33075 });
const dir = mkdtempSync(join(tmpdir(), 'gw-sdk-audio-'));
const path = join(dir, 'hello.wav');
writeFileSync(path, WAV);
t.teardown(() => rmSync(dir, { recursive: true, force: true }));

interface GatewayTranscription {
  text: string;
  usage: { seconds: number; total_tokens: number; input_tokens: number; output_tokens: number; cost: number };
}

t.test('a file stream, as most callers send it', async (t) => {
  const res = (await client.audio.transcriptions.create({ file: createReadStream(path), model: 'whisper-1' })) as unknown as GatewayTranscription;
  t.equal(res.text, HELLO_TEXT);
  t.equal(res.usage.seconds, 1.5);
  t.equal(res.usage.total_tokens, res.usage.input_tokens + res.usage.output_tokens);
  t.ok(res.usage.cost > 0);
});

t.test('toFile, with every option the SDK sends', async (t) => {
  const res = (await client.audio.transcriptions.create({
    file: await toFile(WAV, 'hello.wav', { type: 'audio/wav' }),
    model: 'gpt-4o-transcribe',
    language: 'en',
    prompt: 'A greeting.',
    temperature: 0,
    response_format: 'json',
    timestamp_granularities: ['segment'],
  })) as unknown as GatewayTranscription;
  t.equal(res.text, HELLO_TEXT);
});

t.test('response_format text comes back as a string', async (t) => {
  const text = await client.audio.transcriptions.create({ file: createReadStream(path), model: 'whisper-1', response_format: 'text' });
  t.equal(text, HELLO_TEXT);
});

t.test('refusals are the SDK typed errors with the gateway codes', async (t) => {
  const cases: [() => Promise<unknown>, string][] = [
    [() => client.audio.transcriptions.create({ file: createReadStream(path), model: 'whisper-1', response_format: 'srt' }), 'unsupported_response_format'],
    [async () => client.audio.transcriptions.create({ file: await toFile(Buffer.from('hello'), 'notes.txt'), model: 'whisper-1' }), 'invalid_file_format'],
    [async () => client.audio.transcriptions.create({ file: await toFile(Buffer.alloc(26 * 1024 * 1024, 1), 'long.mp3'), model: 'whisper-1' }), 'file_too_large'],
    [() => client.audio.transcriptions.create({ file: createReadStream(path), model: 'anthropic/claude-opus-5' }), 'invalid_model'],
    [() => client.audio.transcriptions.create({ file: createReadStream(path), model: 'whisper-1', language: 'english' }), 'invalid_request'],
  ];
  for (const [call, code] of cases) {
    const err = await call().then(
      () => null,
      (e: unknown) => e,
    );
    t.type(err, OpenAI.BadRequestError, code);
    t.equal((err as InstanceType<typeof OpenAI.BadRequestError>).code, code);
  }
});
