// The token figures a transcription is reserved and (when the upstream reports no tokens) billed by.
//
// Reservation (decisions §7, an upper bound taken before the upstream call):
// - input tokens ≤ max(1 per 1,000 bytes uploaded, 20 per second of the duration bound). OpenAI's
//   audio models count about 10 audio tokens per second (a recorded gpt-4o-transcribe answer: 3.7 s,
//   37 input tokens), so 20/s is twice that; the size term covers providers that count by size.
// - output tokens ≤ 64 + 10 per second of the duration bound (speech runs at about 2.5 words, some
//   3.5 tokens, per second);
// - a per-minute price applies to the duration bound (reserve-credits' `audioSecondsBound`).
//
// Settlement uses the upstream's usage: its tokens, and its reported duration (else the measured
// one) for a per-minute price. An upstream that reports no tokens for a model priced only per token
// is billed by estimate: 10 input tokens per second of audio, and one output token per 4 characters
// of the transcript (rounded up), so a transcription is never served for free.
export const BYTES_PER_INPUT_TOKEN_BOUND = 1000;
export const INPUT_TOKENS_PER_SECOND_BOUND = 20;
export const OUTPUT_TOKENS_PER_SECOND_BOUND = 10;
export const OUTPUT_TOKENS_BASE_BOUND = 64;
export const ESTIMATED_INPUT_TOKENS_PER_SECOND = 10;
export const ESTIMATED_CHARS_PER_OUTPUT_TOKEN = 4;

export interface TokenBounds {
  input: number;
  output: number;
}

export function reservationTokenBounds(fileBytes: number, boundSeconds: number): TokenBounds {
  return {
    input: Math.max(Math.ceil(fileBytes / BYTES_PER_INPUT_TOKEN_BOUND), Math.ceil(boundSeconds * INPUT_TOKENS_PER_SECOND_BOUND)),
    output: OUTPUT_TOKENS_BASE_BOUND + Math.ceil(boundSeconds * OUTPUT_TOKENS_PER_SECOND_BOUND),
  };
}

/** Tokens billed when the upstream reported none and the model has no per-minute price. */
export function estimatedTokens(seconds: number, text: string): TokenBounds {
  return {
    input: Math.ceil(seconds * ESTIMATED_INPUT_TOKENS_PER_SECOND),
    output: Math.ceil(text.length / ESTIMATED_CHARS_PER_OUTPUT_TOKEN),
  };
}
