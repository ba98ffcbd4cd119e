// replay() on every recording in fixtures/upstream/{anthropic,openai-chat,openai-responses}, into
// each client dialect, streamed and as the non-streaming JSON answer: 1-byte chunks and seeded random
// chunks give the same bytes (and the same failure, for recordings that end in an upstream error)
// as the whole file; the dialect is detected from the frames; the JSON answers have the shape of
// their dialect. bin/replay itself is run in replay-cli.long.test.ts.
import { readdirSync, readFileSync } from 'node:fs';
import t from 'tap';
import { detectDialect, replay, type ReplayDialect, type ReplayOutput, type ReplayResult } from '../lib/replay/index.js';
import { fixture } from './helpers/paths.js';

const SOURCES: ReplayDialect[] = ['anthropic', 'openai-chat', 'openai-responses'];
const recordings = SOURCES.flatMap((from) =>
  readdirSync(fixture('upstream', from))
    .filter((f) => /\.(sse|json)$/.test(f))
    .sort()
    .map((name) => ({ from, name, bytes: readFileSync(fixture('upstream', from, name)) })),
);

const summary = (r: ReplayResult) => ({ status: r.status, text: r.text, failure: r.failure && { offset: r.failure.offset, rule: r.failure.rule, event: r.failure.event } });

t.test('every dialect folder has recordings, streams and bodies', async (t) => {
  for (const from of SOURCES) {
    const mine = recordings.filter((r) => r.from === from);
    t.ok(mine.some((r) => r.name.endsWith('.sse')) && mine.some((r) => r.name.endsWith('.json')), from);
  }
});

for (const { from, name, bytes } of recordings) {
  t.test(`${from}/${name}`, async (t) => {
    t.equal(detectDialect(bytes), from, 'dialect detected from the frames');
    for (const to of SOURCES) {
      for (const output of ['sse', 'json', 'events'] as ReplayOutput[]) {
        const whole = replay(bytes, { to, output });
        t.equal(whole.from, from);
        t.ok(whole.text.length > 0, `${to} ${output}: output`);
        for (const chunks of [1, 'random'] as const) {
          const got = replay(bytes, { to, output, chunks, seed: 7 });
          t.same(summary(got), summary(whole), `${to} ${output} --chunks ${chunks}: same as whole`);
        }
        if (output === 'json' && whole.failure === null) {
          const body = JSON.parse(whole.text) as Record<string, unknown>;
          if (to === 'anthropic') t.equal(body.type, 'message', `${to} JSON is a Message`);
          if (to === 'openai-chat') t.equal(body.object, 'chat.completion', `${to} JSON is a chat.completion`);
          if (to === 'openai-responses') t.equal(body.object, 'response', `${to} JSON is a Response`);
        }
      }
    }
  });
}

t.test('same dialect in and out, no model given: an Anthropic stream passes through byte for byte', async (t) => {
  const bytes = readFileSync(fixture('upstream', 'anthropic', 'tool-use-parallel.sse'));
  t.equal(replay(bytes).text, bytes.toString('utf8'));
  t.equal(replay(bytes, { chunks: 1 }).text, bytes.toString('utf8'));
});

t.test('the text of one answer, in each client dialect', async (t) => {
  const bytes = readFileSync(fixture('upstream', 'anthropic', 'text-basic.sse'));
  const message = JSON.parse(replay(bytes, { to: 'anthropic', output: 'json', clientModel: 'my-model' }).text) as { content: { text: string }[]; model: string };
  t.same(message.content, [{ type: 'text', text: '1\n2\n3' }]);
  t.equal(message.model, 'my-model', 'the client model is written');
  const chat = JSON.parse(replay(bytes, { to: 'openai-chat', output: 'json' }).text) as { choices: { message: { content: string } }[] };
  t.equal(chat.choices[0]!.message.content, '1\n2\n3');
  const response = JSON.parse(replay(bytes, { to: 'openai-responses', output: 'json' }).text) as { output: { content: { text: string }[] }[] };
  t.equal(response.output[0]!.content[0]!.text, '1\n2\n3');
});

t.test('the encoders clock is pinned: created comes from `now`', async (t) => {
  const bytes = readFileSync(fixture('upstream', 'openai-chat', 'text.json'));
  t.match(replay(bytes, { output: 'json', now: 1234 }).text, /"created":1234,/);
  t.match(replay(bytes, { output: 'json' }).text, /"created":0,/);
});
