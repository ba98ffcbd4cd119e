// bin/replay: a recorded upstream answer run through the gateway's own stages, offline (usage in
// HELP below). The logic is lib/replay; this file reads the command line and the files, prints,
// and turns outcomes into exit codes: 0 replayed, 1 the recording failed a check, 2 bad usage or
// unreadable input.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { replay, ReplayInputError, type ReplayDialect, type ReplayOptions, type ServedFacts } from '../lib/replay/index.js';

const HELP = `usage: replay FILE [--from D] [--to D] [--chunks N|random] [--seed S] [--events|--json]
              [--model M] [--request-id ID] [--now SECONDS] [--reencode]

Runs a recorded upstream answer (an SSE stream or a JSON body, as bin/gateway --record writes them
or as in fixtures/upstream/) through the gateway's stages: sse-decode -> provider-decode ->
integrity -> the client dialect's encoder, and prints what a client would receive.

  FILE              the recording
  --from D          its dialect: anthropic, chat or responses. Default: detected from the frames:
                    a JSON body with "type":"message" (or an Anthropic error) is anthropic,
                    "object":"chat.completion" chat, "object":"response" responses; in a stream the
                    first event whose data is JSON decides: "object":"chat.completion.chunk" or
                    [DONE] is chat, a type starting with "response." responses, message_start,
                    content_block_* or ping anthropic
  --to D            the client's dialect (default: the recording's, or the recorded client's)
  --chunks N|random feed N bytes at a time, or seeded random sizes (default: the whole file)
  --seed S          seed of --chunks random (default 1)
  --events          print each canonical event as one JSON line instead
  --json            print the non-streaming JSON answer the gateway would send instead
  --model M         the model the client asked for (default: the upstream's)
  --request-id ID   the gateway request id (default req_replay)
  --now SECONDS     the clock the encoders stamp (created, created_at), so runs repeat (default 0)
  --reencode        re-encode every event from its canonical fields, as the gateway did before
                    same-dialect frames were written through (Chat to Chat, Responses to Responses)
  -h, --help        this text

A recording written by bin/gateway --record has a FILE.meta.json beside it (same name, .meta.json
instead of its extension): its dialects, client model, stream/JSON choice, request id, time and the
catalog model that served (name, routing, price) are the defaults, so the replay gives the client's
answer again (a Responses answer's echo of request fields excepted: requests are not recorded).
An attempt that answered an HTTP error (a failover's first try) is printed as recorded, exit 1.

Exit status: 0 replayed; 1 the recording failed a check (stderr names the byte offset, the event
and the rule; stdout holds what the client got, error included); 2 bad usage or unreadable file.`;

const DIALECTS: Record<string, ReplayDialect> = {
  anthropic: 'anthropic', messages: 'anthropic', chat: 'openai-chat', 'openai-chat': 'openai-chat', responses: 'openai-responses', 'openai-responses': 'openai-responses',
};

class UsageError extends Error {}

function dialect(flag: string, value: string | undefined): ReplayDialect | undefined {
  if (value === undefined) return undefined;
  const d = DIALECTS[value];
  if (d === undefined) throw new UsageError(`${flag} must be anthropic, chat or responses, got "${value}"`);
  return d;
}

function integer(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value)) throw new UsageError(`${flag} must be a non-negative integer, got "${value}"`);
  return Number(value);
}

interface Recorded {
  /** defaults for the replay */
  opts: ReplayOptions;
  /** the upstream's HTTP status, when recorded */
  status?: number;
}

/** What a recording's .meta.json says (lib/providers/recorder.ts writes it); no defaults when there is none. */
function readMeta(file: string): Recorded {
  let meta: Record<string, unknown>;
  try {
    meta = JSON.parse(readFileSync(file.replace(/(\.[^./]*)?$/, '.meta.json'), 'utf8')) as Record<string, unknown>;
  } catch {
    return { opts: {} };
  }
  const up = (meta.upstream ?? {}) as Record<string, unknown>;
  const client = (meta.client ?? {}) as Record<string, unknown>;
  const known = (v: unknown): ReplayDialect | undefined => (typeof v === 'string' ? DIALECTS[v] : undefined);
  const out: ReplayOptions = {};
  if (known(up.dialect)) out.from = known(up.dialect);
  if (known(client.dialect)) out.to = known(client.dialect);
  if (typeof client.model === 'string') out.clientModel = client.model;
  if (typeof client.stream === 'boolean') out.output = client.stream ? 'sse' : 'json';
  if (typeof meta.requestId === 'string') out.requestId = meta.requestId;
  if (typeof meta.time === 'number') out.now = meta.time;
  const served = meta.served as ServedFacts | null | undefined;
  if (served !== null && typeof served === 'object' && typeof served.modelId === 'string') out.served = served;
  return { opts: out, ...(typeof up.status === 'number' ? { status: up.status } : {}) };
}

function main(argv: string[]): number {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        from: { type: 'string' }, to: { type: 'string' }, chunks: { type: 'string' }, seed: { type: 'string' },
        events: { type: 'boolean' }, json: { type: 'boolean' }, model: { type: 'string' }, 'request-id': { type: 'string' },
        now: { type: 'string' }, reencode: { type: 'boolean' }, help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const { values: v, positionals } = parsed;
  if (v.help) {
    process.stdout.write(HELP + '\n');
    return 0;
  }
  if (positionals.length !== 1) throw new UsageError(positionals.length === 0 ? 'no FILE given' : `one FILE only, got ${positionals.length}`);
  if (v.events && v.json) throw new UsageError('--events and --json exclude each other');
  const file = positionals[0]!;
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    throw new UsageError(`cannot read ${file}: ${e.code === 'ENOENT' ? 'no such file' : e.code === 'EISDIR' ? 'it is a directory' : e.message}`);
  }
  if (bytes.length === 0) throw new UsageError(`${file} is empty`);
  const chunks = v.chunks === undefined || v.chunks === 'random' ? v.chunks : integer('--chunks', v.chunks);
  if (chunks === 0) throw new UsageError('--chunks must be at least 1');

  const recorded = readMeta(file);
  if (recorded.status !== undefined && (recorded.status < 200 || recorded.status > 299)) {
    // dispatch never decodes an error answer: it becomes the client's error, or the next deployment is tried
    process.stdout.write(bytes);
    process.stderr.write(`replay: this attempt answered HTTP ${recorded.status}: an error body (printed as recorded), which dispatch turns into the client's error or a failover, never decodes\n`);
    return 1;
  }
  const opts: ReplayOptions = { ...recorded.opts };
  const from = dialect('--from', v.from);
  if (from !== undefined) opts.from = from;
  const to = dialect('--to', v.to);
  if (to !== undefined) opts.to = to;
  if (v.events) opts.output = 'events';
  if (v.json) opts.output = 'json';
  if (chunks !== undefined) opts.chunks = chunks;
  if (v.seed !== undefined) opts.seed = integer('--seed', v.seed);
  if (v.model !== undefined) opts.clientModel = v.model;
  if (v['request-id'] !== undefined) opts.requestId = v['request-id'];
  if (v.now !== undefined) opts.now = integer('--now', v.now);
  if (v.reencode) opts.reencode = true;

  const result = replay(bytes, opts);
  process.stdout.write(result.text);
  if (opts.output === 'json' && !result.text.endsWith('\n')) process.stdout.write('\n');
  const f = result.failure;
  if (f === null) return 0;
  const at = f.eventIndex === null ? 'at the end of input' : `in upstream event ${f.eventIndex}`;
  process.stderr.write(`replay: ${f.error.code} at byte ${f.offset} (${at})\n  event: ${f.event.replaceAll('\n', '\n         ')}\n  rule: ${f.rule}\n`);
  return 1;
}

// `replay ... | head` closes stdout early: that is not a failure
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code === 'EPIPE') process.exit(0);
  throw err;
});

try {
  process.exitCode = main(process.argv.slice(2));
} catch (err) {
  if (!(err instanceof UsageError || err instanceof ReplayInputError)) throw err;
  process.stderr.write(`replay: ${err.message} (replay --help for usage)\n`);
  process.exitCode = 2;
}
