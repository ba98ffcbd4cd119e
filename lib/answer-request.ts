// What the answer side keeps of a routed request. Settle, the client encoders, the request log,
// metrics and the trace read a few of its fields for as long as the answer streams (the served
// model, the client's model value, labels, the routing decision, the stream flag, a few body
// members an encoder echoes), while the request itself (the conversation: a Claude Code request is
// 100-200 KB, parsed, plus its bytes) is needed only until an upstream answered. The `routed` note
// carries this view, so an open stream keeps only it (issue #21: memory per open stream).
import type { CanonicalRequest, JsonObject, RoutedRequest } from './chunks.js';
import { dialectFor } from './dialects/index.js';

/** The routed request with its body reduced to the members the client dialect's encoders read, without the client's bytes. */
export function answerView(routed: RoutedRequest): RoutedRequest {
  const { body: whole, raw: _bytes, ...fields } = routed.request;
  const body: JsonObject = {};
  const members = dialectFor(fields.source).answerMembers;
  if (members !== undefined) {
    for (let k = 0; k < members.length; k++) {
      const name = members[k]!;
      const value = whole[name];
      if (value !== undefined) body[name] = value;
    }
  }
  const request: CanonicalRequest = { ...fields, body };
  return { ...routed, request };
}
