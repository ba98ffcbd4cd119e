// A non-streaming answer is read whole by the answer check and decoded there once; the stages after
// dispatch take that text and its events instead of decoding the bytes again
// (lib/providers/checked-answer.ts). Through bin/gateway, against a scripted loopback upstream that
// writes the same JSON body once whole and once in pieces written apart, cut inside multi-byte UTF-8
// characters (2, 3 and 4 bytes long): the client gets the very same answer, its text exact, on the
// native Chat and Messages paths and translated (a Chat client, an Anthropic upstream).
import t from 'tap';
import { send } from '../failure-modes/clients.js';
import { JSON_HEAD, modelId, startFm, type Canned, type Script } from '../failure-modes/upstream.js';

const TEXT = 'Café au lait ☕ — naïve 😀 日本語';

const CHAT_BODY = JSON.stringify({
  id: 'chatcmpl-up',
  object: 'chat.completion',
  created: 7,
  model: 'c-json',
  choices: [{ index: 0, message: { role: 'assistant', content: TEXT, refusal: null, annotations: [] }, logprobs: null, finish_reason: 'stop' }],
  usage: { prompt_tokens: 9, completion_tokens: 12, total_tokens: 21 },
});

const MESSAGES_BODY = JSON.stringify({
  id: 'msg_up',
  type: 'message',
  role: 'assistant',
  model: 'a-json',
  content: [{ type: 'text', text: TEXT }],
  stop_reason: 'end_turn',
  stop_sequence: null,
  usage: { input_tokens: 9, output_tokens: 12 },
});

/** `body` in pieces, each cut after the first byte(s) of a multi-byte character (é: 2 bytes, ☕: 3, 😀: 4) */
function cutInsideCharacters(body: string): Buffer[] {
  const bytes = Buffer.from(body, 'utf8');
  const cuts = [['é', 1], ['☕', 2], ['😀', 3], ['😀', 1]].map(([ch, k]) => bytes.indexOf(Buffer.from(ch as string, 'utf8'), bytes.indexOf('"Caf')) + (k as number));
  cuts.sort((a, b) => a - b);
  return [0, ...cuts].map((from, i) => bytes.subarray(from, cuts[i])); // the last piece goes to the end
}

/** the first request to `name` gets the body whole, the next one in pieces, and so on */
function wholeThenPieces(body: string): () => Canned {
  let calls = 0;
  return () => (calls++ % 2 === 0 ? { headers: JSON_HEAD, body } : { headers: JSON_HEAD, body: cutInsideCharacters(body), gapMs: 10 });
}

const script: Script = {
  'c-json': wholeThenPieces(CHAT_BODY),
  'a-json': wholeThenPieces(MESSAGES_BODY),
};

/** an answer without what differs between two requests (the gateway's ids, clock and request object) */
function same(text: string): unknown {
  const { gateway: _g, id: _i, created: _c, ...rest } = JSON.parse(text) as Record<string, unknown>;
  return rest;
}

t.test('a JSON answer in pieces cut inside UTF-8 characters gives the answer it gives whole', async (t) => {
  t.equal(cutInsideCharacters(CHAT_BODY).length, 5, 'five pieces');
  t.throws(() => new TextDecoder('utf-8', { fatal: true }).decode(cutInsideCharacters(CHAT_BODY)[1]), 'a piece is not whole UTF-8 on its own');
  const { gw } = await startFm(t, script, [
    { name: 'c-json', api: 'chat' },
    { name: 'a-json', api: 'messages' },
  ]);
  const cases = [
    { what: 'Chat → Chat (native)', api: 'chat', model: 'c-json', text: (j: any) => j.choices[0].message.content },
    { what: 'Messages → Messages (native)', api: 'messages', model: 'a-json', text: (j: any) => j.content[0].text },
    { what: 'Chat → Messages (translated)', api: 'chat', model: 'a-json', text: (j: any) => j.choices[0].message.content },
  ] as const;
  for (const c of cases) {
    const body = { model: modelId(c.model), max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] };
    const whole = await send(gw, c.api, body);
    const pieces = await send(gw, c.api, body);
    t.equal(whole.status, 200, `${c.what}, whole: ${whole.text.slice(0, 300)}`);
    t.equal(pieces.status, 200, `${c.what}, in pieces: ${pieces.text.slice(0, 300)}`);
    t.equal(c.text(pieces.json), TEXT, `${c.what}: the text, exact`);
    t.same(same(pieces.text), same(whole.text), `${c.what}: the same answer`);
  }
});
