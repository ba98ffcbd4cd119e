// usage.seconds against the real bin/gateway: exact for WAV files generated here at several sample
// rates, channel layouts and bit depths (each with an extra LIST chunk before `data`), estimated from
// the size for other formats; the usage record stores the same seconds.
import t from 'tap';
import { listChunk, makeWav, postForm } from './helpers.js';
import { startTranscriptionGateway } from './transcription-gateway.js';

const gw = await startTranscriptionGateway();
t.teardown(() => gw.stop());

const RATES = [8000, 11025, 22050, 44100, 48000];
const CHANNELS = [1, 2];
const BITS = [8, 16, 24] as const;

t.test('WAV: seconds = data bytes / (rate × channels × bytes per sample), past a LIST chunk', async (t) => {
  const expected = new Map<string, number>();
  for (const sampleRate of RATES) {
    for (const channels of CHANNELS) {
      for (const bits of BITS) {
        // a length that is not a whole number of seconds (nor of milliseconds)
        const frames = Math.round(sampleRate * 0.7321) + 3;
        const wav = makeWav({ sampleRate, channels, bits, frames, extraChunks: [listChunk()] });
        const label = `${sampleRate} Hz, ${channels === 1 ? 'mono' : 'stereo'}, ${bits}-bit`;
        const res = await postForm(gw.url, { call_name: label }, { data: wav, filename: 'tone.wav', type: 'audio/wav' });
        t.equal(res.status, 200, label);
        const usage = res.body.usage as Record<string, number>;
        t.equal(usage.seconds, frames / sampleRate, `${label}: ${frames} frames`);
        expected.set(res.headers.get('x-request-id')!, frames / sampleRate);
      }
    }
  }
  const records = await gw.usage(expected.keys());
  for (const [id, seconds] of expected) t.equal(records.get(id)?.audioSeconds, seconds, `usage record of ${id}`);
});

t.test('WAV variants: extensible format, streamed size, extra chunks', async (t) => {
  const cases = [
    { label: 'WAVE_FORMAT_EXTENSIBLE 24-bit stereo', wav: makeWav({ sampleRate: 48000, channels: 2, bits: 24, frames: 36000, extensible: true }), seconds: 0.75 },
    { label: 'data size 0 (streamed)', wav: makeWav({ sampleRate: 16000, channels: 1, bits: 16, frames: 24000, declaredDataSize: 0 }), seconds: 1.5 },
    { label: 'data size 0xFFFFFFFF', wav: makeWav({ sampleRate: 16000, channels: 1, bits: 16, frames: 8000, declaredDataSize: 0xffffffff }), seconds: 0.5 },
    {
      label: 'LIST, fact and junk chunks',
      wav: makeWav({ sampleRate: 32000, channels: 4, bits: 16, frames: 32000, extraChunks: [{ id: 'junk', body: Buffer.alloc(27) }, { id: 'fact', body: Buffer.from([0, 125, 0, 0]) }, listChunk()] }),
      seconds: 1,
    },
  ];
  for (const c of cases) {
    const res = await postForm(gw.url, {}, { data: c.wav, filename: 'variant.wav', type: 'audio/wav' });
    t.equal(res.status, 200, c.label);
    t.equal((res.body.usage as Record<string, number>).seconds, c.seconds, c.label);
  }
});

t.test('other formats: estimated from the size at the documented bitrate', async (t) => {
  const cases: [string, number, number][] = [
    ['speech.mp3', 48_000, 3], // 128 kbit/s
    ['speech.mpga', 16_000, 1],
    ['speech.mpeg', 8_000, 0.5],
    ['speech.m4a', 160_000, 10],
    ['speech.mp4', 16_000, 1],
    ['speech.ogg', 24_000, 3], // 64 kbit/s
    ['speech.webm', 8_000, 1],
    ['speech.flac', 175_000, 2], // 700 kbit/s
    ['broken.wav', 64_000, 2], // not RIFF: 256 kbit/s
    ['odd.mp3', 12_345, 0.772], // rounded to the millisecond
  ];
  for (const [filename, bytes, seconds] of cases) {
    const res = await postForm(gw.url, {}, { data: Buffer.alloc(bytes, 0x5a), filename });
    t.equal(res.status, 200, filename);
    t.equal((res.body.usage as Record<string, number>).seconds, seconds, `${filename}: ${bytes} bytes`);
  }
});
