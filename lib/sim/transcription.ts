// The demo model on the OpenAI transcription protocol (`POST /v1/audio/transcriptions`, multipart).
import { existsSync, readFileSync } from 'node:fs';
import { basename, extname, join } from 'node:path';
import { splitDeltas } from './demo.js';
import type { Frame, Outcome } from './io.js';
import { countWords, type Obj } from './json.js';
import { fixturesDir, type DemoCtx } from './spec.js';

/** A parsed multipart upload; this (without the bytes) is what the request log records. */
export interface Upload {
  fields: Record<string, string>;
  file?: { filename: string; bytes: number; mimeType: string; field: string };
}

/** `fixtures/audio/<name>.txt` (name with or without its extension) if present. */
export function sidecarText(filename: string): string | undefined {
  const base = basename(filename);
  const dir = join(fixturesDir(), 'audio');
  for (const name of [base.slice(0, base.length - extname(base).length), base]) {
    if (name === '') continue;
    const p = join(dir, `${name}.txt`);
    if (existsSync(p)) return readFileSync(p, 'utf8').trimEnd();
  }
  return undefined;
}

export function transcriptText(filename: string, bytes: number): string {
  return sidecarText(filename) ?? `Transcribed ${bytes} bytes of ${filename}`;
}

function stamp(seconds: number, sep: string): string {
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = seconds % 60;
  const p = (n: number): string => String(n).padStart(2, '0');
  return `${p(h)}:${p(m)}:${p(s)}${sep}000`;
}

export function validateUpload(up: Upload): { message: string; param: string } | undefined {
  if (!up.file) return { message: "Missing required parameter: 'file'.", param: 'file' };
  if (!up.fields.model) return { message: "Missing required parameter: 'model'.", param: 'model' };
  return undefined;
}

export function transcriptionDemo(up: Upload, ctx: DemoCtx): Outcome {
  const file = up.file ?? { filename: 'audio', bytes: 0, mimeType: 'application/octet-stream', field: 'file' };
  const text = transcriptText(file.filename, file.bytes);
  const words = countWords(text);
  const audio = Math.ceil(file.bytes / 1000);
  const usage: Obj = {
    type: 'tokens', input_tokens: audio, input_token_details: { text_tokens: 0, audio_tokens: audio },
    output_tokens: words, total_tokens: audio + words,
  };
  const format = up.fields.response_format ?? 'json';
  const duration = Math.max(1, Math.ceil(file.bytes / 32000));
  if (up.fields.stream === 'true') {
    const frames: Frame[] = splitDeltas(text, ctx.spec).map((delta) => ({ data: { type: 'transcript.text.delta', delta } }));
    frames.push({ data: { type: 'transcript.text.done', text, usage } }, { text: '[DONE]' });
    return { kind: 'stream', frames };
  }
  switch (format) {
    case 'json':
      return { kind: 'json', body: { text, usage } };
    case 'text':
      return { kind: 'text', body: text, contentType: 'text/plain; charset=utf-8' };
    case 'verbose_json':
      return {
        kind: 'json',
        body: {
          task: 'transcribe', language: up.fields.language ?? 'english', duration, text,
          segments: [{
            id: 0, seek: 0, start: 0, end: duration, text, tokens: [], temperature: 0, avg_logprob: 0,
            compression_ratio: 1, no_speech_prob: 0,
          }],
          usage: { type: 'duration', seconds: duration },
        },
      };
    case 'srt':
      return { kind: 'text', body: `1\n${stamp(0, ',')} --> ${stamp(duration, ',')}\n${text}\n\n`, contentType: 'text/plain; charset=utf-8' };
    case 'vtt':
      return {
        kind: 'text', body: `WEBVTT\n\n${stamp(0, '.')} --> ${stamp(duration, '.')}\n${text}\n\n`, contentType: 'text/plain; charset=utf-8',
      };
    default:
      return {
        kind: 'error', status: 400,
        message: `Invalid value for 'response_format': '${format}'. Supported values are: 'json', 'text', 'srt', 'verbose_json', and 'vtt'.`,
        opts: { param: 'response_format', code: 'invalid_value' },
      };
  }
}
