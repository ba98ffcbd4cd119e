// The native request encoder: a chat client's validated body → an OpenAI Chat deployment.
import t from 'tap';
import type { Deployment, JsonObject, RoutedRequest } from '../../../lib/chunks.js';
import { chatNative } from '../../../lib/dialects/openai-chat/request.js';
import { validateChatRequest } from '../../../lib/dialects/openai-chat/validate.js';

const DEPLOYMENT: Deployment = { providerId: 'openai', protocol: 'openai', api: 'chat', upstreamModel: 'gpt-5-2025-08-07' };

function routedFor(body: JsonObject, capTo: number | null = null): RoutedRequest {
  const request = validateChatRequest(body, { defaultEffortOnAuto: true });
  const maxTokens = capTo ?? request.maxTokens;
  return {
    request,
    modelId: 'openai/gpt-5',
    deployments: [DEPLOYMENT],
    routed: request.model === null || request.model === 'gateway-auto',
    routingLatencyMs: null,
    maxTokens,
    modelMaxOutputTokens: 128000,
    modelReasoning: true,
    maxTokensCappedTo: capTo,
    thinkingBudget: request.thinkingBudget ?? null,
  };
}

function encode(body: JsonObject, capTo: number | null = null): JsonObject {
  return JSON.parse(chatNative(routedFor(body, capTo), DEPLOYMENT).body) as JsonObject;
}

const messages = [{ role: 'user', content: 'hi' }];

t.test('the body as sent, with the upstream model', async (t) => {
  const body: JsonObject = { model: 'openai/gpt-5', messages, temperature: 0.2, top_p: 0.9, stop: ['x'], response_format: { type: 'json_object' } };
  const call = chatNative(routedFor(body), DEPLOYMENT);
  t.equal(call.stream, false);
  t.same(call.headers, {}, 'no protocol headers (dispatch adds auth)');
  t.same(JSON.parse(call.body), { ...body, model: 'gpt-5-2025-08-07' });
  t.equal(body.model, 'openai/gpt-5', 'the validated body is not modified');
});

t.test('streams always ask for usage', async (t) => {
  const call = chatNative(routedFor({ model: 'm', messages, stream: true }), DEPLOYMENT);
  t.equal(call.stream, true);
  t.same(JSON.parse(call.body).stream_options, { include_usage: true });
  t.same(encode({ model: 'm', messages, stream: true, stream_options: { include_usage: false, include_obfuscation: false } }).stream_options, { include_usage: true, include_obfuscation: false });
  const plain = encode({ model: 'm', messages, stream: false, stream_options: { include_usage: true } });
  t.notOk('stream_options' in plain, 'no stream_options without a stream');
  t.notOk('stream' in plain);
});

t.test('max tokens: one max_completion_tokens, capped', async (t) => {
  t.same(encode({ model: 'm', messages, max_tokens: 500 }).max_completion_tokens, 500, 'max_tokens becomes max_completion_tokens');
  t.notOk('max_tokens' in encode({ model: 'm', messages, max_tokens: 500 }));
  t.same(encode({ model: 'm', messages, max_completion_tokens: 900_000 }, 128000).max_completion_tokens, 128000, 'capped');
  t.notOk('max_completion_tokens' in encode({ model: 'm', messages }), 'none given, none sent');
});

t.test('reasoning → reasoning_effort', async (t) => {
  t.same(encode({ model: 'm', messages, reasoning: { effort: 'low', max_tokens: 100, exclude: true } }).reasoning_effort, 'low');
  t.notOk('reasoning' in encode({ model: 'm', messages, reasoning: { effort: 'low' } }));
  t.same(encode({ model: 'm', messages, reasoning_effort: 'minimal' }).reasoning_effort, 'minimal');
  t.same(encode({ model: 'm', messages, reasoning_effort: 'minimal', reasoning: { effort: 'xhigh' } }).reasoning_effort, 'xhigh', 'reasoning wins');
  t.notOk('reasoning_effort' in encode({ model: 'm', messages, reasoning: { max_tokens: 100 } }), 'a budget alone has no OpenAI equivalent');
  t.same(encode({ model: 'gateway-auto', messages }).reasoning_effort, 'high', 'the gateway-auto default');
  t.notOk('reasoning_effort' in encode({ model: 'm', messages }));
});

t.test('gateway-only and ignored parameters are removed', async (t) => {
  const out = encode({
    model: 'm', messages, metadata: { call_name: 'x' }, store: true, service_tier: 'priority', logit_bias: { '1': 2 }, logprobs: true, top_logprobs: 2,
    seed: 1, prediction: { type: 'content', content: 'x' }, user: 'u', verbosity: 'low', prompt_cache_key: 'pk', prompt_cache_retention: '24h',
    safety_identifier: 'sid', temperature: null, n: 1,
  });
  t.same(out, { model: 'gpt-5-2025-08-07', messages, prompt_cache_key: 'pk', prompt_cache_retention: '24h', safety_identifier: 'sid', n: 1 });
});

t.test('tools: empty lists dropped with their options', async (t) => {
  const tools = [{ type: 'function', function: { name: 'f', parameters: { type: 'object' } } }];
  t.same(encode({ model: 'm', messages, tools, tool_choice: 'required', parallel_tool_calls: false }), { model: 'gpt-5-2025-08-07', messages, tools, tool_choice: 'required', parallel_tool_calls: false });
  t.same(encode({ model: 'm', messages, tools: [], tool_choice: 'none', parallel_tool_calls: true }), { model: 'gpt-5-2025-08-07', messages });
});

t.test('assistant reasoning state is removed from the upstream messages only', async (t) => {
  const assistant = { role: 'assistant', content: 'ok', reasoning: 'r', reasoning_details: [{ type: 'reasoning.text', text: 'r', signature: 's', format: 'anthropic-claude-v1', index: 0 }] };
  const body: JsonObject = { model: 'm', messages: [messages[0]!, assistant, { role: 'user', content: 'more' }] };
  const out = encode(body);
  t.same(out.messages, [messages[0], { role: 'assistant', content: 'ok' }, { role: 'user', content: 'more' }]);
  t.same((body.messages as JsonObject[])[1], assistant, 'the client body keeps them');
  const plain: JsonObject = { model: 'm', messages: [messages[0]!] };
  t.same(encode(plain).messages, plain.messages);
});
