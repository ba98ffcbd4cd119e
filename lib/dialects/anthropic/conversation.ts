// What gateway-auto's router reads of a Messages request (../dialect.ts ConversationReader): the
// recent turns as plain text (tool calls as name and arguments, tool results as text, thinking not
// at all), the tool count, the effort, the attachments, and whether the last turn answers tool calls.
// The body was validated: shapes are trusted, and only the recent turns are walked for text.
import type { CanonicalRequest, JsonObject, JsonValue } from '../../chunks.js';
import type { RouterEffort } from '../../router/router-api.js';
import { TurnBudget, type ConversationLimits, type TurnText } from '../../router/turn-budget.js';
import type { ConversationView } from '../dialect.js';

const ATTACHMENTS = new Set(['image', 'document']);

function blocks(content: JsonValue | undefined): JsonObject[] {
  return Array.isArray(content) ? (content as JsonObject[]) : [];
}

/** Text of a tool result's content (a string or text blocks). */
function resultText(content: JsonValue | undefined, out: TurnText): void {
  if (typeof content === 'string') out.push(content);
  else for (const b of blocks(content)) if (b.type === 'text' && typeof b.text === 'string') out.push(b.text);
}

function attachmentsIn(content: JsonValue | undefined): number {
  let n = 0;
  for (const b of blocks(content)) {
    if (ATTACHMENTS.has(b.type as string)) n++;
    else if (b.type === 'tool_result') n += attachmentsIn(b.content);
  }
  return n;
}

/** `output_config.effort` (`max` read as `xhigh`), else a manual thinking budget's size, else adaptive → medium. */
function effortOf(body: JsonObject): RouterEffort | null {
  const given = (body.output_config as JsonObject | undefined)?.effort;
  if (typeof given === 'string') return given === 'max' ? 'xhigh' : (given as RouterEffort);
  const thinking = body.thinking as JsonObject | undefined;
  if (thinking?.type === 'enabled') {
    const budget = thinking.budget_tokens as number;
    return budget >= 16_000 ? 'high' : budget >= 4_000 ? 'medium' : 'low';
  }
  if (thinking?.type === 'adaptive') return 'medium';
  return null;
}

function systemText(system: JsonValue | undefined): string | undefined {
  if (typeof system === 'string') return system;
  const parts = blocks(system).filter((b) => b.type === 'text').map((b) => b.text as string);
  return parts.length > 0 ? parts.join('\n') : undefined;
}

export function readMessagesConversation(req: CanonicalRequest, limits: ConversationLimits): ConversationView {
  const body = req.body;
  const messages = (body.messages ?? []) as JsonObject[];
  const budget = new TurnBudget(limits);
  let attachments = 0;
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    attachments += attachmentsIn(m.content);
    if (budget.full) continue;
    const role = m.role === 'assistant' ? 'assistant' : 'user';
    if (typeof m.content === 'string') {
      budget.add(role, m.content);
      continue;
    }
    const text = budget.text();
    let toolResult = false;
    for (const b of blocks(m.content)) {
      if (b.type === 'text') text.push(b.text as string);
      else if (b.type === 'tool_use') text.push(`${b.name as string}(${JSON.stringify(b.input ?? {})})`);
      else if (b.type === 'tool_result') {
        toolResult = true;
        resultText(b.content, text);
      }
    }
    budget.add(toolResult && role === 'user' ? 'tool' : role, text);
  }
  const last = messages.at(-1);
  const toolLoop = last !== undefined && last.role === 'user' && blocks(last.content).some((b) => b.type === 'tool_result');
  return {
    turns: budget.turns(systemText(body.system)),
    tools: Array.isArray(body.tools) ? body.tools.length : 0,
    effort: effortOf(body),
    attachments,
    toolLoop,
  };
}
