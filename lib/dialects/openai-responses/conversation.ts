// What gateway-auto's router reads of a Responses request (../dialect.ts ConversationReader): the
// recent input items as plain text (a call as name and arguments, its output as text), the
// instructions and system/developer messages as the system text, the tool count, the effort (the
// `gateway-auto` default included), image and file parts, and whether the last item is a tool
// output. The body was validated: shapes are trusted.
import type { CanonicalRequest, JsonObject, JsonValue } from '../../chunks.js';
import type { RouterTurn } from '../../router/router-api.js';
import { TurnBudget, type ConversationLimits, type TurnText } from '../../router/turn-budget.js';
import type { ConversationView } from '../dialect.js';

const OUTPUTS = new Set(['function_call_output', 'custom_tool_call_output', 'shell_call_output', 'apply_patch_call_output']);
const CALLS = new Set(['function_call', 'custom_tool_call', 'shell_call', 'apply_patch_call']);
const TEXT_PARTS = new Set(['input_text', 'output_text', 'text', 'refusal']);

function parts(content: JsonValue | undefined): JsonObject[] {
  return Array.isArray(content) ? (content as JsonObject[]) : [];
}

function pushContent(content: JsonValue | undefined, out: TurnText): void {
  if (typeof content === 'string') out.push(content);
  else for (const p of parts(content)) if (TEXT_PARTS.has(p.type as string)) out.push(((p.text ?? p.refusal) as string | undefined) ?? '');
}

function attachmentsIn(item: JsonObject): number {
  let n = 0;
  for (const p of parts(item.content)) if (p.type === 'input_image' || p.type === 'input_file') n++;
  return n;
}

/** One item as the router reads it; null for items without text (reasoning, echoed searches). */
function itemTurn(item: JsonObject, text: TurnText): RouterTurn['role'] | null {
  const type = item.type ?? 'message';
  if (type === 'message') {
    pushContent(item.content, text);
    return item.role === 'assistant' ? 'assistant' : item.role === 'tool' ? 'tool' : 'user';
  }
  if (CALLS.has(type as string)) {
    const payload = item.arguments ?? item.input ?? item.action ?? item.operation ?? null;
    text.push(`${(item.name as string | undefined) ?? (type as string)}(${typeof payload === 'string' ? payload : JSON.stringify(payload)})`);
    return 'assistant';
  }
  if (OUTPUTS.has(type as string)) {
    const out = item.output;
    if (typeof out === 'string') text.push(out);
    else if (Array.isArray(out)) pushContent(out, text);
    else if (out !== undefined && out !== null) text.push(JSON.stringify(out));
    return 'tool';
  }
  return null;
}

export function readResponsesConversation(req: CanonicalRequest, limits: ConversationLimits): ConversationView {
  const body = req.body;
  const budget = new TurnBudget(limits);
  const items: JsonObject[] = typeof body.input === 'string' ? [{ type: 'message', role: 'user', content: body.input }] : ((body.input ?? []) as JsonObject[]);
  let attachments = 0;
  const system: string[] = typeof body.instructions === 'string' ? [body.instructions] : [];
  for (let i = items.length - 1; i >= 0; i--) {
    const item = items[i]!;
    attachments += attachmentsIn(item);
    const isSystem = (item.type ?? 'message') === 'message' && (item.role === 'system' || item.role === 'developer');
    if (isSystem) {
      if (system.length < 2) {
        const text = budget.text();
        pushContent(item.content, text);
        system.push(text.toString());
      }
      continue;
    }
    if (budget.full) continue;
    const text = budget.text();
    const role = itemTurn(item, text);
    if (role !== null) budget.add(role, text);
  }
  const last = items.at(-1);
  return {
    turns: budget.turns(system.length > 0 ? system.join('\n') : undefined),
    tools: Array.isArray(body.tools) ? body.tools.length : 0,
    effort: req.findings?.responses?.effort ?? null,
    attachments,
    toolLoop: last !== undefined && OUTPUTS.has(last.type as string),
  };
}
