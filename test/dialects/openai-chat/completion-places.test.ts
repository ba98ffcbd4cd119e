// Where a recognised `chat.completion`'s message ends (completion-layout.ts `completionPlaces`):
// found by text, after the content, as the walk over the message (`valueEnd`) finds it, over answers
// written as the layout has them (with and without `logprobs`, `refusal`, `annotations`, content
// holding the very texts searched for, escapes, non-ASCII) and thousands of seeded mutations of them.
import t from 'tap';
import { completionPlaces, recogniseCompletion } from '../../../lib/dialects/openai-chat/completion-layout.js';
import { valueEnd } from '../../../lib/json/member-spans.js';
import { prng } from '../../json/json-gen.js';

const USAGE = { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 };
function answer(message: object, choiceExtra: object = { logprobs: null }): string {
  return JSON.stringify({
    id: 'c', object: 'chat.completion', created: 1, model: 'm',
    choices: [{ index: 0, message: { role: 'assistant', ...message }, ...choiceExtra, finish_reason: 'stop' }], usage: USAGE,
  });
}
const TRICKY = 'a "q" \\ },"finish_reason":"x ,"logprobs":null}],"usage":{ ,"message":{ é 😀 \u2028 \n\t }';
const ANSWERS = [
  answer({ content: 'plain' }),
  answer({ content: 'plain' }, {}),
  answer({ content: TRICKY, refusal: null }),
  answer({ content: TRICKY, refusal: null, annotations: [] }, {}),
  answer({ content: '', annotations: [] }),
  answer({ content: '\\' }),
  answer({ content: '"' }, {}),
];

/** '' when the places agree with the walk (or the text is not recognised) */
function disagreement(text: string): string {
  const r = recogniseCompletion(text);
  if (r === null) return '';
  const places = completionPlaces(text, r.modelSpan);
  const at = text.indexOf(',"message":{') + 11;
  const walked = valueEnd(text, at);
  if (places === null) return walked < 0 ? '' : `no places where the walk found the message's end: ${text}`;
  if (places.message.close !== walked - 1) return `message close ${places.message.close}, the walk ${walked - 1}: ${text}`;
  return '';
}

t.test('the message end by text is where the walk over the message finds it', async (t) => {
  for (const a of ANSWERS) {
    t.not(recogniseCompletion(a), null, 'recognised');
    t.equal(disagreement(a), '');
  }
});

t.test('seeded mutations: never a different message end', async (t) => {
  const rand = prng(7);
  const inserts = ['}', '{', '"', '\\', ',', 'l', ':', ' ', 'null', ',"logprobs":null', ',"finish_reason":"'];
  let recognised = 0;
  let failures = 0;
  for (const a of ANSWERS) {
    for (let i = 0; i < 400; i++) {
      const at = Math.floor(rand() * a.length);
      const r = rand();
      const ins = inserts[Math.floor(rand() * inserts.length)]!;
      const m = r < 0.3 ? a.slice(0, at) + a.slice(at + 1) : r < 0.7 ? a.slice(0, at) + ins + a.slice(at) : a.slice(0, at) + ins + a.slice(at + 1);
      if (recogniseCompletion(m) !== null) recognised++;
      const why = disagreement(m);
      if (why !== '' && failures++ < 10) t.fail(why);
    }
  }
  t.equal(failures, 0);
  t.ok(recognised > 100, `mutations recognised: ${recognised}`);
});
