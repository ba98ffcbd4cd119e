// The demo model on the Anthropic Messages protocol (`POST /v1/messages`), JSON and SSE.
import {
  cacheUsage, contentText, lastText, makePlan, redactedData, REDACTED_PREFIX, simSignature, splitDeltas,
  verifySignature, type Conversation, type ToolDef, searchesDone } from './demo.js';
import type { Frame, Outcome } from './io.js';
import { asArr, asStr, isObj, jsonTokens, type Obj } from './json.js';
import { optFlag, type DemoCtx } from './spec.js';

/** Checks the request fields the real API requires; returns an error message or undefined. */
export function validateMessages(body: Obj): string | undefined {
  if (typeof body.model !== 'string' || body.model === '') return 'model: Field required';
  if (body.max_tokens === undefined) return 'max_tokens: Field required';
  if (!Number.isInteger(body.max_tokens) || (body.max_tokens as number) < 1) {
    return 'max_tokens: Input should be a valid integer greater than or equal to 1';
  }
  if (!Array.isArray(body.messages)) return 'messages: Field required';
  if (body.messages.length === 0) return 'messages: at least one message is required';
  return undefined;
}

/** Verifies the thinking/redacted_thinking blocks that the history carries back. */
function checkThinking(body: Obj, model: string): string | undefined {
  const msgs = asArr(body.messages);
  for (let i = 0; i < msgs.length; i++) {
    const m = msgs[i];
    if (!isObj(m) || m.role !== 'assistant') continue;
    const blocks = asArr(m.content);
    for (let j = 0; j < blocks.length; j++) {
      const b = blocks[j];
      if (!isObj(b)) continue;
      if (b.type === 'thinking' && !verifySignature(model, asStr(b.thinking) ?? '', b.signature)) {
        return `messages.${i}.content.${j}: Invalid signature in thinking block`;
      }
      if (b.type === 'redacted_thinking' && !(asStr(b.data) ?? '').startsWith(REDACTED_PREFIX)) {
        return `messages.${i}.content.${j}: Invalid data in redacted_thinking block`;
      }
    }
  }
  return undefined;
}

export function anthropicConversation(body: Obj): Conversation {
  const msgs = asArr(body.messages).filter(isObj);
  const turns = msgs.filter((m) => m.role !== 'system');
  const last = turns[turns.length - 1];
  let toolResult: string | undefined;
  if (last && last.role === 'user') {
    const results = asArr(last.content).filter((b): b is Obj => isObj(b) && b.type === 'tool_result');
    if (results.length > 0) toolResult = results.map((r) => contentText(r.content)).join('\n');
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
    if (!isObj(t) || typeof t.name !== 'string') continue;
    // Server tools (web_search_..., bash_...) carry a dated `type` and no input_schema.
    if (t.input_schema === undefined && t.type !== undefined && t.type !== 'custom') continue;
    tools.push({ name: t.name, schema: t.input_schema, deferred: t.defer_loading === true });
  }
  const tc = isObj(body.tool_choice) ? body.tool_choice : {};
  return {
    lastUserText,
    searchesDone: searchesDone(body.messages),
    toolResult,
    tools,
    toolsDisabled: tc.type === 'none',
    forcedTool: tc.type === 'tool' ? asStr(tc.name) : undefined,
  };
}

export function anthropicDemo(body: Obj, ctx: DemoCtx): Outcome {
  const { spec, ids } = ctx;
  const model = spec.model;
  const bad = checkThinking(body, model);
  if (bad !== undefined) return { kind: 'error', status: 400, message: bad };

  const th = isObj(body.thinking) ? body.thinking.type : undefined;
  const plan = makePlan(spec, anthropicConversation(body), th === 'enabled' || th === 'adaptive');
  const redacted = optFlag(spec, 'redacted');
  const id = `msg_sim_${ids.next('msg')}`;
  const toolId = plan.tool ? `toolu_sim_${ids.next('toolu')}` : '';
  const cache = cacheUsage(spec);
  const input = jsonTokens(body.messages);
  const stopReason = plan.tool ? 'tool_use' : 'end_turn';
  const usage = (output: number): Obj => ({
    input_tokens: input,
    cache_creation_input_tokens: cache.write,
    cache_read_input_tokens: cache.read,
    output_tokens: output,
  });

  const content: Obj[] = [];
  if (plan.thinking !== undefined) {
    content.push(
      redacted
        ? { type: 'redacted_thinking', data: redactedData(model, plan.thinking) }
        : { type: 'thinking', thinking: plan.thinking, signature: simSignature(model, plan.thinking) },
    );
  }
  if (plan.text !== undefined) content.push({ type: 'text', text: plan.text });
  if (plan.tool) content.push({ type: 'tool_use', id: toolId, name: plan.tool.name, input: plan.tool.args });

  const message = (blocks: Obj[], stop: string | null, u: Obj): Obj => ({
    id, type: 'message', role: 'assistant', model, content: blocks, stop_reason: stop, stop_sequence: null,
    usage: { ...u, service_tier: 'standard' },
  });
  if (body.stream !== true) return { kind: 'json', body: message(content, stopReason, usage(plan.outputTokens)) };

  const frames: Frame[] = [];
  const ev = (data: Obj): void => {
    frames.push({ event: String(data.type), data });
  };
  ev({ type: 'message_start', message: message([], null, usage(1)) });
  // option `future`: an event and a delta type no client knows yet (they must pass through)
  const future = optFlag(spec, 'future');
  if (future) ev({ type: 'some_future_event', detail: { note: 'not yet documented' } });
  content.forEach((block, index) => {
    const delta = (d: Obj): void => ev({ type: 'content_block_delta', index, delta: d });
    if (block.type === 'thinking') {
      ev({ type: 'content_block_start', index, content_block: { type: 'thinking', thinking: '', signature: '' } });
    } else if (block.type === 'tool_use') {
      ev({ type: 'content_block_start', index, content_block: { ...block, input: {} } });
    } else if (block.type === 'text') {
      ev({ type: 'content_block_start', index, content_block: { type: 'text', text: '' } });
    } else {
      ev({ type: 'content_block_start', index, content_block: block });
    }
    if (index === 0) ev({ type: 'ping' });
    if (block.type === 'thinking') {
      for (const t of splitDeltas(String(block.thinking), spec)) delta({ type: 'thinking_delta', thinking: t });
      delta({ type: 'signature_delta', signature: block.signature });
    } else if (block.type === 'text') {
      for (const t of splitDeltas(String(block.text), spec)) delta({ type: 'text_delta', text: t });
      if (future) delta({ type: 'future_delta', payload: [1, 2] });
    } else if (block.type === 'tool_use' && plan.tool) {
      for (const p of splitDeltas(plan.tool.argsJson, spec)) delta({ type: 'input_json_delta', partial_json: p });
    }
    ev({ type: 'content_block_stop', index });
  });
  ev({ type: 'message_delta', delta: { stop_reason: stopReason, stop_sequence: null }, usage: usage(plan.outputTokens) });
  ev({ type: 'message_stop' });
  return { kind: 'stream', frames };
}

/** `POST /v1/messages/count_tokens`: the same input-token rule as the demo model. */
export function anthropicCountTokens(body: Obj): Obj {
  return { input_tokens: jsonTokens(body.messages) };
}
