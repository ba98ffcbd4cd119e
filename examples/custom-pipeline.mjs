// A custom pipeline built from the gateway's own stages: a recorded Anthropic Messages stream (two
// parallel tool calls) is decoded, checked and re-encoded as an OpenAI Chat Completions stream, and
// printed. No server, no configuration, no network.
//
//   node examples/custom-pipeline.mjs [FILE.sse]
//
// FILE defaults to the recording in this repository's fixtures/upstream/anthropic/.
import { createReadStream } from 'node:fs';
import { chain, integrity, offlineContext, providerDecode, runStage, sseDecode, sseEncode } from 'model-gateway';

const file = process.argv[2] ?? new URL('../fixtures/upstream/anthropic/tool-use-parallel.sse', import.meta.url);

// `chain` composes stages into one; a stage whose input is not the previous output does not type-check
const replay = chain(
  sseDecode(), //                                    bytes → SSE messages
  providerDecode({ dialect: () => 'anthropic' }), // SSE messages → canonical events (the recording's dialect)
  integrity(), //                                    fails closed on anything a faithful provider never sends
  sseEncode({ dialect: 'openai-chat' }), //          canonical events → Chat Completions SSE frames
);

// the context a stage gets outside the server: request id, logger, abort signal
const ctx = offlineContext({ dialect: 'openai-chat', reqId: 'req_custom_pipeline' });

// the file is read in 64-byte pieces, as a network stream would arrive: frames split anywhere
const frames = await runStage(replay, createReadStream(file, { highWaterMark: 64 }), ctx);
process.stdout.write(frames.join(''));
