// Parallel tool calls in a Chat stream (lib/dialects/openai-chat/tool-calls.ts, FAILURE-MODES F6):
// whatever way the upstream cuts the calls' arguments into pieces and interleaves them, by index or at
// a reused index 0 by id, each call becomes one tool-call block with its own arguments, the blocks
// one after the other in the order the calls appeared.
import t, { type Test } from 'tap';
import type { CanonicalEvent } from '../../../lib/chunks.js';
import { ChatStreamDecoder } from '../../../lib/dialects/openai-chat/events.js';
import { JsonValueEnd } from '../../../lib/json/value-end.js';

type Obj = Record<string, unknown>;
const chunk = (choices: unknown[], extra: Obj = {}): string => JSON.stringify({ id: 'chatcmpl-x', object: 'chat.completion.chunk', created: 1, model: 'm', choices, ...extra });
const calls = (tool_calls: Obj[]): string => chunk([{ index: 0, delta: { tool_calls }, finish_reason: null }]);
const FINISH = chunk([{ index: 0, delta: {}, finish_reason: 'tool_calls' }]);
const USAGE = chunk([], { usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 } });

const ARGS = ['{"command":"ls -la"}', '{"command":"echo \\"}{\\" [x]","cwd":"/tmp"}', '{"paths":["a}","b{"],"n":{"deep":[1,{"x":null}]}}'];

/** A small deterministic generator (mulberry32). */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let x = Math.imul(a ^ (a >>> 15), 1 | a);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

/** Each call's arguments cut at random places; the pieces of all calls interleaved at random, each call's in order. */
function interleaved(rand: () => number, reuseIndex: boolean): string[] {
  const pieces = ARGS.map((args) => {
    const out: string[] = [];
    for (let at = 0; at < args.length; ) {
      const n = 1 + Math.floor(rand() * 7);
      out.push(args.slice(at, at + n));
      at += n;
    }
    return out;
  });
  const next = ARGS.map(() => 0);
  const frames: string[] = [];
  // calls appear in order (the first piece of call i+1 after the first of call i), then mix
  for (let i = 0; ; ) {
    const open = next.map((n, c) => (n < pieces[c]!.length && (n > 0 || c === i) ? c : -1)).filter((c) => c !== -1);
    if (open.length === 0) break;
    const c = open[Math.floor(rand() * open.length)]!;
    const first = next[c] === 0;
    if (first) i++;
    const entry: Obj = { index: reuseIndex ? 0 : c, function: { arguments: pieces[c]![next[c]!]! } };
    if (first || reuseIndex) entry.id = `call_${c}`;
    if (first) (entry.function as Obj).name = `tool_${c}`;
    frames.push(calls([entry]));
    next[c]!++;
  }
  return frames;
}

function decode(frames: string[]): CanonicalEvent[] {
  const dec = new ChatStreamDecoder();
  return [...frames, FINISH, USAGE, '[DONE]'].flatMap((data) => dec.sse({ event: undefined, data }));
}

/** The calls as blocks carry them, checking the blocks open one at a time. */
function blocks(t: Test, events: CanonicalEvent[]): { id: string; name: string; args: string }[] {
  const out: { id: string; name: string; args: string }[] = [];
  let open = -1;
  for (const ev of events) {
    if (ev.type === 'block-start') {
      t.equal(open, -1, `block ${ev.index} starts with none open`);
      open = ev.index;
      if (ev.block.kind === 'tool-call') out[ev.index] = { id: ev.block.id, name: ev.block.name, args: '' };
    } else if (ev.type === 'tool-input-delta') {
      t.equal(ev.index, open, 'arguments for the open block');
      out[ev.index]!.args += ev.json;
    } else if (ev.type === 'block-stop') {
      t.equal(ev.index, open, 'the open block stops');
      open = -1;
    }
  }
  return out;
}

t.test('interleaved pieces, by index and at a reused index 0 with ids: one block per call, in order', async (t) => {
  for (const reuseIndex of [false, true]) {
    for (let seed = 1; seed <= 40; seed++) {
      const events = decode(interleaved(random(seed), reuseIndex));
      const got = blocks(t, events);
      t.same(got, ARGS.map((args, c) => ({ id: `call_${c}`, name: `tool_${c}`, args })), `seed ${seed}, reused index ${reuseIndex}`);
      t.match(events.at(-2), { type: 'message-delta', stop: { kind: 'tool-calls' } });
    }
  }
});

t.test('a call named again at an index whose arguments are whole is a new call (same id or none)', async (t) => {
  for (const id of [undefined, 'call_s']) {
    const events = decode([
      calls([{ index: 0, id: 'call_s', function: { name: 'bash', arguments: '{"command":"ls"}' } }]),
      calls([{ index: 0, ...(id ? { id } : {}), function: { name: 'bash', arguments: '{"command":' } }]),
      calls([{ index: 0, function: { arguments: '"pwd"}' } }]),
    ]);
    const got = blocks(t, events);
    t.same(got.map((b) => b.args), ['{"command":"ls"}', '{"command":"pwd"}'], `repeated id ${id}`);
    t.equal(new Set(got.map((b) => b.id)).size, 2, 'distinct ids');
  }
});

t.test('JsonValueEnd: whole only when the brackets close outside strings, whatever the pieces', async (t) => {
  for (const text of ARGS) {
    for (const size of [1, 2, 3, 5, text.length]) {
      const end = new JsonValueEnd();
      for (let at = 0; at < text.length; at += size) {
        t.notOk(end.complete, `not whole before byte ${at} (${size}-byte pieces)`);
        end.feed(text.slice(at, at + size));
      }
      t.ok(end.complete, `whole at the end (${size}-byte pieces)`);
      end.feed(' \n');
      t.ok(end.complete, 'whitespace after it changes nothing');
      end.feed('{');
      t.notOk(end.complete, 'a second value opens');
    }
  }
});
