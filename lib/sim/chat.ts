// The demo model on the OpenAI Chat Completions protocol (`POST /v1/chat/completions`).
import { cacheUsage, contentText, lastText, makePlan, splitDeltas, type Conversation, type ToolDef, searchesDone } from './demo.js';
import type { Frame, Outcome } from './io.js';
import { asArr, asStr, isObj, jsonTokens, type Obj } from './json.js';
import type { DemoCtx } from './spec.js';

export function validateChat(body: Obj): { message: string; param: string } | undefined {
  if (typeof body.model !== 'string' || body.model === '') return { message: 'you must provide a model parameter', param: 'model' };
  if (!Array.isArray(body.messages) || body.messages.length === 0) {
    return { message: "Invalid 'messages': empty array. Expected an array with minimum length 1.", param: 'messages' };
  }
  return undefined;
}

export function chatConversation(body: Obj): Conversation {
  const msgs = asArr(body.messages).filter(isObj);
  const turns = msgs.filter((m) => m.role !== 'system' && m.role !== 'developer');
  const trailingTools: string[] = [];
  for (let i = turns.length - 1; i >= 0 && turns[i]?.role === 'tool'; i--) {
    trailingTools.unshift(contentText(turns[i]?.content));
  }
  let lastUserText = '';
  for (let i = msgs.length - 1; i >= 0; i--) {
    const m = msgs[i];
    if (m?.role !== 'user') continue;
    const t = lastText(m.content);
    if (t !== undefined) {
      lastUserText = t;
      break;
    }
  }
  const tools: ToolDef[] = [];
  for (const t of asArr(body.tools)) {
    if (!isObj(t) || !isObj(t.function) || typeof t.function.name !== 'string') continue;
    tools.push({ name: t.function.name, schema: t.function.parameters });
  }
  const tc = body.tool_choice;
  return {
    lastUserText,
    searchesDone: searchesDone(body.messages),
    toolResult: trailingTools.length > 0 ? trailingTools.join('\n') : undefined,
    tools,
    toolsDisabled: tc === 'none',
    forcedTool: isObj(tc) && isObj(tc.function) ? asStr(tc.function.name) : undefined,
  };
}

export function chatDemo(body: Obj, ctx: DemoCtx): Outcome {
  const { spec, ids } = ctx;
  const model = spec.model;
  const effort = body.reasoning_effort;
  const wantReasoning = (effort !== undefined && effort !== null && effort !== 'none') || (body.reasoning !== undefined && body.reasoning !== null);
  const plan = makePlan(spec, chatConversation(body), wantReasoning);
  const id = `chatcmpl-sim-${ids.next('chatcmpl')}`;
  const callId = plan.tool ? `call_sim_${ids.next('call')}` : '';
  const created = Math.floor(Date.now() / 1000);
  const cache = cacheUsage(spec);
  const prompt = jsonTokens(body.messages) + cache.read + cache.write;
  const promptDetails: Obj = { cached_tokens: cache.read, audio_tokens: 0 };
  if (cache.write > 0) promptDetails.cache_write_tokens = cache.write;
  const usage: Obj = {
    prompt_tokens: prompt,
    completion_tokens: plan.outputTokens,
    total_tokens: prompt + plan.outputTokens,
    prompt_tokens_details: promptDetails,
    completion_tokens_details: {
      reasoning_tokens: plan.thinkingTokens, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0,
    },
  };
  const finish = plan.tool ? 'tool_calls' : 'stop';

  if (body.stream !== true) {
    const message: Obj = { role: 'assistant', content: plan.text ?? null };
    if (plan.tool) {
      const calls: Obj[] = [{ id: callId, type: 'function', function: { name: plan.tool.name, arguments: plan.tool.argsJson } }];
      if (plan.also) calls.push({ id: `${callId}_also`, type: 'function', function: { name: plan.also.name, arguments: plan.also.argsJson } });
      message.tool_calls = calls;
    }
    message.refusal = null;
    message.annotations = [];
    return {
      kind: 'json',
      body: {
        id, object: 'chat.completion', created, model,
        choices: [{ index: 0, message, logprobs: null, finish_reason: finish }],
        usage, service_tier: 'default', system_fingerprint: 'fp_sim',
      },
    };
  }

  const so = isObj(body.stream_options) ? body.stream_options : {};
  const includeUsage = so.include_usage === true;
  const frames: Frame[] = [];
  const chunk = (choices: Obj[], u?: Obj): void => {
    const c: Obj = { id, object: 'chat.completion.chunk', created, model, service_tier: 'default', system_fingerprint: 'fp_sim', choices };
    if (includeUsage) c.usage = u ?? null;
    frames.push({ data: c });
  };
  const delta = (d: Obj, finishReason: string | null = null): void => {
    chunk([{ index: 0, delta: d, logprobs: null, finish_reason: finishReason }]);
  };
  delta({ role: 'assistant', content: plan.tool ? null : '', refusal: null });
  if (plan.text !== undefined) for (const t of splitDeltas(plan.text, spec)) delta({ content: t });
  if (plan.tool) {
    delta({ tool_calls: [{ index: 0, id: callId, type: 'function', function: { name: plan.tool.name, arguments: '' } }] });
    for (const p of splitDeltas(plan.tool.argsJson, spec)) delta({ tool_calls: [{ index: 0, function: { arguments: p } }] });
    if (plan.also) delta({ tool_calls: [{ index: 1, id: `${callId}_also`, type: 'function', function: { name: plan.also.name, arguments: plan.also.argsJson } }] });
  }
  delta({}, finish);
  if (includeUsage) chunk([], usage);
  frames.push({ text: '[DONE]' });
  return { kind: 'stream', frames };
}

