// A request offering one `bash` tool in each client dialect, for the tool-call failure modes (F5, F6).
import type { Endpoint } from './clients.js';

const SCHEMA = { type: 'object', properties: { command: { type: 'string' } }, required: ['command'] };
const TOOLS: Record<Endpoint, unknown[]> = {
  messages: [{ name: 'bash', description: 'run a command', input_schema: SCHEMA }],
  chat: [{ type: 'function', function: { name: 'bash', description: 'run a command', parameters: SCHEMA } }],
  responses: [{ type: 'function', name: 'bash', description: 'run a command', parameters: SCHEMA }],
};

/** The body asking `model` for `text` with the bash tool, in the client dialect `ep`. */
export function toolRequest(ep: Endpoint, model: string, stream: boolean, text = 'list the files'): Record<string, unknown> {
  const common = { model, stream, tools: TOOLS[ep] };
  if (ep === 'messages') return { ...common, max_tokens: 1000, messages: [{ role: 'user', content: text }] };
  if (ep === 'chat') return { ...common, messages: [{ role: 'user', content: text }] };
  return { ...common, input: text };
}
