// The fast paths of the native streams: a frame recognised by its layout (Chat's content chunk,
// Responses' output_text.delta) must give exactly the object the strict parser gives (same keys, same
// order, same values), with the spans the encoders splice at; anything else, a near miss included,
// must fall back (null) to the strict parser.
import { readdirSync, readFileSync } from 'node:fs';
import t from 'tap';
import { parseChunkLayout } from '../../lib/dialects/openai-chat/chunk-layout.js';
import { parseDeltaLayout } from '../../lib/dialects/openai-responses/delta-layout.js';
import { parseObject } from '../../lib/json/upstream.js';
import { fixture } from '../helpers/paths.js';

function dataLines(dir: string): string[] {
  return readdirSync(fixture('upstream', dir)).filter((f) => f.endsWith('.sse')).flatMap((f) =>
    readFileSync(fixture('upstream', dir, f), 'utf8').split('\n').filter((l) => l.startsWith('data: ')).map((l) => l.slice(6)),
  );
}

const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

t.test('recorded frames: every recognised frame equals the strict parse; content frames are recognised', async (t) => {
  let chat = 0;
  for (const data of dataLines('openai-chat')) {
    const got = parseChunkLayout(data);
    if (got === null) continue;
    chat++;
    t.ok(same(got.parsed, parseObject(data, 'chunk')), `chat frame equals the strict parse: ${data.slice(0, 80)}`);
    t.equal(data.slice(...got.modelSpan), JSON.stringify(got.parsed.model), 'the model span');
  }
  t.ok(chat >= 7, `${chat} recorded Chat content frames recognised (text-usage.sse: OpenAI's own layout)`);
  let responses = 0;
  for (const data of dataLines('openai-responses')) {
    const got = parseDeltaLayout(data);
    if (got === null) continue;
    responses++;
    t.ok(same(got.parsed, parseObject(data, 'event')), `responses frame equals the strict parse: ${data.slice(0, 80)}`);
    t.same(JSON.parse(`{${data.slice(...got.kept)}}`), { delta: got.parsed.delta, logprobs: [] }, 'the kept span: delta and logprobs');
  }
  t.ok(responses >= 20, `${responses} recorded output_text.delta frames recognised`);
});

const CHAT = (content: string, extra = ''): string =>
  `{"id":"chatcmpl-1","object":"chat.completion.chunk","created":17,"model":"gpt-x","choices":[{"index":0,"delta":{"content":${content}},"logprobs":null,"finish_reason":null}]${extra}}`;
const RESP = (delta: string, extra = ''): string =>
  `{"type":"response.output_text.delta","sequence_number":4,"item_id":"msg_1","output_index":0,"content_index":0,"delta":${delta},"logprobs":[]${extra}}`;

t.test('escapes and multi-byte text decode as the strict parser decodes them', async (t) => {
  for (const s of ['"plain"', '"caf\\u00e9 \\"q\\" \\\\ \\/ \\n"', '"😀 日本"', '"\\ud83d\\ude00"', '""']) {
    const c = parseChunkLayout(CHAT(s, ',"usage":null,"obfuscation":"ab"'));
    t.ok(c !== null && same(c.parsed, parseObject(CHAT(s, ',"usage":null,"obfuscation":"ab"'), 'c')), `chat ${s}`);
    const r = parseDeltaLayout(RESP(s, ',"obfuscation":"x"'));
    t.ok(r !== null && same(r.parsed, parseObject(RESP(s, ',"obfuscation":"x"'), 'r')), `responses ${s}`);
  }
});

t.test('near misses take the general path', async (t) => {
  const chat = [
    CHAT('"a"').replace('{"id"', '{ "id"'), // whitespace
    CHAT('"a"', ',"usage":{"prompt_tokens":1}'), // real usage
    CHAT('"a"', ',"gateway":{}'), // an unknown member
    CHAT('"a"').replace('"index":0', '"index":1'), // a second choice
    CHAT('"a"').replace('"finish_reason":null', '"finish_reason":"stop"'),
    CHAT('"a"').replace('"logprobs":null', '"logprobs":{}'),
    CHAT('"a\\x"'), // a bad escape
    CHAT('"a\u0001"'), // a raw control character
    CHAT('"a"').replace('"created":17', '"created":017'),
    CHAT('"a"').replace('"created":17', '"created":1.5'),
    CHAT('"a"').replace('"model":"gpt-x"', '"model":"gpt-x","model":"y"'), // a duplicate key
    CHAT('"a"').replace('"content":"a"', '"content":"a","role":"assistant"'),
  ];
  for (const data of chat) t.equal(parseChunkLayout(data), null, data);
  const resp = [
    RESP('"a"', ',"extra":1'),
    RESP('"a"').replace('"logprobs":[]', '"logprobs":[{}]'),
    RESP('"a"').replace('"sequence_number":4', '"sequence_number":-4'),
    RESP('"a"').replace('output_text.delta', 'refusal.delta'),
    RESP('"a"').replace('"item_id":"msg_1"', '"item_id":"msg_1","item_id":"msg_2"'),
    RESP('"a\\q"'),
  ];
  for (const data of resp) t.equal(parseDeltaLayout(data), null, data);
});
