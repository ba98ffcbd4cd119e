// bin/replay as a user runs it: a recording of each upstream dialect into each client dialect, with
// --chunks 1 and --chunks random printing the same bytes as the whole file; --help; one-line errors
// (exit 2) for a missing, empty or unreadable file and for bad flags; dialect detection; --json
// for each client dialect; an integrity failure naming the byte offset, the event and the rule.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { fixture } from './helpers/paths.js';
import { runReplay } from './helpers/replay-bin.js';

const REPRESENTATIVE = [fixture('upstream', 'anthropic', 'tool-use-parallel.sse'), fixture('upstream', 'openai-chat', 'tool-calls-parallel.sse'), fixture('upstream', 'openai-responses', 'reasoning-text.sse')];
const TO = ['anthropic', 'chat', 'responses'];

for (const file of REPRESENTATIVE) {
  t.test(`${file.split('/').slice(-2).join('/')} into each client dialect, whole and chunked`, async (t) => {
    for (const to of TO) {
      const whole = await runReplay([file, '--to', to]);
      t.equal(whole.code, 0, `--to ${to}: exit 0`);
      t.equal(whole.stderr, '', `--to ${to}: nothing on stderr`);
      t.ok(whole.stdout.length > 100, `--to ${to}: the client's stream`);
      for (const chunks of ['1', 'random']) {
        const got = await runReplay([file, '--to', to, '--chunks', chunks, '--seed', '3']);
        t.equal(got.stdout, whole.stdout, `--to ${to} --chunks ${chunks}: same bytes as the whole file`);
      }
    }
  });
}

t.test('--json prints the non-streaming answer of each client dialect', async (t) => {
  const file = fixture('upstream', 'openai-responses', 'function-calls-parallel.sse');
  const shape: Record<string, (b: Record<string, unknown>) => boolean> = {
    anthropic: (b) => b.type === 'message' && (b.content as { type: string }[]).filter((c) => c.type === 'tool_use').length === 2,
    chat: (b) => b.object === 'chat.completion' && ((b.choices as { message: { tool_calls: unknown[] } }[])[0]!.message.tool_calls.length === 2),
    responses: (b) => b.object === 'response' && (b.output as { type: string }[]).filter((o) => o.type === 'function_call').length === 2,
  };
  for (const to of TO) {
    const r = await runReplay([file, '--to', to, '--json']);
    t.equal(r.code, 0, to);
    t.ok(shape[to]!(JSON.parse(r.stdout) as Record<string, unknown>), `${to}: the assembled object`);
    const chunked = await runReplay([file, '--to', to, '--json', '--chunks', '1']);
    t.equal(chunked.stdout, r.stdout, `${to}: --chunks 1 gives the same object`);
  }
});

t.test('--events prints one canonical event a line', async (t) => {
  const r = await runReplay([fixture('upstream', 'anthropic', 'text-basic.sse'), '--events']);
  t.equal(r.code, 0);
  const events = r.stdout.trimEnd().split('\n').map((l) => JSON.parse(l) as { type: string });
  t.equal(events[0]!.type, 'message-start');
  t.equal(events.at(-1)!.type, 'message-stop');
});

t.test('detection: without --from the dialect comes from the frames, wherever the file is', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'replay-detect-'));
  for (const [from, name] of [['anthropic', 'text-basic.json'], ['openai-chat', 'text-usage.sse'], ['openai-responses', 'text.sse'], ['openai-chat', 'text.json'], ['openai-responses', 'refusal.json']] as const) {
    const copy = join(dir, `recording-${from}-${name}`); // no dialect in the folder name
    writeFileSync(copy, readFileSync(fixture('upstream', from, name)));
    const detected = await runReplay([copy, '--events']);
    const given = await runReplay([copy, '--events', '--from', from.replace('openai-', '')]);
    t.equal(detected.code, 0, `${from}/${name}`);
    t.equal(detected.stdout, given.stdout, `${from}/${name}: detected = --from ${from}`);
    t.match(detected.stdout, `"native":"${from}:`, `${from}/${name}: decoded as ${from}`);
  }
  writeFileSync(join(dir, 'noise.sse'), 'data: hello\n\n');
  const r = await runReplay([join(dir, 'noise.sse')]);
  t.equal(r.code, 2, 'undetectable: exit 2');
  t.match(r.stderr, /cannot tell the dialect .*--from/);
});

t.test('--help prints usage and exits 0', async (t) => {
  for (const flag of ['--help', '-h']) {
    const r = await runReplay([flag]);
    t.equal(r.code, 0);
    t.match(r.stdout, /^usage: replay FILE/);
    t.match(r.stdout, /--chunks N\|random/);
    t.match(r.stdout, /Default: detected from the frames/, 'says how the dialect is detected');
    t.equal(r.stderr, '');
  }
});

t.test('bad input: one clear line on stderr, exit 2', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'replay-bad-'));
  writeFileSync(join(dir, 'empty.sse'), '');
  const text = fixture('upstream', 'anthropic', 'text-basic.sse');
  const cases: [string[], RegExp][] = [
    [[join(dir, 'missing.sse')], /^replay: cannot read .*missing\.sse: no such file/],
    [[dir], /^replay: cannot read .*: it is a directory/],
    [[join(dir, 'empty.sse')], /^replay: .*empty\.sse is empty/],
    [[], /^replay: no FILE given/],
    [[text, '--to', 'gemini'], /^replay: --to must be anthropic, chat or responses, got "gemini"/],
    [[text, '--from', 'x'], /^replay: --from must be/],
    [[text, '--chunks', '0'], /^replay: --chunks must be at least 1/],
    [[text, '--chunks', 'many'], /^replay: --chunks must be a non-negative integer/],
    [[text, '--bogus'], /^replay: Unknown option '--bogus'/],
    [[text, '--json', '--events'], /^replay: --events and --json exclude each other/],
  ];
  for (const [args, message] of cases) {
    const r = await runReplay(args);
    t.equal(r.code, 2, `${args.join(' ')}: exit 2`);
    t.match(r.stderr, message, `${args.join(' ')}: message`);
    t.equal(r.stderr.trimEnd().split('\n').length, 1, `${args.join(' ')}: one line`);
    t.notMatch(r.stderr, /internal|GW_ERR_INTERNAL|at .*\.js:\d+/, 'not an internal error or a stack');
  }
});

t.test('an integrity failure names the byte offset, the event and the rule; exit 1', async (t) => {
  const original = readFileSync(fixture('upstream', 'anthropic', 'tool-use-parallel.sse'), 'utf8');
  // the second block claims index 0 again
  const marker = 'event: content_block_start\ndata: {"type":"content_block_start","index":1';
  const offset = Buffer.byteLength(original.slice(0, original.indexOf(marker)));
  t.ok(offset > 0, 'the fixture has a second block');
  const broken = original.replace(marker, marker.replace('"index":1', '"index":0'));
  const dir = mkdtempSync(join(tmpdir(), 'replay-broken-'));
  const file = join(dir, 'broken.sse');
  writeFileSync(file, broken);
  for (const chunks of [[], ['--chunks', '1'], ['--chunks', 'random']]) {
    const r = await runReplay([file, ...chunks]);
    t.equal(r.code, 1, `${chunks.join(' ')}: exit 1`);
    t.match(r.stderr, new RegExp(`GW_ERR_INTEGRITY at byte ${offset} `), 'the offset of the broken event');
    t.match(r.stderr, /event: event: content_block_start\n\s+data: \{"type":"content_block_start","index":0/, 'the event as recorded');
    t.match(r.stderr, /rule: .*block 0 started, but the next index is 1/, 'the rule broken');
    t.match(r.stdout, /event: error\ndata: \{"type":"error","error":\{"type":"api_error"/, 'stdout ends with the error frame the client got');
  }
  // a stream cut short fails at the end of input
  const cut = join(dir, 'cut.sse');
  writeFileSync(cut, original.slice(0, original.indexOf('event: message_delta')));
  const r = await runReplay([cut, '--to', 'chat']);
  t.equal(r.code, 1);
  t.match(r.stderr, new RegExp(`at byte ${Buffer.byteLength(original.slice(0, original.indexOf('event: message_delta')))} \\(at the end of input\\)`));
  t.match(r.stderr, /rule: .*stream ended before message_stop/);
  t.match(r.stdout, /"finish_reason":"error"/, 'the chat client got an error chunk');
});
