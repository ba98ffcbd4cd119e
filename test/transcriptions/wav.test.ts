// The WAV header scanner on its own: fed whole, byte by byte and in odd chunks, as the upload streams.
import t from 'tap';
import { audioDuration, estimateSeconds } from '../../lib/dialects/openai-transcriptions/duration.js';
import { WavScanner, type WavInfo } from '../../lib/dialects/openai-transcriptions/wav.js';
import { chunk, listChunk, makeWav, type WavOptions } from './helpers.js';

function scan(bytes: Buffer, split: 'whole' | 'bytes' | 'odd'): WavInfo | null {
  const s = new WavScanner();
  if (split === 'whole') s.feed(bytes);
  else if (split === 'bytes') for (let i = 0; i < bytes.length; i++) s.feed(bytes.subarray(i, i + 1));
  else {
    let seed = 7;
    for (let i = 0; i < bytes.length; ) {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      const n = 1 + (seed % 37);
      s.feed(bytes.subarray(i, i + n));
      i += n;
    }
  }
  return s.result(bytes.length);
}

const SPLITS = ['whole', 'bytes', 'odd'] as const;

function each(bytes: Buffer, check: (info: WavInfo | null, split: string) => void): void {
  for (const split of SPLITS) check(scan(bytes, split), split);
}

t.test('PCM at odd rates, channel counts and depths, with chunks before data', async (t) => {
  const cases: WavOptions[] = [
    { sampleRate: 11025, channels: 1, bits: 8, frames: 11025 * 2 + 3 },
    { sampleRate: 22050, channels: 2, bits: 24, frames: 12345 },
    { sampleRate: 8000, channels: 6, bits: 16, frames: 4000 },
    { sampleRate: 96000, channels: 3, bits: 32, frames: 1000 },
    { sampleRate: 44100, channels: 2, bits: 16, frames: 44100, extraChunks: [listChunk(), { id: 'fact', body: Buffer.from([1, 0, 0, 0]) }] },
    { sampleRate: 7351, channels: 1, bits: 24, frames: 7351, extraChunks: [{ id: 'junk', body: Buffer.alloc(33) }] },
  ];
  for (const c of cases) {
    const wav = makeWav(c);
    each(wav, (info, split) => {
      t.ok(info, `${c.sampleRate}/${c.channels}/${c.bits} ${split}`);
      t.equal(info?.seconds, c.frames / c.sampleRate, `${c.sampleRate} Hz ${c.channels} ch ${c.bits}-bit (${split})`);
      t.equal(info?.dataBytes, c.frames * c.channels * (c.bits / 8));
    });
  }
});

t.test('WAVE_FORMAT_EXTENSIBLE reads the sub-format', async (t) => {
  const wav = makeWav({ sampleRate: 48000, channels: 2, bits: 24, frames: 24000, extensible: true });
  each(wav, (info) => {
    t.equal(info?.formatTag, 1);
    t.equal(info?.seconds, 0.5);
  });
});

t.test('data size: streamed (0 or 0xFFFFFFFF), truncated, trailing chunks', async (t) => {
  for (const declared of [0, 0xffffffff]) {
    each(makeWav({ sampleRate: 16000, channels: 1, bits: 16, frames: 8000, declaredDataSize: declared }), (info) => t.equal(info?.seconds, 0.5, `declared ${declared}`));
  }
  const cut = makeWav({ sampleRate: 16000, channels: 1, bits: 16, frames: 16000 }).subarray(0, 44 + 16000);
  each(cut, (info) => t.equal(info?.seconds, 0.5, 'a cut-short file counts the bytes present'));
  const trailing = Buffer.concat([makeWav({ sampleRate: 8000, channels: 1, bits: 8, frames: 8000 }), chunk('LIST', Buffer.alloc(100))]);
  each(trailing, (info) => t.equal(info?.seconds, 1, 'chunks after data are not audio'));
});

t.test('fmt after data is still found when the data size is known', async (t) => {
  const fmt = makeWav({ sampleRate: 8000, channels: 1, bits: 16, frames: 0 }).subarray(12, 12 + 24);
  const data = chunk('data', Buffer.alloc(16000));
  const body = Buffer.concat([Buffer.from('WAVE'), data, fmt]);
  const head = Buffer.alloc(8);
  head.write('RIFF');
  head.writeUInt32LE(body.length, 4);
  each(Buffer.concat([head, body]), (info) => t.equal(info?.seconds, 1));
});

t.test('other codecs: the fact chunk sample count, else the average byte rate', async (t) => {
  // IMA ADPCM (0x11), 8 kHz mono, 4 bits per sample, 256-byte blocks of 505 samples
  const fmt = Buffer.alloc(20);
  fmt.writeUInt16LE(0x11, 0);
  fmt.writeUInt16LE(1, 2);
  fmt.writeUInt32LE(8000, 4);
  fmt.writeUInt32LE(4055, 8);
  fmt.writeUInt16LE(256, 12);
  fmt.writeUInt16LE(4, 14);
  fmt.writeUInt16LE(2, 16);
  fmt.writeUInt16LE(505, 18);
  const fact = Buffer.alloc(4);
  fact.writeUInt32LE(16000, 0);
  const build = (withFact: boolean): Buffer => {
    const body = Buffer.concat([Buffer.from('WAVE'), chunk('fmt ', fmt), ...(withFact ? [chunk('fact', fact)] : []), chunk('data', Buffer.alloc(8110))]);
    const head = Buffer.alloc(8);
    head.write('RIFF');
    head.writeUInt32LE(body.length, 4);
    return Buffer.concat([head, body]);
  };
  each(build(true), (info) => t.equal(info?.seconds, 2, 'fact: 16,000 samples at 8 kHz'));
  each(build(false), (info) => t.equal(info?.seconds, 2, 'byte rate: 8,110 bytes at 4,055 B/s'));
});

t.test('not a WAV: null, and the duration is estimated', async (t) => {
  each(Buffer.from('ID3\u0004 this is an mp3 pretending'), (info) => t.equal(info, null));
  each(Buffer.from('RIFF\u0000\u0000\u0000\u0000AVI LIST'), (info) => t.equal(info, null));
  const noData = makeWav({ sampleRate: 8000, channels: 1, bits: 16, frames: 10 }).subarray(0, 36);
  each(noData, (info) => t.equal(info, null, 'no data chunk'));
  t.same(audioDuration('wav', 32000, null), { seconds: 1, exact: false, boundSeconds: 2 }, 'unreadable WAV: 256 kbit/s');
  t.equal(estimateSeconds('mp3', 16000), 1, 'mp3: 128 kbit/s');
  t.equal(estimateSeconds('ogg', 8000), 1, 'ogg: 64 kbit/s');
  t.equal(estimateSeconds('flac', 87500), 1, 'flac: 700 kbit/s');
  const exact = scan(makeWav({ sampleRate: 8000, channels: 1, bits: 8, frames: 4000 }), 'whole');
  t.same(audioDuration('wav', 4044, exact), { seconds: 0.5, exact: true, boundSeconds: 0.5 });
});
