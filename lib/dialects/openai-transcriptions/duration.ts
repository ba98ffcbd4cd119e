// Audio duration of an upload, and the bounds a reservation is made from.
//
// - WAV: exact, from the RIFF header (wav.ts).
// - Every other format (and a WAV whose header cannot be read): estimated from the file size at the
//   bitrate assumed for the format below, rounded to the millisecond.
// - The reservation's duration bound is the exact WAV duration, or twice the estimate (a file may be
//   encoded at half the assumed bitrate).
import type { WavInfo } from './wav.js';

/** File extensions the endpoint accepts (lower case, without the dot). */
export const AUDIO_EXTENSIONS = ['flac', 'mp3', 'mp4', 'mpeg', 'mpga', 'm4a', 'ogg', 'wav', 'webm'] as const;
export type AudioExtension = (typeof AUDIO_EXTENSIONS)[number];

/**
 * Bitrates (bit/s) assumed when the duration is estimated from the size: the usual encodings of
 * speech uploads. MPEG audio and AAC at 128 kbit/s; Ogg and WebM (Opus or Vorbis, as browsers record
 * them) at 64 kbit/s; FLAC at 700 kbit/s (lossless 16-bit stereo compresses to about half of 1,411
 * kbit/s); an unreadable WAV as 16 kHz 16-bit mono PCM, 256 kbit/s.
 */
export const ASSUMED_BITRATE: Readonly<Record<AudioExtension, number>> = {
  mp3: 128_000,
  mpeg: 128_000,
  mpga: 128_000,
  m4a: 128_000,
  mp4: 128_000,
  ogg: 64_000,
  webm: 64_000,
  flac: 700_000,
  wav: 256_000,
};

/** Content types sent upstream for each format when the client gave none more precise. */
export const AUDIO_MIME: Readonly<Record<AudioExtension, string>> = {
  flac: 'audio/flac',
  mp3: 'audio/mpeg',
  mp4: 'audio/mp4',
  mpeg: 'audio/mpeg',
  mpga: 'audio/mpeg',
  m4a: 'audio/mp4',
  ogg: 'audio/ogg',
  wav: 'audio/wav',
  webm: 'audio/webm',
};

/** The reservation assumes the audio may be this many times longer than estimated. */
export const ESTIMATE_SAFETY_FACTOR = 2;

export interface AudioDuration {
  /** duration in seconds: exact for a readable WAV, else estimated */
  seconds: number;
  exact: boolean;
  /** an upper bound of the duration, for the reservation */
  boundSeconds: number;
}

export function isAudioExtension(ext: string): ext is AudioExtension {
  return (AUDIO_EXTENSIONS as readonly string[]).includes(ext);
}

export function estimateSeconds(ext: AudioExtension, bytes: number): number {
  return Math.round((bytes * 8 * 1000) / ASSUMED_BITRATE[ext]) / 1000;
}

export function audioDuration(ext: AudioExtension, bytes: number, wav: WavInfo | null): AudioDuration {
  if (ext === 'wav' && wav !== null) return { seconds: wav.seconds, exact: true, boundSeconds: wav.seconds };
  const seconds = estimateSeconds(ext, bytes);
  return { seconds, exact: false, boundSeconds: seconds * ESTIMATE_SAFETY_FACTOR };
}
