// A validated Responses request served by a `chat` or `messages` deployment: the request is first
// written as a Chat Completions body (`chatBody`, responses-to-chat-body.ts), which the existing Chat
// encoders (`chatNative`, `chatToAnthropic`) then send, so one set of mapping tables serves every path.
import type { Deployment, RoutedRequest } from '../chunks.js';
import type { UpstreamCall } from '../dialects/dialect.js';
import { chatNative } from '../dialects/openai-chat/request.js';
import { chatToAnthropic } from './chat-to-messages.js';
import { chatBody } from './responses-to-chat-body.js';

/** The RequestEncoder for `openai-responses` requests served by a `chat` deployment. */
export function responsesToChat(routed: RoutedRequest, deployment: Deployment): UpstreamCall {
  return chatNative(asChatRouted(routed), deployment);
}

/** The RequestEncoder for `openai-responses` requests served by a `messages` deployment. */
export function responsesToAnthropic(routed: RoutedRequest, deployment: Deployment): UpstreamCall {
  return chatToAnthropic(asChatRouted(routed), deployment);
}

function asChatRouted(routed: RoutedRequest): RoutedRequest {
  return { ...routed, request: { ...routed.request, source: 'openai-chat', body: chatBody(routed.request, routed.modelId), findings: undefined } };
}
