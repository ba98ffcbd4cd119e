// Shared by the transcription stage tests: the simulated OpenAI provider on 127.0.0.1 (port 0) with
// transcription models (per-minute priced, flaky, refusing), a WAV upload as multipart bytes, and the
// upload stage as the transcription chain configures it.
import type { Test } from 'tap';
import type { Config } from '../../lib/config.js';
import type { RequestContext } from '../../lib/context.js';
import { checkField, WavScanner, type WavInfo, AUDIO_EXTENSIONS } from '../../lib/dialects/index.js';
import { ProviderPool } from '../../lib/providers/pool.js';
import { startSimProvider, type SimProvider } from '../../lib/sim/server.js';
import type { StageFactory } from '../../lib/stage.js';
import { parseMultipart, type Upload } from '../../stages/parse-multipart.js';
import { makeContext, makeServices, testConfig } from '../helpers/context.js';
import { makeWav, multipart } from '../transcriptions/helpers.js';

export const BOUNDARY = 'stage-transcribe-boundary';
/** 1.5 s of 8 kHz mono 16-bit PCM */
export const WAV = makeWav({ sampleRate: 8000, channels: 1, bits: 16, frames: 12000 });

export const config: Config = testConfig({
  providers: [{ id: 'sim-openai', protocol: 'openai', simulated: true }],
  models: [
    { id: 'openai/whisper-minute', deployments: [{ provider: 'sim-openai', model: 'whisper-1', api: 'transcriptions' }], pricing: { perMinute: 0.006 }, input: ['audio'] },
    { id: 'openai/flaky', deployments: ['fault:503', 'fault:429', 'gpt-4o-transcribe'].map((model) => ({ provider: 'sim-openai', model, api: 'transcriptions' })), pricing: { input: 2.5, output: 10 }, input: ['audio'] },
    { id: 'openai/refusing', deployments: [{ provider: 'sim-openai', model: 'fault:400', api: 'transcriptions' }], pricing: { input: 2.5, output: 10 }, input: ['audio'] },
  ],
});

export interface TranscriptionSetup {
  sim: SimProvider;
  contextFor(): RequestContext;
}

/** The simulated provider and the services that call it; both closed when `t` ends. */
export async function transcriptionSetup(t: Test): Promise<TranscriptionSetup> {
  const sim = await startSimProvider({ host: '127.0.0.1', port: 0 });
  const services = { ...makeServices(config), providers: new ProviderPool(config, sim.url) };
  t.teardown(async () => {
    await services.providers.close();
    await sim.close();
  });
  return {
    sim,
    contextFor() {
      const ctx = makeContext({ config, services, endpoint: 'audio.transcriptions', dialect: 'openai-transcriptions' });
      return { ...ctx, headers: { 'content-type': `multipart/form-data; boundary=${BOUNDARY}` } };
    },
  };
}

/** parse-multipart as the transcription chain configures it (the WAV probe, the field checks). */
export function upload(): StageFactory<Buffer, Upload<WavInfo | null>> {
  return parseMultipart<WavInfo | null>({ fileField: 'file', maxFileBytes: 1 << 20, extensions: AUDIO_EXTENSIONS, onField: checkField, probe: (e) => (e === 'wav' ? new WavScanner() : null) });
}

/** A transcription form: the fields, then the WAV file part. */
export function form(fields: Record<string, string>): Buffer {
  return multipart(BOUNDARY, [...Object.entries(fields).map(([name, value]) => ({ name, value })), { name: 'file', filename: 'hello.wav', contentType: 'audio/wav', data: WAV }]);
}
