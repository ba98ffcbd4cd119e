// The demo model on the OpenAI Responses protocol (`POST /v1/responses`), JSON and SSE.
import {
  cacheUsage, contentText, lastText, makePlan, simSignature, splitDeltas, verifySignature, type Conversation, type ToolDef, searchesDone } from './demo.js';
import type { Frame, Outcome } from './io.js';
import { asArr, asStr, isObj, jsonTokens, type Obj } from './json.js';
import type { DemoCtx } from './spec.js';

export function validateResponses(body: Obj): { message: string; param: string } | undefined {
  if (typeof body.model !== 'string' || body.model === '') return { message: "Missing required parameter: 'model'.", param: 'model' };
  if (typeof body.input !== 'string' && !Array.isArray(body.input)) {
    return { message: "Missing required parameter: 'input'.", param: 'input' };
  }
  return undefined;
}

function inputItems(body: Obj): Obj[] {
  if (typeof body.input === 'string') return [{ type: 'message', role: 'user', content: body.input }];
  return asArr(body.input).filter(isObj);
}

const isOutputItem = (it: Obj): boolean => it.type === 'function_call_output' || it.type === 'custom_tool_call_output';

export function responsesConversation(body: Obj): Conversation {
  const items = inputItems(body);
  const turns = items.filter((it) => !(it.role === 'system' || it.role === 'developer'));
  const outputs: string[] = [];
  for (let i = turns.length - 1; i >= 0; i--) {
    const it = turns[i];
    if (!it || !isOutputItem(it)) break;
    outputs.unshift(contentText(it.output));
  }
  let lastUserText = '';
  for (let i = items.length - 1; i >= 0; i--) {
    const it = items[i];
    if (it?.role !== 'user' || (it.type !== undefined && it.type !== 'message')) continue;
    const t = lastText(it.content);
    if (t !== undefined) {
      lastUserText = t;
      break;
    }
  }
  const tools: ToolDef[] = [];
  for (const t of asArr(body.tools)) {
    if (isObj(t) && t.type === 'function' && typeof t.name === 'string') tools.push({ name: t.name, schema: t.parameters });
    if (!isObj(t) || t.type !== 'namespace' || typeof t.name !== 'string') continue;
    for (const m of asArr(t.tools)) {
      if (isObj(m) && m.type === 'function' && typeof m.name === 'string') tools.push({ name: m.name, schema: m.parameters, namespace: t.name });
    }
  }
  const tc = body.tool_choice;
  return {
    lastUserText,
    searchesDone: searchesDone(body.input),
    toolResult: outputs.length > 0 ? outputs.join('\n') : undefined,
    tools,
    toolsDisabled: tc === 'none',
    forcedTool: isObj(tc) && tc.type === 'function' ? asStr(tc.name) : undefined,
  };
}

/** Text that a reasoning item's encrypted_content signs: its summary texts joined. */
export function reasoningSummaryText(item: Obj): string {
  return asArr(item.summary).map((s) => (isObj(s) ? asStr(s.text) ?? '' : '')).join('');
}

function checkReasoning(body: Obj, model: string): Outcome | undefined {
  const items = inputItems(body);
  for (let i = 0; i < items.length; i++) {
    const it = items[i];
    if (!it || it.type !== 'reasoning' || it.encrypted_content === undefined || it.encrypted_content === null) continue;
    if (!verifySignature(model, reasoningSummaryText(it), it.encrypted_content)) {
      return {
        kind: 'error', status: 400,
        message: `The encrypted content for item input[${i}] could not be verified.`,
        opts: { type: 'invalid_request_error', code: 'invalid_encrypted_content', param: `input[${i}].encrypted_content` },
      };
    }
  }
  return undefined;
}

export function responsesDemo(body: Obj, ctx: DemoCtx): Outcome {
  const { spec, ids } = ctx;
  const model = spec.model;
  const bad = checkReasoning(body, model);
  if (bad) return bad;
  const reasoning = isObj(body.reasoning) ? body.reasoning : undefined;
  const plan = makePlan(spec, responsesConversation(body), reasoning !== undefined && reasoning.effort !== 'none');
  const wantEncrypted = asArr(body.include).includes('reasoning.encrypted_content');
  const respId = `resp_sim_${ids.next('resp')}`;
  const createdAt = Math.floor(Date.now() / 1000);
  const cache = cacheUsage(spec);
  const input = jsonTokens(body.input) + cache.read + cache.write;
  const inDetails: Obj = { cached_tokens: cache.read };
  if (cache.write > 0) inDetails.cache_write_tokens = cache.write;
  const usage: Obj = {
    input_tokens: input, input_tokens_details: inDetails, output_tokens: plan.outputTokens,
    output_tokens_details: { reasoning_tokens: plan.thinkingTokens }, total_tokens: input + plan.outputTokens,
  };

  const output: Obj[] = [];
  if (plan.thinking !== undefined) {
    const item: Obj = { id: `rs_sim_${ids.next('rs')}`, type: 'reasoning' };
    if (wantEncrypted) item.encrypted_content = simSignature(model, plan.thinking);
    item.summary = [{ type: 'summary_text', text: plan.thinking }];
    output.push(item);
  }
  if (plan.text !== undefined) {
    output.push({
      id: `msg_sim_${ids.next('msg')}`, type: 'message', status: 'completed',
      content: [{ type: 'output_text', annotations: [], logprobs: [], text: plan.text }], role: 'assistant',
    });
  }
  if (plan.tool) {
    output.push({
      id: `fc_sim_${ids.next('fc')}`, type: 'function_call', status: 'completed', arguments: plan.tool.argsJson,
      call_id: `call_sim_${ids.next('call')}`, name: plan.tool.name, ...(plan.tool.namespace === undefined ? {} : { namespace: plan.tool.namespace }),
    });
  }
  const textCfg = isObj(body.text) ? body.text : {};
  const response = (status: string, out: Obj[], u: Obj | null): Obj => ({
    id: respId, object: 'response', created_at: createdAt, status, background: false, error: null,
    incomplete_details: null, instructions: body.instructions ?? null, max_output_tokens: body.max_output_tokens ?? null,
    max_tool_calls: null, model, output: out, parallel_tool_calls: body.parallel_tool_calls ?? true,
    previous_response_id: null, prompt_cache_key: body.prompt_cache_key ?? null,
    reasoning: { effort: reasoning?.effort ?? null, summary: reasoning?.summary ?? null }, safety_identifier: null,
    service_tier: 'default', store: body.store ?? true, temperature: body.temperature ?? 1,
    text: { format: textCfg.format ?? { type: 'text' }, verbosity: textCfg.verbosity ?? 'medium' },
    tool_choice: body.tool_choice ?? 'auto', tools: body.tools ?? [], top_logprobs: 0, top_p: body.top_p ?? 1,
    truncation: 'disabled', usage: u, user: null, metadata: body.metadata ?? {},
  });
  if (body.stream !== true) return { kind: 'json', body: response('completed', output, usage) };

  const frames: Frame[] = [];
  let seq = 0;
  const ev = (type: string, fields: Obj): void => {
    frames.push({ event: type, data: { type, sequence_number: seq++, ...fields } });
  };
  ev('response.created', { response: response('in_progress', [], null) });
  ev('response.in_progress', { response: response('in_progress', [], null) });
  output.forEach((item, output_index) => {
    const item_id = item.id;
    if (item.type === 'reasoning') {
      const text = plan.thinking ?? '';
      ev('response.output_item.added', { output_index, item: { ...item, summary: [] } });
      const at = { item_id, output_index, summary_index: 0 };
      ev('response.reasoning_summary_part.added', { ...at, part: { type: 'summary_text', text: '' } });
      for (const d of splitDeltas(text, spec)) ev('response.reasoning_summary_text.delta', { ...at, delta: d });
      ev('response.reasoning_summary_text.done', { ...at, text });
      ev('response.reasoning_summary_part.done', { ...at, part: { type: 'summary_text', text } });
    } else if (item.type === 'message') {
      const text = plan.text ?? '';
      ev('response.output_item.added', { output_index, item: { ...item, status: 'in_progress', content: [] } });
      const at = { item_id, output_index, content_index: 0 };
      ev('response.content_part.added', { ...at, part: { type: 'output_text', annotations: [], logprobs: [], text: '' } });
      for (const d of splitDeltas(text, spec)) ev('response.output_text.delta', { ...at, delta: d, logprobs: [] });
      ev('response.output_text.done', { ...at, text, logprobs: [] });
      ev('response.content_part.done', { ...at, part: { type: 'output_text', annotations: [], logprobs: [], text } });
    } else {
      const args = plan.tool?.argsJson ?? '{}';
      ev('response.output_item.added', { output_index, item: { ...item, status: 'in_progress', arguments: '' } });
      for (const d of splitDeltas(args, spec)) ev('response.function_call_arguments.delta', { item_id, output_index, delta: d });
      ev('response.function_call_arguments.done', { item_id, output_index, arguments: args });
    }
    ev('response.output_item.done', { output_index, item });
  });
  ev('response.completed', { response: response('completed', output, usage) });
  return { kind: 'stream', frames };
}
