// What the offline tools (`gateway router choose`, bench/router) feed the router for a prompt of the
// router-data format (a string, or an array of chat turns), and the cost convention they price it
// with (shared/router-data/SOURCES.md): input tokens = prompt characters / 4, output tokens = 300
// per user turn. The gateway itself builds RouterInput from the request and prices it from the catalog.
import type { RouterInput, RouterTurn } from './router-api.js';

export type DataPrompt = string | readonly { role: string; content: unknown }[];

const ROLES = new Set(['system', 'user', 'assistant', 'tool']);

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content.map((p) => (typeof p === 'string' ? p : typeof p?.text === 'string' ? (p.text as string) : '')).join('\n');
  }
  return '';
}

export function promptTurns(prompt: DataPrompt): RouterTurn[] {
  if (typeof prompt === 'string') return [{ role: 'user', text: prompt }];
  return prompt.map((t) => ({ role: (ROLES.has(t.role) ? t.role : 'user') as RouterTurn['role'], text: textOf(t.content) }));
}

export function promptInput(prompt: DataPrompt): RouterInput {
  const turns = promptTurns(prompt);
  let chars = 0;
  for (const t of turns) chars += t.text.length;
  return { turns, tools: 0, effort: null, attachments: 0, inputTokens: Math.ceil(chars / 4) };
}

/** USD per 1M tokens, in and out. */
export interface Price {
  input: number;
  output: number;
}

/** The evaluation's cost of a prompt on a model, in USD. */
export function promptCost(input: RouterInput, price: Price): number {
  let chars = 0;
  let userTurns = 0;
  for (const t of input.turns) {
    if (t.role === 'user') {
      chars += t.text.length;
      userTurns++;
    }
  }
  return ((chars / 4) * price.input + 300 * Math.max(1, userTurns) * price.output) / 1e6;
}
