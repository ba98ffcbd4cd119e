// Shared by the openai-chat tests: a context with a catalog (for costs), the decode chain with the
// chat decoder (sse-decode → provider-decode → integrity), the chat encoders, and an independent
// accumulator of Chat Completions stream chunks written from the openai SDK's rules
// (ChatCompletionStream: content and arguments append, id/name set once, usage from the last chunk).
import { createParser } from 'eventsource-parser';
import type { CanonicalEvent, DialectName, JsonObject, JsonValue, RoutedRequest } from '../../../lib/chunks.js';
import type { RequestContext } from '../../../lib/context.js';
import { upstreamDecoders } from '../../../lib/dialects/index.js';
import { chatJsonEncode } from '../../../lib/dialects/openai-chat/encode-json.js';
import { ChatSseEncoder } from '../../../lib/dialects/openai-chat/encode-sse.js';
import { chatDecoder } from '../../../lib/dialects/openai-chat/events.js';
import { validateChatRequest } from '../../../lib/dialects/openai-chat/validate.js';
import { offlineContext } from '../../../lib/offline-context.js';
import { EncoderState } from '../../../lib/encoder-input.js';
import type { ChainNote } from '../../../lib/notes.js';
import { integrity } from '../../../stages/integrity.js';
import { providerDecode } from '../../../stages/provider-decode.js';
import { sseDecode } from '../../../stages/sse-decode.js';
import { makeServices, testConfig } from '../../helpers/context.js';
import { runSync } from '../../helpers/replay.js';

/**
 * provider-decode finds the chat decoder in the registry. Until the registry holds it, the test
 * installs a getter that gives each decode chain a fresh (stateful) decoder.
 */
if (upstreamDecoders['openai-chat'] === undefined) {
  Object.defineProperty(upstreamDecoders, 'openai-chat', { get: () => chatDecoder(), configurable: true, enumerable: true });
}

export const CHAT_MODEL = 'openai/gpt-5';
const config = testConfig({
  providers: [
    { id: 'sim', protocol: 'anthropic', simulated: true },
    { id: 'oai', protocol: 'openai', simulated: true },
  ],
  models: [
    { id: 'anthropic/claude-opus-5', deployments: [{ provider: 'sim', model: 'claude-opus-5' }], pricing: { input: 5, output: 25, cacheRead: 0.5, cacheWrite: 6.25 }, maxOutputTokens: 64000 },
    { id: CHAT_MODEL, deployments: [{ provider: 'oai', model: 'gpt-5', api: 'chat' }], pricing: { input: 1.25, output: 10, cacheRead: 0.125 }, maxOutputTokens: 128000 },
  ],
});
const services = makeServices(config);

export interface CtxOptions {
  modelId?: string;
  routed?: boolean;
  body?: JsonObject;
  /** no routed request at all */
  unrouted?: boolean;
}

/** A request context, and what its encoders read (the routed request, the usage notes integrity output). */
export type ChatTestContext = RequestContext & { readonly input: EncoderState };

/** An offline context with the test catalog (the cost needs it) and a routed chat request. */
export function chatContext(opts: CtxOptions = {}): ChatTestContext {
  const base: RequestContext = {
    ...offlineContext({ reqId: 'req_chat', dialect: 'openai-chat', endpoint: 'chat.completions', path: '/v1/chat/completions' }),
    services,
  };
  const ctx: ChatTestContext = { ...base, input: new EncoderState(base.reqId, services.catalog) };
  if (opts.unrouted) return ctx;
  const body = opts.body ?? { model: opts.routed ? 'gateway-auto' : CHAT_MODEL, messages: [{ role: 'user', content: 'hi' }], stream: true };
  const request = validateChatRequest(body, { defaultEffortOnAuto: true });
  const routed: RoutedRequest = {
    request,
    modelId: opts.modelId ?? CHAT_MODEL,
    deployments: [],
    routed: opts.routed ?? false,
    routingLatencyMs: opts.routed ? 0.25 : null,
    maxTokens: request.maxTokens,
    modelMaxOutputTokens: 128000,
    modelReasoning: true,
    maxTokensCappedTo: null,
    thinkingBudget: request.thinkingBudget ?? null,
  };
  ctx.input.routed = routed;
  return ctx;
}

/** sse-decode → provider-decode → integrity over the chunks; the usage notes go to `ctx.input`, as the encode stage's. */
export function decodeWith(chunks: Buffer[], from: DialectName, ctx: ChatTestContext): CanonicalEvent[] {
  const notes: ChainNote[] = [];
  const events = runSync<CanonicalEvent>([sseDecode(), providerDecode({ dialect: () => from }), integrity()], chunks, ctx, notes);
  for (const n of notes) ctx.input.note(n);
  return events;
}

export function encodeChatSse(events: CanonicalEvent[], ctx: ChatTestContext): string {
  const enc = new ChatSseEncoder({ requestId: ctx.reqId, input: ctx.input });
  let out = '';
  for (const ev of events) out += enc.encode(ev);
  return out;
}

export function encodeChatJson(events: CanonicalEvent[], ctx: ChatTestContext): JsonObject {
  const out = runSync<string>([chatJsonEncode(ctx.input)], events, ctx);
  if (out.length !== 1) throw new Error(`expected one body, got ${out.length}`);
  return JSON.parse(out[0]!) as JsonObject;
}

export function dataFrames(text: string): string[] {
  const out: string[] = [];
  const parser = createParser({ onEvent: (m) => out.push(m.data) });
  parser.feed(text);
  return out;
}

export interface Accumulated {
  id: string | undefined;
  model: string | undefined;
  content: string;
  refusal: string;
  reasoning: string;
  reasoningDetails: JsonValue[];
  toolCalls: { id: string; name: string; arguments: string }[];
  finishReason: string | null;
  usage: JsonObject | null;
  /** indexes (in data frames) of the chunks that carry `gateway` */
  gatewayAt: number[];
  gateway: JsonObject[];
  error: JsonObject | null;
  done: boolean;
  frames: number;
}

type Obj = Record<string, unknown>;

/** What an openai-SDK client accumulates from a chat stream (checks the chunk shape on the way). */
export function accumulateChat(text: string): Accumulated {
  const acc: Accumulated = {
    id: undefined, model: undefined, content: '', refusal: '', reasoning: '', reasoningDetails: [], toolCalls: [],
    finishReason: null, usage: null, gatewayAt: [], gateway: [], error: null, done: false, frames: 0,
  };
  const list = dataFrames(text);
  list.forEach((data, i) => {
    if (acc.done) throw new Error('a frame after [DONE]');
    if (data === '[DONE]') {
      acc.done = true;
      return;
    }
    acc.frames++;
    const chunk = JSON.parse(data) as Obj;
    if (typeof chunk.id !== 'string' || typeof chunk.model !== 'string') throw new Error(`chunk ${i}: id and model must be strings`);
    if (chunk.id === '' && Array.isArray(chunk.choices) && chunk.choices.length === 0) return; // Azure preamble
    acc.id ??= chunk.id;
    acc.model ??= chunk.model;
    if (chunk.id !== acc.id) throw new Error(`chunk ${i}: id changed`);
    if (chunk.gateway !== undefined) {
      acc.gatewayAt.push(i);
      acc.gateway.push(chunk.gateway as JsonObject);
    }
    if (chunk.usage !== undefined && chunk.usage !== null) acc.usage = chunk.usage as JsonObject;
    if (chunk.error !== undefined) acc.error = chunk.error as JsonObject;
    for (const choice of (chunk.choices as Obj[]) ?? []) {
      if (choice.index !== 0) throw new Error(`chunk ${i}: choice index ${String(choice.index)}`);
      const delta = (choice.delta ?? {}) as Obj;
      if (typeof delta.content === 'string') acc.content += delta.content;
      if (typeof delta.refusal === 'string') acc.refusal += delta.refusal;
      if (typeof delta.reasoning === 'string') acc.reasoning += delta.reasoning;
      if (Array.isArray(delta.reasoning_details)) acc.reasoningDetails.push(...(delta.reasoning_details as JsonValue[]));
      for (const call of (delta.tool_calls as Obj[] | undefined) ?? []) {
        const index = call.index as number;
        const fn = (call.function ?? {}) as Obj;
        const slot = (acc.toolCalls[index] ??= { id: '', name: '', arguments: '' });
        if (typeof call.id === 'string') slot.id = call.id;
        if (typeof fn.name === 'string') slot.name = fn.name;
        if (typeof fn.arguments === 'string') slot.arguments += fn.arguments;
      }
      if (typeof choice.finish_reason === 'string') acc.finishReason = choice.finish_reason;
    }
  });
  return acc;
}
