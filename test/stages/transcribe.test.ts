// stages/transcribe.ts: routeTranscription (upload → job, after a `routed` note) and
// encodeTranscriptionResponse (result → head note, then json or text). A WAV upload fed whole, byte
// by byte and in random chunks through parse-multipart is routed to the same job, with the exact
// duration the WAV probe measured.
import t from 'tap';
import type { WavInfo } from '../../lib/dialects/index.js';
import type { ChainNote } from '../../lib/notes.js';
import { chain, type Stage } from '../../lib/stage.js';
import type { Upload } from '../../stages/parse-multipart.js';
import { encodeTranscriptionResponse, routeTranscription, type TranscriptionJob, type TranscriptionResult } from '../../stages/transcribe.js';
import { run, sameForEveryFeeding } from './harness.js';
import { form, transcriptionSetup, upload, WAV } from './transcription-setup.js';

const setup = await transcriptionSetup(t);

/** Upload bytes → parse → route: the job (what a user of it sees) and the notes. */
async function plan(chunks: Buffer[]) {
  const ctx = setup.contextFor();
  const parse = upload()(ctx);
  const got = await run(chain(parse, routeTranscription()(ctx) as Stage<Upload<WavInfo | null>, TranscriptionJob | ChainNote>), chunks, ctx);
  await parse.close?.(ctx, got.error);
  const job = got.values[0] as TranscriptionJob | undefined;
  return { error: got.error, notes: got.notes, job };
}

t.test('a WAV upload in any chunking: the same job, with the exact duration', async (t) => {
  const bytes = form({ model: 'openai/whisper-minute', language: 'en', response_format: 'json' });
  const got = await sameForEveryFeeding(t, bytes, 'transcribe upload', async (chunks) => {
    const { error, notes, job } = await plan(chunks);
    return { error, notes: notes.map((n) => n.note), job: job && { modelId: job.routed.modelId, fields: job.fields, audio: job.audio, body: job.routed.request.body } };
  });
  t.equal(got.error, undefined);
  t.same(got.notes, ['routed'], 'the routed note for reserve, settle and the encoder');
  t.match(got.job, { modelId: 'openai/whisper-minute', fields: { model: 'openai/whisper-minute', language: 'en', responseFormat: 'json' }, audio: { exact: true, seconds: 1.5 } });
  t.match(got.job?.body, { file: { filename: 'hello.wav', bytes: WAV.length } });
});

t.test('route refusals: the field path, the model', async (t) => {
  const bad = await plan([form({ model: 'openai/whisper-minute', temperature: 'hot' })]);
  t.match(bad.error, { code: 'GW_ERR_REQUEST_INVALID', status: 400, param: 'temperature' });
  const unknown = await plan([form({ model: 'openai/nope' })]);
  t.match(unknown.error, { status: 400, param: 'model' });
});

t.test('encode: the head note (type and length in bytes), then the json body with usage and cost, or the text alone', async (t) => {
  const { job, notes } = await plan([form({ model: 'openai/whisper-minute' })]);
  const result: TranscriptionResult = { job: job!, text: 'Grüße ✓', seconds: 1.5, billedSeconds: 1.5 };
  const usage: ChainNote = { note: 'usage', usage: { input: 10, output: 4, cacheRead: 0, cacheWrite: 0, reasoning: 0, webSearches: 0 } };
  const ctx = setup.contextFor();
  const json = await run(encodeTranscriptionResponse()(ctx), [...notes, usage, result], ctx);
  t.match(json.notes.at(-1), { note: 'head', status: 200, whole: false, headers: { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(json.values[0]!)) } });
  // 1.5 s at $0.006 a minute
  t.same(JSON.parse(json.values[0]!), { text: 'Grüße ✓', usage: { seconds: 1.5, total_tokens: 14, input_tokens: 10, output_tokens: 4, cost: 0.00015 } });

  const textJob = { ...job!, fields: { ...job!.fields, responseFormat: 'text' as const } };
  const text = await run(encodeTranscriptionResponse()(ctx), [{ ...result, job: textJob }], ctx);
  t.same(text.values, ['Grüße ✓']);
  t.match(text.notes, [{ note: 'head', headers: { 'content-type': 'text/plain; charset=utf-8', 'content-length': '11' } }]);
  const unrouted = await run(encodeTranscriptionResponse()(ctx), [result], ctx);
  t.match(JSON.parse(unrouted.values[0]!), { usage: { cost: 0, total_tokens: 0 } }, 'without notes: no usage, no cost');
});
