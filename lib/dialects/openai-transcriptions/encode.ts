// The client's answer. `json`: `{text, usage: {seconds, total_tokens, input_tokens, output_tokens,
// cost}}` with cost in USD; `text`: the transcript alone as text/plain, without usage or cost.
import type { ResponseFormat } from './fields.js';

export interface TranscriptionReport {
  text: string;
  seconds: number;
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
}

export interface EncodedTranscription {
  contentType: string;
  body: string;
}

export function encodeTranscription(format: ResponseFormat, r: TranscriptionReport): EncodedTranscription {
  if (format === 'text') return { contentType: 'text/plain; charset=utf-8', body: r.text };
  const body = {
    text: r.text,
    usage: {
      seconds: r.seconds,
      total_tokens: r.inputTokens + r.outputTokens,
      input_tokens: r.inputTokens,
      output_tokens: r.outputTokens,
      cost: r.costUsd,
    },
  };
  return { contentType: 'application/json', body: JSON.stringify(body) };
}
