// stages/transcribe-dispatch.ts: a transcription job → its result, against the simulated OpenAI
// provider on 127.0.0.1. The spooled file goes to each deployment in turn (re-read from disk for each
// attempt); 503 and 429 move on; a 400 is final and keeps the upstream's wording. On success: an
// `upstream` note, a `usage` note, then the result with the seconds to report and to bill.
import t from 'tap';
import type { WavInfo } from '../../lib/dialects/index.js';
import type { ChainNote } from '../../lib/notes.js';
import { chain, type Stage } from '../../lib/stage.js';
import type { Upload } from '../../stages/parse-multipart.js';
import { dispatchTranscription } from '../../stages/transcribe-dispatch.js';
import { routeTranscription, type TranscriptionJob, type TranscriptionResult } from '../../stages/transcribe.js';
import { failed, run } from './harness.js';
import { form, transcriptionSetup, upload, WAV } from './transcription-setup.js';

const setup = await transcriptionSetup(t);

async function transcribe(modelId: string) {
  setup.sim.reset();
  const ctx = setup.contextFor();
  const parse = upload()(ctx);
  const stages = chain(parse, routeTranscription()(ctx) as Stage<Upload<WavInfo | null>, TranscriptionJob | ChainNote>, dispatchTranscription()(ctx) as Stage<TranscriptionJob, TranscriptionResult | ChainNote>);
  const got = await run(stages as Stage<Buffer, TranscriptionResult>, [form({ model: modelId })], ctx);
  await parse.close?.(ctx, got.error);
  // the simulated provider logs a multipart body as {fields, file}
  const logged = setup.sim.requests.map((r) => r.body as { fields: Record<string, string>; file: { bytes: number; filename: string } });
  return { ...got, sent: logged.map((b) => b.fields.model), files: logged.map((b) => b.file.bytes) };
}

t.test('answered: the upstream and usage notes, then the result with the seconds to report and bill', async (t) => {
  const got = await transcribe('openai/whisper-minute');
  t.equal(got.error, undefined);
  t.same(got.notes.map((n) => n.note), ['routed', 'upstream', 'usage']);
  t.match(got.notes[1], { upstream: { id: 'sim-openai', protocol: 'openai', api: 'transcriptions', upstreamModel: 'whisper-1', stream: false } });
  t.same(got.sent, ['whisper-1'], 'the deployment model in the upstream form');
  t.same(got.files, [WAV.length], 'the whole file');
  const [result] = got.values;
  t.match(result, { text: /\S/, seconds: 1.5 });
  t.type(result?.billedSeconds, 'number');
});

t.test('503 and 429 move on, the file sent again; a 400 is final with the upstream wording', async (t) => {
  const flaky = await transcribe('openai/flaky');
  t.equal(flaky.error, undefined);
  t.same(flaky.sent, ['fault:503', 'fault:429', 'gpt-4o-transcribe'], 'each deployment in turn');
  t.same(flaky.files, [WAV.length, WAV.length, WAV.length], 'the whole file each time');
  t.match(flaky.notes.find((n) => n.note === 'upstream'), { upstream: { upstreamModel: 'gpt-4o-transcribe' } });

  const refused = await transcribe('openai/refusing');
  t.match(failed(refused), { status: 400, message: /sim fault 400/ });
  t.same(refused.sent, ['fault:400']);
  t.notOk(refused.notes.some((n) => n.note === 'upstream'), 'no upstream note: nothing answered');
});
