// The complete Response object (decisions §10): every field the Open Responses schema (release
// 2026-04-24, `ResponseResource`) requires, in the JSON answer and inside the streamed
// `response.created`, `response.in_progress` and `response.completed` events, on every kind of
// deployment; function tools echoed in their normalised form; `output_text` parts with `logprobs`.
import t, { type Test } from 'tap';
import { responsesGateway, type Obj } from './harness.js';

const h = responsesGateway();

/** `ResponseResource.required` of the Open Responses schema. */
const REQUIRED = [
  'id', 'object', 'created_at', 'completed_at', 'status', 'incomplete_details', 'model', 'previous_response_id',
  'instructions', 'output', 'error', 'tools', 'tool_choice', 'truncation', 'parallel_tool_calls', 'text', 'top_p',
  'presence_penalty', 'frequency_penalty', 'top_logprobs', 'temperature', 'reasoning', 'user', 'usage',
  'max_output_tokens', 'max_tool_calls', 'store', 'background', 'service_tier', 'metadata', 'safety_identifier',
  'prompt_cache_key',
];

const WEATHER = { type: 'function', name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } };

const MODELS = ['anthropic/claude-sonnet-5', 'openai/gpt-5', 'openai/gpt-5-mini', 'gateway-auto'];

function complete(t: Test, r: Obj, status: string): void {
  const missing = REQUIRED.filter((k) => !(k in r));
  t.same(missing, [], `${status}: no required field missing`);
  t.match(r, { background: false, presence_penalty: 0, frequency_penalty: 0, top_logprobs: 0, max_tool_calls: null, safety_identifier: null, prompt_cache_key: 'pck-1', service_tier: null, store: false });
  if (status === 'completed') {
    t.type(r.completed_at, 'number', 'completed_at set on a completed response');
    t.ok(Number.isInteger(r.completed_at) && r.completed_at >= r.created_at, 'completed_at in seconds, not before created_at');
  } else {
    t.equal(r.completed_at, null, `${status}: completed_at null`);
  }
  t.same(r.tools, [{ ...WEATHER, description: null, strict: false }], 'function tools echoed with description, parameters and strict');
  for (const item of r.output as Obj[]) {
    if (item.type !== 'message') continue;
    for (const part of item.content as Obj[]) t.same(part.logprobs, [], 'output_text carries logprobs');
  }
}

for (const model of MODELS) {
  t.test(`${model}: the JSON Response object`, async (t) => {
    const r = await h.post({ model, input: 'Hello there', tools: [WEATHER], tool_choice: 'none', prompt_cache_key: 'pck-1' });
    t.equal(r.status, 200, r.text.slice(0, 400));
    const body = JSON.parse(r.text) as Obj;
    complete(t, body, 'completed');
    t.ok((body.output as Obj[]).some((o) => o.type === 'message'), 'a message');
  });

  t.test(`${model}: the streamed Response objects`, async (t) => {
    const r = await h.post({ model, input: 'Hello there', stream: true, tools: [WEATHER], tool_choice: 'none', prompt_cache_key: 'pck-1' });
    t.equal(r.status, 200, r.text.slice(0, 400));
    const evs = h.sse(r.text);
    const byType = (type: string): Obj | undefined => evs.find((e) => e.data.type === type)?.data;
    complete(t, byType('response.created')!.response as Obj, 'in_progress');
    complete(t, byType('response.in_progress')!.response as Obj, 'in_progress');
    complete(t, byType('response.completed')!.response as Obj, 'completed');
    for (const type of ['response.content_part.added', 'response.content_part.done']) {
      t.same(byType(type)?.part.logprobs, [], `${type}: the output_text part carries logprobs`);
    }
  });
}
