// WAV duration from the RIFF header, read while the upload streams by. `WavScanner` is stream-free:
// `feed` takes the file's bytes in any chunking (whole, byte by byte, odd splits) and walks the RIFF
// chunk list: `fmt ` is parsed, `data` is located, every other chunk (LIST, fact, bext, cue, ...) is
// skipped with its pad byte. It never holds more than one chunk header or one `fmt ` body.
//
// seconds = data bytes / (sample rate × channels × bytes per sample) for PCM, IEEE float, A-law and
// µ-law (also inside WAVE_FORMAT_EXTENSIBLE), where bytes per sample = ceil(bits per sample / 8);
// other codecs (ADPCM, ...) use the `fact` chunk's sample count when there is one, else the header's
// average byte rate. The data size is the declared one,
// capped at the bytes actually uploaded; a streamed WAV that declares 0 or 0xFFFFFFFF uses the bytes
// actually uploaded.

export interface WavFormat {
  /** the codec: the sub-format's tag for WAVE_FORMAT_EXTENSIBLE */
  formatTag: number;
  channels: number;
  sampleRate: number;
  byteRate: number;
  blockAlign: number;
  bitsPerSample: number;
}

export interface WavInfo extends WavFormat {
  dataBytes: number;
  seconds: number;
}

const WAVE_FORMAT_EXTENSIBLE = 0xfffe;
/** PCM, IEEE float, A-law, µ-law: fixed bytes per sample */
const SAMPLE_CODECS = new Set([1, 3, 6, 7]);
/** a `fmt ` chunk is 16, 18 or 40 bytes; anything far larger is not a WAV header */
const MAX_FMT_BYTES = 1024;
const UNKNOWN_SIZE = 0xffffffff;

type State = 'riff' | 'header' | 'fmt' | 'fact' | 'skip' | 'done';

export function parseFmt(b: Buffer): WavFormat | null {
  if (b.length < 16) return null;
  let formatTag = b.readUInt16LE(0);
  if (formatTag === WAVE_FORMAT_EXTENSIBLE) {
    // cbSize (2), valid bits (2), channel mask (4), then the sub-format GUID whose first two bytes are the codec
    if (b.length < 40) return null;
    formatTag = b.readUInt16LE(24);
  }
  return {
    formatTag,
    channels: b.readUInt16LE(2),
    sampleRate: b.readUInt32LE(4),
    byteRate: b.readUInt32LE(8),
    blockAlign: b.readUInt16LE(12),
    bitsPerSample: b.readUInt16LE(14),
  };
}

/**
 * Duration of `dataBytes` of audio in `format` (`factFrames`: the `fact` chunk's sample count per
 * channel, if any), or null when the header cannot give one.
 */
export function wavSeconds(format: WavFormat, dataBytes: number, factFrames: number | null = null): number | null {
  if (format.channels === 0 || format.sampleRate === 0) return null;
  if (SAMPLE_CODECS.has(format.formatTag) && format.bitsPerSample > 0) {
    return dataBytes / (format.sampleRate * format.channels * Math.ceil(format.bitsPerSample / 8));
  }
  if (factFrames !== null && factFrames > 0) return factFrames / format.sampleRate;
  return format.byteRate > 0 ? dataBytes / format.byteRate : null;
}

export class WavScanner {
  private state: State = 'riff';
  /** bytes collected for the current fixed-size read (RIFF header, chunk header, fmt body) */
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private need = 12;
  private skipLeft = 0;
  /** pad byte after the fmt body (chunks are word-aligned) */
  private fmtPad = 0;
  /** absolute offset of the next byte fed */
  private offset = 0;
  private format: WavFormat | null = null;
  private dataOffset = -1;
  private dataDeclared = 0;
  private factFrames: number | null = null;
  /** bytes of the fact chunk after the 4 read, plus its pad byte */
  private factRest = 0;
  private valid = true;

  feed(chunk: Buffer): void {
    let i = 0;
    while (i < chunk.length && this.state !== 'done') {
      if (this.state === 'skip') {
        const n = Math.min(this.skipLeft, chunk.length - i);
        this.skipLeft -= n;
        i += n;
        this.offset += n;
        if (this.skipLeft === 0) this.expect('header', 8);
        continue;
      }
      const n = Math.min(this.need - this.pendingBytes, chunk.length - i);
      this.pending.push(chunk.subarray(i, i + n));
      this.pendingBytes += n;
      i += n;
      this.offset += n;
      if (this.pendingBytes === this.need) this.complete(Buffer.concat(this.pending, this.pendingBytes));
    }
  }

  /** The header's facts once the whole file (of `totalBytes`) went by; null when it is not a readable WAV. */
  result(totalBytes: number): WavInfo | null {
    if (!this.valid || this.format === null || this.dataOffset < 0) return null;
    const actual = Math.max(0, totalBytes - this.dataOffset);
    const declared = this.dataDeclared;
    const dataBytes = declared === 0 || declared === UNKNOWN_SIZE ? actual : Math.min(declared, actual);
    const seconds = wavSeconds(this.format, dataBytes, this.factFrames);
    return seconds === null ? null : { ...this.format, dataBytes, seconds };
  }

  private expect(state: State, bytes: number): void {
    this.state = state;
    this.need = bytes;
    this.pending = [];
    this.pendingBytes = 0;
  }

  private skip(bytes: number): void {
    if (bytes === 0) this.expect('header', 8);
    else {
      this.state = 'skip';
      this.skipLeft = bytes;
    }
  }

  private stop(valid: boolean): void {
    this.valid = this.valid && valid;
    this.state = 'done';
    this.pending = [];
  }

  private complete(b: Buffer): void {
    switch (this.state) {
      case 'riff':
        if (b.toString('latin1', 0, 4) !== 'RIFF' || b.toString('latin1', 8, 12) !== 'WAVE') this.stop(false);
        else this.expect('header', 8);
        return;
      case 'header':
        this.chunkHeader(b.toString('latin1', 0, 4), b.readUInt32LE(4));
        return;
      case 'fact':
        this.factFrames = b.readUInt32LE(0);
        this.skip(this.factRest);
        return;
      case 'fmt':
        this.format = parseFmt(b);
        if (this.format === null) this.stop(false);
        else if (this.dataOffset >= 0) this.stop(true);
        else this.skip(this.fmtPad);
        return;
      default:
        return;
    }
  }

  private chunkHeader(id: string, size: number): void {
    if (id === 'fmt ') {
      if (size < 16 || size > MAX_FMT_BYTES) this.stop(false);
      else {
        this.fmtPad = size & 1;
        this.expect('fmt', size);
      }
      return;
    }
    if (id === 'data') {
      if (this.dataOffset < 0) {
        this.dataOffset = this.offset;
        this.dataDeclared = size;
      }
      // `fmt ` normally comes first; if not, look for it after the samples (when their size is known)
      if (this.format !== null || size === 0 || size === UNKNOWN_SIZE) this.stop(true);
      else this.skip(size + (size & 1));
      return;
    }
    if (id === 'fact' && size >= 4) {
      this.factRest = size - 4 + (size & 1);
      this.expect('fact', 4);
      return;
    }
    this.skip(size + (size & 1));
  }
}
