// Reasoning state across dialects, end to end against the simulated provider's Responses endpoint
// (lib/sim/responses.ts signs each reasoning item's summary into `encrypted_content` and verifies
// it on the next turn): a Messages (or Chat) request → anthropicToResponses / chatToResponses →
// the sim's answer (SSE and JSON) → the canonical thinking block (signature) → the client's next
// turn → the same reasoning item, byte-identical, accepted by the sim.
import t from 'tap';
import type { JsonObject } from '../../../lib/chunks.js';
import {
  decodeReasoningSignature, encodeReasoningSignature, isResponsesSignature, reasoningInputItem, withoutResponsesThinking,
} from '../../../lib/translate/reasoning-state.js';
import { chatToResponses } from '../../../lib/translate/chat-to-responses.js';
import { anthropicToResponses } from '../../../lib/translate/messages-to-responses.js';
import { thinkingDetail } from '../../../lib/translate/reasoning-details.js';
import { renderFrame } from '../../../lib/sim/io.js';
import { responsesDemo } from '../../../lib/sim/responses.js';
import { Ids, parseSimModel } from '../../../lib/sim/spec.js';
import { routedFor, validMessages } from '../translate/harness.js';
import { accumulate, decodeChunks, RESPONSES_DEPLOYMENT } from './harness.js';

type Obj = Record<string, unknown>;
const TOOLS = [{ name: 'get_weather', description: 'Weather', input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } }];
const ids = new Ids();

/** The sim's answer to an upstream body: its canonical events' message, and the raw reasoning item. */
function simTurn(body: Obj): { decoded: ReturnType<typeof accumulate>; item: Obj } {
  const outcome = responsesDemo(body, { spec: parseSimModel(RESPONSES_DEPLOYMENT.upstreamModel), ids });
  if (outcome.kind === 'json') {
    const item = (outcome.body.output as Obj[]).find((i) => i.type === 'reasoning')!;
    return { decoded: accumulate(decodeChunks([Buffer.from(JSON.stringify(outcome.body))], 'json')), item };
  }
  if (outcome.kind !== 'stream') throw new Error(`the sim answered ${outcome.kind}: ${JSON.stringify(outcome)}`);
  const frames = outcome.frames.map((f) => f.data as Obj);
  const item = frames.find((f) => f.type === 'response.output_item.done' && (f.item as Obj).type === 'reasoning')!.item as Obj;
  return { decoded: accumulate(decodeChunks([Buffer.from(outcome.frames.map((f) => renderFrame(f)).join(''))], 'sse')), item };
}

function firstTurn(stream: boolean): JsonObject {
  return { model: 'claude-opus-5', max_tokens: 2000, thinking: { type: 'adaptive' }, tools: TOOLS, stream, messages: [{ role: 'user', content: 'Weather in Paris?' }] };
}

function upstream(body: JsonObject): Obj {
  validMessages(body);
  return JSON.parse(anthropicToResponses(routedFor('anthropic', body), RESPONSES_DEPLOYMENT).body) as Obj;
}

for (const stream of [true, false]) {
  t.test(`Messages client, ${stream ? 'SSE' : 'JSON'}: thinking signature → the same reasoning item, verified by the model`, async (t) => {
    const first = firstTurn(stream);
    const body1 = upstream(first);
    t.same([body1.include, body1.reasoning, body1.store], [['reasoning.encrypted_content'], { effort: 'high', summary: 'auto' }, false]);
    const { decoded, item } = simTurn(body1);
    t.same(decoded.blocks.map((b) => b.kind), ['thinking', 'tool-call']);
    const [thinking, call] = decoded.blocks as [NonNullable<(typeof decoded.blocks)[0]>, NonNullable<(typeof decoded.blocks)[0]>];
    t.equal(thinking.text, 'Thinking about: Weather in Paris?');
    t.ok(isResponsesSignature(thinking.signature));

    // the Messages client's next turn: the assistant blocks exactly as it received them
    const second: JsonObject = {
      ...first,
      messages: [
        { role: 'user', content: 'Weather in Paris?' },
        { role: 'assistant', content: [
          { type: 'thinking', thinking: thinking.text, signature: thinking.signature },
          { type: 'tool_use', id: call.id, name: call.name, input: JSON.parse(call.json) as JsonObject },
        ] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: call.id, content: '18°C' }] },
      ],
    };
    const body2 = upstream(second);
    const input = body2.input as Obj[];
    t.same(input.map((i) => i.type), ['message', 'reasoning', 'function_call', 'function_call_output']);
    t.equal(JSON.stringify(input[1]), JSON.stringify(item), 'the reasoning item, byte-identical');
    const answer = responsesDemo(body2, { spec: parseSimModel(RESPONSES_DEPLOYMENT.upstreamModel), ids });
    t.not(answer.kind, 'error', 'the model verified its encrypted reasoning');

    // a changed thinking text is caught by the model, not by the gateway
    (((second.messages as JsonObject[])[1]!.content as JsonObject[])[0]!).thinking = 'edited';
    const tampered = responsesDemo(upstream(second), { spec: parseSimModel(RESPONSES_DEPLOYMENT.upstreamModel), ids });
    t.match(tampered, { kind: 'error', status: 400, opts: { code: 'invalid_encrypted_content' } });
  });
}

t.test('Chat client: the signature inside reasoning_details → the same reasoning item', async (t) => {
  const { decoded, item } = simTurn(upstream(firstTurn(true)));
  const [thinking, call] = decoded.blocks;
  const body: JsonObject = {
    model: 'openai/gpt-5',
    reasoning_effort: 'medium',
    tools: [{ type: 'function', function: { name: 'get_weather', parameters: TOOLS[0]!.input_schema } }],
    messages: [
      { role: 'user', content: 'Weather in Paris?' },
      {
        role: 'assistant', content: null, reasoning: thinking!.text,
        reasoning_details: [JSON.parse(JSON.stringify(thinkingDetail(thinking!.text, thinking!.signature, 0))) as JsonObject],
        tool_calls: [{ id: call!.id, type: 'function', function: { name: call!.name, arguments: call!.json } }],
      },
      { role: 'tool', tool_call_id: call!.id, content: '18°C' },
    ],
  };
  const out = JSON.parse(chatToResponses(routedFor('openai-chat', body, { modelId: 'openai/gpt-5' }), RESPONSES_DEPLOYMENT).body) as Obj;
  const input = out.input as Obj[];
  t.equal(JSON.stringify(input[1]), JSON.stringify(item), 'byte-identical');
  t.not(responsesDemo(out, { spec: parseSimModel(RESPONSES_DEPLOYMENT.upstreamModel), ids }).kind, 'error');
});

t.test('the signature format', async (t) => {
  const sig = encodeReasoningSignature('rs:odd%id', 'enc:with:colons==', [3, 0, 12]);
  t.equal(sig, 'oai-rs:rs%3Aodd%25id:3,0,12:enc:with:colons==');
  t.same(decodeReasoningSignature(sig), { id: 'rs:odd%id', encryptedContent: 'enc:with:colons==', summaryLengths: [3, 0, 12] });
  t.same(decodeReasoningSignature('oai-rs:rs_1::e'), { id: 'rs_1', encryptedContent: 'e', summaryLengths: [] });
  for (const bad of ['EqQBCkgIARAB', 'oai-rs:', 'oai-rs:rs_1', 'oai-rs:rs_1:x:e', 'oai-rs::1:e', 'oai-rs:%E0%A4%A:1:e']) {
    t.equal(decodeReasoningSignature(bad), null, bad);
  }
  t.equal(reasoningInputItem('x', 'EqQBCkgIARAB'), null, 'Anthropic signatures give no item');
  t.same(reasoningInputItem('changed text', encodeReasoningSignature('rs_1', 'e', [2, 2])), { id: 'rs_1', type: 'reasoning', encrypted_content: 'e', summary: [{ type: 'summary_text', text: 'changed text' }] }, 'a text that does not fit the lengths stays one part');
  t.same(reasoningInputItem('', encodeReasoningSignature('rs_1', 'e')), { id: 'rs_1', type: 'reasoning', encrypted_content: 'e', summary: [] });
});

t.test('withoutResponsesThinking: the filter for paths that reach Anthropic', async (t) => {
  const sig = encodeReasoningSignature('rs_1', 'e');
  const messages: JsonObject[] = [
    { role: 'user', content: 'q' },
    { role: 'assistant', content: [{ type: 'thinking', thinking: 'a', signature: sig }, { type: 'thinking', thinking: 'b', signature: 'EqQB' }, { type: 'text', text: 'x' }] },
    { role: 'assistant', content: [{ type: 'thinking', thinking: 'c', signature: sig }] },
  ];
  t.same(withoutResponsesThinking(messages), [
    { role: 'user', content: 'q' },
    { role: 'assistant', content: [{ type: 'thinking', thinking: 'b', signature: 'EqQB' }, { type: 'text', text: 'x' }] },
  ]);
  const clean = [{ role: 'user', content: 'q' }];
  t.equal(withoutResponsesThinking(clean), clean, 'nothing to drop: the same array');
});
