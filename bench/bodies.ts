// Request bodies and headers of the scenarios. The model names carry the bench upstream's options
// (`;deltas=N;delay=MS`, see upstream.ts); the gateway's catalog lists the same names, so one body
// goes unchanged to the gateway and to the bare proxy.
import type { HttpRequestSpec } from './scenario.js';

export const BENCH_KEY = 'sk-bench-0123456789abcdef';

/** answered over the Messages API (an Anthropic deployment) */
export const CLAUDE = 'claude-bench;deltas=50';
/** answered over Chat Completions (an OpenAI deployment) */
export const GPT = 'gpt-bench;deltas=50';
/** a slow stream: `deltas` deltas `delay` ms apart */
export const slowClaude = (deltas: number, delay: number): string => `claude-bench;deltas=${deltas};delay=${delay}`;

export function messagesHeaders(): Record<string, string> {
  return { 'content-type': 'application/json', 'anthropic-version': '2023-06-01', 'x-api-key': BENCH_KEY };
}

export function chatHeaders(): Record<string, string> {
  return { 'content-type': 'application/json', authorization: `Bearer ${BENCH_KEY}` };
}

export function messagesRequest(model: string, stream: boolean): HttpRequestSpec {
  const body = { model, max_tokens: 256, stream, messages: [{ role: 'user', content: 'Write fifty short words about load testing.' }] };
  return { path: '/v1/messages', headers: messagesHeaders(), body: JSON.stringify(body) };
}

export function chatRequest(model: string, stream: boolean): HttpRequestSpec {
  const body: Record<string, unknown> = { model, max_completion_tokens: 256, stream, messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'Write fifty short words about load testing.' }] };
  if (stream) body.stream_options = { include_usage: true };
  return { path: '/v1/chat/completions', headers: chatHeaders(), body: JSON.stringify(body) };
}

/** A Claude-Code-sized Messages body (system prompt, 20 tools, a long tool-use history) of about `bytes`. */
export function claudeCodeBody(model: string, bytes: number): string {
  const tools = [];
  for (let i = 0; i < 20; i++) {
    tools.push({
      name: `tool_${i}`,
      description: `Runs operation ${i}.\nUse it when the user asks for "op ${i}"; never otherwise.\n\n- fast\n- safe`,
      input_schema: {
        type: 'object',
        properties: {
          path: { type: 'string', description: 'Absolute path to the file' },
          limit: { type: 'integer', minimum: 1, maximum: 2000 },
          recursive: { type: 'boolean', default: false },
        },
        required: ['path'],
        additionalProperties: false,
      },
    });
  }
  const messages: unknown[] = [];
  const body = {
    model,
    max_tokens: 4096,
    stream: true,
    system: [{ type: 'text', text: 'You are Claude Code, an interactive CLI tool.\n'.repeat(40), cache_control: { type: 'ephemeral' } }],
    tools,
    messages,
    metadata: { user_id: 'user_0123456789abcdef_account__session_5f0e' },
  };
  const code = 'export function add(a: number, b: number): number {\n\treturn a + b; // "sum" — ✓ ok\n}\n';
  let size = JSON.stringify(body).length;
  for (let i = 0; size < bytes - 1200; i++) {
    const turn = [
      { role: 'user', content: [{ type: 'text', text: `Please look at file number ${i} and fix the bug in it. Thanks! ` }] },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: `I'll read the file src/file_${i}.ts first.` },
          { type: 'tool_use', id: `toolu_01ABCDEF${i}`, name: 'tool_3', input: { path: `/repo/src/file_${i}.ts`, limit: 400 } },
        ],
      },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: `toolu_01ABCDEF${i}`, content: code.repeat(8), is_error: false }] },
    ];
    messages.push(...turn);
    size += JSON.stringify(turn).length;
  }
  messages.push({ role: 'user', content: [{ type: 'text', text: 'Now summarise what you changed.' }] });
  return JSON.stringify(body);
}
