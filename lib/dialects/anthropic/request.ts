// A Messages request to an Anthropic deployment is forwarded natively: the validated body as the
// client sent it, with only the model name, a capped max_tokens and a reconciled thinking budget
// replaced. Betas are forwarded in order.
import type { Deployment, JsonObject, RoutedRequest } from '../../chunks.js';
import type { UpstreamCall } from '../requests.js';
import { withoutResponsesThinking } from '../openai-responses/reasoning-state.js';

export function anthropicNative(routed: RoutedRequest, deployment: Deployment): UpstreamCall {
  const req = routed.request;
  const body: JsonObject = { ...req.body, model: deployment.upstreamModel };
  // reasoning state of an OpenAI Responses model (carried as a thinking block) means nothing to Claude
  if (req.needs.signedThinking) body.messages = withoutResponsesThinking(body.messages);
  if (routed.maxTokensCappedTo !== null) body.max_tokens = routed.maxTokensCappedTo;
  const thinking = req.body.thinking;
  if (routed.thinkingBudget !== null && thinking && typeof thinking === 'object' && !Array.isArray(thinking) && thinking.budget_tokens !== routed.thinkingBudget) {
    body.thinking = { ...thinking, budget_tokens: routed.thinkingBudget };
  }
  const headers: Record<string, string> = { ...req.forward.headers };
  if (req.forward.betas.length > 0) headers['anthropic-beta'] = req.forward.betas.join(',');
  return { body: JSON.stringify(body), headers, stream: req.stream };
}
