// Replay a recorded provider response offline and print what the client would receive:
//
//   node dist/bin/replay.js FILE [--from anthropic] [--to anthropic] [--json] [--events] [--model M]
//
// FILE (.sse stream or .json message) goes through sse-decode → provider-decode → integrity → the
// client encoder: Messages SSE (default), the non-streaming Message JSON (--json), or NDJSON of the
// canonical events (--events). --from defaults to the fixture's folder name when that is a dialect
// (fixtures/upstream/<dialect>/...), else anthropic; --model is the model value the client asked
// for (default: keep the upstream's). A failure prints what the client would get after output began
// (the dialect's error frame) and exits 1.
import { readFileSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import { parseArgs } from 'node:util';
import type { CanonicalEvent, DialectName } from '../lib/chunks.js';
import { anthropicJsonEncode } from '../lib/dialects/anthropic/encode-json.js';
import { anthropicErrorBody } from '../lib/dialects/anthropic/errors.js';
import { GatewayError } from '../lib/errors.js';
import { eventToJson, offlineContext } from '../lib/offline-context.js';
import { chain, type Stage } from '../lib/stage.js';
import type { RequestContext } from '../lib/context.js';
import { integrity } from '../stages/integrity.js';
import { providerDecode } from '../stages/provider-decode.js';
import { sseDecode } from '../stages/sse-decode.js';
import { sseEncode } from '../stages/sse-encode.js';

const DIALECTS: readonly DialectName[] = ['anthropic', 'openai-chat', 'openai-responses', 'openai-transcriptions'];

function asDialect(value: string | undefined, fallback: DialectName): DialectName {
  if (value === undefined) return fallback;
  if (!(DIALECTS as readonly string[]).includes(value)) throw new Error(`unknown dialect ${value}`);
  return value as DialectName;
}

async function run<I, O>(stage: Stage<I, O>, input: I, ctx: RequestContext, push: (o: O) => void): Promise<void> {
  const drain = async (out: ReturnType<Stage<I, O>['step']>): Promise<void> => {
    if (out == null) return;
    for await (const o of out) push(o);
  };
  await drain(stage.step(input, ctx));
  if (stage.flush) await drain(stage.flush(ctx));
}

async function main(): Promise<number> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      from: { type: 'string' },
      to: { type: 'string' },
      json: { type: 'boolean', default: false },
      events: { type: 'boolean', default: false },
      model: { type: 'string' },
    },
  });
  const file = positionals[0];
  if (file === undefined) {
    process.stderr.write('usage: replay FILE [--from DIALECT] [--to DIALECT] [--json] [--events] [--model M]\n');
    return 2;
  }
  const folder = basename(dirname(file));
  const from = asDialect(values.from, (DIALECTS as readonly string[]).includes(folder) ? (folder as DialectName) : 'anthropic');
  const to = asDialect(values.to, 'anthropic');
  const ctx = offlineContext({ dialect: to, reqId: 'req_replay' });
  const decode = chain(sseDecode(), providerDecode({ dialect: () => from }), integrity());
  const out = (text: string): void => {
    process.stdout.write(text);
  };

  let encode: Stage<CanonicalEvent, string>;
  if (values.events) {
    encode = { name: 'ndjson', step: (ev) => [JSON.stringify(eventToJson(ev)) + '\n'] };
  } else if (values.json) {
    if (to !== 'anthropic') throw new Error(`no non-streaming encoder for ${to}`);
    encode = anthropicJsonEncode({ clientModel: values.model });
  } else {
    encode = sseEncode({ clientModel: values.model, dialect: to });
  }

  try {
    await run(chain(decode, encode), readFileSync(file), ctx, out);
    if (values.json) out('\n');
    return 0;
  } catch (err) {
    const error = GatewayError.from(err);
    if (!values.json && !values.events && encode.fail) for (const frame of encode.fail(error, ctx)) out(frame);
    else process.stderr.write(anthropicErrorBody(error, ctx.reqId) + '\n');
    process.stderr.write(`replay: ${error.code}: ${error.message}\n`);
    return 1;
  }
}

// `replay ... | head` closes stdout early: that is not a failure
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code === 'EPIPE') process.exit(0);
  throw err;
});

main().then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`replay: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 2;
  },
);
