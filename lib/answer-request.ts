// What the answer side keeps of a routed request. Settle, the client encoders, the request log,
// metrics and the trace read a few of its fields for as long as the answer streams (the served
// model, the client's model value, labels, the routing decision, the stream flag, a few body
// members an encoder echoes), while the request itself (the conversation: a Claude Code request is
// 100-200 KB, parsed, plus its bytes) is needed only until an upstream answered. The `routed` note
// carries this view, so an open stream keeps only it (issue #21: memory per open stream).
import type { CanonicalRequest, JsonObject, RoutedRequest } from './chunks.js';
import { dialectFor } from './dialects/index.js';

/**
 * The routed request with its body reduced to the members the client dialect's encoders read,
 * without the client's bytes (`raw`). The request's fields are copied by name, not with an object
 * rest (`{ raw, ...fields }`), which cost about 10 times as much per request.
 */
export function answerView(routed: RoutedRequest): RoutedRequest {
  const req = routed.request;
  const whole = req.body;
  const body: JsonObject = {};
  const members = dialectFor(req.source).answerMembers;
  if (members !== undefined) {
    for (let k = 0; k < members.length; k++) {
      const name = members[k]!;
      const value = whole[name];
      if (value !== undefined) body[name] = value;
    }
  }
  const request: CanonicalRequest = {
    source: req.source, body, model: req.model, stream: req.stream, maxTokens: req.maxTokens, needs: req.needs,
    inputTokenBound: req.inputTokenBound, hostedToolUses: req.hostedToolUses, labels: req.labels, forward: req.forward,
  };
  // the optional fields but `raw`, only where set (as the validators leave them)
  if (req.thinkingBudget !== undefined) request.thinkingBudget = req.thinkingBudget;
  if (req.findings !== undefined) request.findings = req.findings;
  return { ...routed, request };
}
