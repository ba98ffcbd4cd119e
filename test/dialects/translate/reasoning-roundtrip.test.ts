// A Chat client talking to a Claude model: the previous Anthropic answer reached it as
// `reasoning_details` (lib/dialects/reasoning-details.ts); sent back with a tool round trip, it
// must become the same thinking / redacted_thinking blocks, byte for byte, ahead of the text and
// tool_use blocks, so the signature still verifies upstream.
import t from 'tap';
import type { JsonObject } from '../../../lib/chunks.js';
import { redactedDetail, thinkingDetail } from '../../../lib/translate/reasoning-details.js';
import { chat, messagesCall, rawMessagesCall, thrown } from './harness.js';

/** what the Anthropic model answered on the previous turn */
const THINKING = 'Let me think… the user wants "Paris" \\ weather.\nUse get_weather 🌦 \u2028 then answer.';
const SIGNATURE = 'EqQBCkgIARABGAIiQL+/x9Zk3m7n/AbC+dEF==';
const REDACTED = 'RXJyb3I6IHJlZGFjdGVkIHRoaW5raW5n+/==';

function conversation(details: JsonObject[]): JsonObject {
  return chat({
    model: 'anthropic/claude-opus-5',
    tools: [{ type: 'function', function: { name: 'get_weather', description: 'Weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } }],
    messages: [
      { role: 'system', content: 'You are terse.' },
      { role: 'user', content: 'Weather in Paris?' },
      {
        role: 'assistant',
        content: 'Checking.',
        reasoning: THINKING,
        reasoning_details: details,
        tool_calls: [{ id: 'toolu_01A', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }],
      },
      { role: 'tool', tool_call_id: 'toolu_01A', content: '18°C, clear' },
      { role: 'user', content: 'Thanks. And tomorrow?' },
    ],
    reasoning: { effort: 'medium' },
    stream: true,
  });
}

t.test('thinking comes back byte-identical, first in the assistant turn', async (t) => {
  const details = [
    thinkingDetail(THINKING, SIGNATURE, 0),
    redactedDetail(REDACTED, 1),
    { type: 'reasoning.summary', summary: 'other vendor', format: 'openai-responses-v1', index: 2 },
  ];
  // as the client received them: JSON
  const call = messagesCall(conversation(JSON.parse(JSON.stringify(details)) as JsonObject[]));
  const thinkingJson = JSON.stringify({ type: 'thinking', thinking: THINKING, signature: SIGNATURE });
  t.ok(call.body.includes(thinkingJson), 'the thinking block is in the upstream body as the model wrote it');
  const body = JSON.parse(call.body) as JsonObject;
  t.same(body.system, [{ type: 'text', text: 'You are terse.' }]);
  t.same(body.messages, [
    { role: 'user', content: 'Weather in Paris?' },
    {
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: THINKING, signature: SIGNATURE },
        { type: 'redacted_thinking', data: REDACTED },
        { type: 'text', text: 'Checking.' },
        { type: 'tool_use', id: 'toolu_01A', name: 'get_weather', input: { city: 'Paris' } },
      ],
    },
    {
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: 'toolu_01A', content: '18°C, clear' },
        { type: 'text', text: 'Thanks. And tomorrow?' },
      ],
    },
  ], 'other vendors\' details are skipped; the plain reasoning string is not sent');
  const blocks = ((body.messages as JsonObject[])[1]!.content as JsonObject[]);
  t.equal(blocks[0]!.thinking, THINKING, 'thinking text identical');
  t.equal(blocks[0]!.signature, SIGNATURE, 'signature identical');
  t.equal(blocks[1]!.data, REDACTED, 'redacted data identical');
  t.same([body.thinking, body.output_config, body.stream], [{ type: 'adaptive' }, { effort: 'medium' }, true]);
});

t.test('a malformed Anthropic detail is refused at its path', async (t) => {
  const bad = { type: 'reasoning.text', text: 'x', format: 'anthropic-claude-v1', index: 0 }; // no signature
  for (const run of [messagesCall, rawMessagesCall]) {
    const err = thrown(() => run(conversation([bad]), {}));
    t.equal(err.code, 'GW_ERR_REQUEST_INVALID', run.name);
    t.equal(err.param, 'messages[2].reasoning_details[0]', run.name);
  }
});
