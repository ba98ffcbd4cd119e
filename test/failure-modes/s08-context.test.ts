// FAILURE-MODES.md §8 — context window, compaction and token counting: count_tokens answered,
// context-overflow errors in the words each client acts on, output ceilings of the served model.
import t from 'tap';
import { send } from './clients.js';
import { anthropicStream, JSON_HEAD, modelId, recordedError, startFm, type Api, type Script } from './upstream.js';

const CHAT_OVERFLOW = {
  error: {
    message: "This model's maximum context length is 128000 tokens. However, your messages resulted in 130532 tokens. Please reduce the length of the messages.",
    type: 'invalid_request_error',
    param: 'messages',
    code: 'context_length_exceeded',
  },
};
const VLLM_OVERFLOW = { object: 'error', message: "This model's maximum context length is 262144 tokens. However, you requested 263000 tokens (230000 in the messages, 33000 in the completion). Please reduce the length of the messages or completion.", type: 'BadRequestError', param: null, code: 400 };

const script: Script = {
  'a-too-long': recordedError('anthropic-400-invalid_request_error-prompt-too-long'),
  'r-too-long': recordedError('openai-400-context_length_exceeded-responses'),
  'c-too-long': { status: 400, headers: JSON_HEAD, body: JSON.stringify(CHAT_OVERFLOW) },
  'c-vllm-too-long': { status: 400, headers: JSON_HEAD, body: JSON.stringify(VLLM_OVERFLOW) },
  'a-echo': { body: anthropicStream('a-echo', [{ type: 'text', text: 'ok' }], 'end_turn') },
};
const models: { name: string; api: Api }[] = [
  { name: 'a-too-long', api: 'messages' },
  { name: 'a-echo', api: 'messages' },
  { name: 'r-too-long', api: 'responses' },
  { name: 'c-too-long', api: 'chat' },
  { name: 'c-vllm-too-long', api: 'chat' },
];
const ASK: Record<string, (m: string) => Record<string, unknown>> = {
  messages: (m) => ({ model: modelId(m), max_tokens: 1000, messages: [{ role: 'user', content: 'a very long prompt' }] }),
  chat: (m) => ({ model: modelId(m), messages: [{ role: 'user', content: 'a very long prompt' }] }),
  responses: (m) => ({ model: modelId(m), input: 'a very long prompt' }),
};

t.test('failure modes §8', async (t) => {
  const { up, gw } = await startFm(t, script, models);

  // decisions: no authoritative local count exists, so count_tokens answers 404 on purpose and Claude
  // Code estimates; what F56 saw elsewhere was an admin-only route, a 5xx or a non-Anthropic envelope
  t.test('F56 count_tokens answers any key with a Messages-shaped answer Claude Code can act on, never admin-only or 5xx', async (t) => {
    for (const model of ['anthropic/claude-opus-5', 'openai/gpt-5']) {
      const a = await send(gw, 'messages', { model, messages: [{ role: 'user', content: 'hi' }] }, { path: '/v1/messages/count_tokens?beta=true' });
      t.ok(a.status === 200 || a.status === 404, `${model}: ${a.status} ${a.text.slice(0, 200)}`);
      if (a.status === 200) t.type(a.json.input_tokens, 'number');
      else t.match(a.json, { type: 'error', error: { type: 'not_found_error' } }, 'the Messages envelope');
    }
  });

  for (const m of ['c-too-long', 'r-too-long', 'c-vllm-too-long']) {
    t.test(`F57 context overflow from ${m} reaches a Messages client in Anthropic's words (Claude Code compacts on them)`, async (t) => {
      const a = await send(gw, 'messages', ASK.messages!(m));
      t.equal(a.status, 400, a.text.slice(0, 300));
      t.equal(a.json.error.type, 'invalid_request_error');
      t.match(a.json.error.message, /prompt is too long/, a.json.error.message);
      t.equal(up.calls(m).length >= 1, true);
    });
  }
  for (const ep of ['chat', 'responses'] as const) {
    for (const m of ['a-too-long', 'c-vllm-too-long']) {
      t.test(`F57 context overflow from ${m} reaches a ${ep} client as code context_length_exceeded (OpenCode, Codex compact on it)`, async (t) => {
        const a = await send(gw, ep, ASK[ep]!(m));
        t.equal(a.status, 400, a.text.slice(0, 300));
        t.equal(a.json.error.code, 'context_length_exceeded', a.text.slice(0, 300));
        t.notOk(/All .* failed/.test(a.json.error.message), 'not masked as a provider failure');
      });
    }
  }

  t.test('F58 an output ceiling above the served model’s is capped to it, never passed on to overflow', async (t) => {
    const a = await send(gw, 'messages', { model: modelId('a-echo'), max_tokens: 32000, messages: [{ role: 'user', content: 'hi' }] });
    t.equal(a.status, 200, a.text.slice(0, 200));
    t.equal(up.calls('a-echo').at(-1)!.body.max_tokens, 8192, 'capped to the catalog maximum');
    t.equal(a.json.gateway?.max_tokens_capped_to, 8192, 'and said so');
  });
});
