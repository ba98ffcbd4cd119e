// What gateway-auto's router reads of a Chat Completions request (../dialect.ts ConversationReader):
// the recent messages as plain text (tool calls as name and arguments), system and developer
// messages as the system text, the tool count, the effort (the `gateway-auto` default included),
// image and audio parts, and whether the last message is a tool result. The body was validated.
import type { CanonicalRequest, JsonObject, JsonValue } from '../../chunks.js';
import { TurnBudget, type ConversationLimits, type TurnText } from '../../router/turn-budget.js';
import type { ConversationView } from '../dialect.js';
import { chatReasoning } from './validate.js';

function parts(content: JsonValue | undefined): JsonObject[] {
  return Array.isArray(content) ? (content as JsonObject[]) : [];
}

function pushContent(content: JsonValue | undefined, out: TurnText): void {
  if (typeof content === 'string') out.push(content);
  else for (const p of parts(content)) if ((p.type === 'text' || p.type === 'refusal') && typeof (p.text ?? p.refusal) === 'string') out.push((p.text ?? p.refusal) as string);
}

function attachmentsIn(content: JsonValue | undefined): number {
  let n = 0;
  for (const p of parts(content)) if (p.type === 'image_url' || p.type === 'input_audio' || p.type === 'file') n++;
  return n;
}

export function readChatConversation(req: CanonicalRequest, limits: ConversationLimits): ConversationView {
  const messages = (req.body.messages ?? []) as JsonObject[];
  const budget = new TurnBudget(limits);
  let attachments = 0;
  let system: string | undefined;
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    attachments += attachmentsIn(m.content);
    if (m.role === 'system' || m.role === 'developer') {
      // the first system text read (the newest) is the one kept; the walk goes on for attachments
      if (system === undefined) {
        const text = budget.text();
        pushContent(m.content, text);
        system = text.toString();
      }
      continue;
    }
    if (budget.full) continue;
    const text = budget.text();
    pushContent(m.content, text);
    if (m.role === 'assistant') {
      for (const call of parts(m.tool_calls)) {
        const fn = call.function as JsonObject | undefined;
        if (fn !== undefined) text.push(`${fn.name as string}(${fn.arguments as string})`);
      }
    }
    budget.add(m.role === 'assistant' ? 'assistant' : m.role === 'tool' || m.role === 'function' ? 'tool' : 'user', text);
  }
  const last = messages.at(-1);
  return {
    turns: budget.turns(system),
    tools: Array.isArray(req.body.tools) ? req.body.tools.length : 0,
    effort: chatReasoning(req).effort ?? null,
    attachments,
    toolLoop: last !== undefined && (last.role === 'tool' || last.role === 'function'),
  };
}
