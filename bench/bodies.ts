// Request bodies and headers of the scenarios. The model names carry the bench upstream's options
// (`;deltas=N;delay=MS`, see upstream.ts); the gateway's catalog lists the same names, so one body
// goes unchanged to the gateway and to the bare proxy.
import type { HttpRequestSpec } from './scenario.js';

export const BENCH_KEY = 'sk-bench-0123456789abcdef';

/** answered over the Messages API (an Anthropic deployment) */
export const CLAUDE = 'claude-bench;deltas=50';
/** answered over Chat Completions (an OpenAI deployment) */
export const GPT = 'gpt-bench;deltas=50';
/** answered over the Responses API (an OpenAI deployment) */
export const GPT_RESPONSES = 'gpt-resp-bench;deltas=50';
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

/**
 * The support conversation of the #21 rows: a system prompt, four turns (user, assistant, user,
 * assistant) and the user's next question, about 1 KB of JSON in every dialect.
 */
const SUPPORT_SYSTEM = 'You are the support assistant of Acme Cloud Storage. Answer briefly and politely; never promise refunds; link to the status page when an outage is mentioned.';
const SUPPORT_TURNS: ['user' | 'assistant', string][] = [
  ['user', 'Hi, my uploads to the eu-west bucket have been failing since this morning with a 503. Order #48213, account acme-ops.'],
  ['assistant', 'Sorry about that. There was a partial outage in eu-west between 08:10 and 09:40 UTC; uploads should work again now. Could you retry one and tell me the result?'],
  ['user', 'Retried just now: small files work, but a 2 GB multipart upload still stops at part 37 with "SlowDown".'],
  ['assistant', 'Thanks. SlowDown means the bucket is throttling you: lower the part concurrency to 4 and retry failed parts with backoff. Shall I raise your request limit?'],
  ['user', 'Yes please, raise it, and tell me how long the change takes to apply.'],
];

export function supportChatRequest(model: string, stream: boolean): HttpRequestSpec {
  const messages = [{ role: 'system', content: SUPPORT_SYSTEM }, ...SUPPORT_TURNS.map(([role, content]) => ({ role, content }))];
  const body: Record<string, unknown> = { model, max_completion_tokens: 256, stream, messages };
  if (stream) body.stream_options = { include_usage: true };
  return { path: '/v1/chat/completions', headers: chatHeaders(), body: JSON.stringify(body) };
}

export function supportMessagesRequest(model: string, stream: boolean): HttpRequestSpec {
  const body = { model, max_tokens: 256, stream, system: SUPPORT_SYSTEM, messages: SUPPORT_TURNS.map(([role, content]) => ({ role, content })) };
  return { path: '/v1/messages', headers: messagesHeaders(), body: JSON.stringify(body) };
}

export function supportResponsesRequest(model: string, stream: boolean): HttpRequestSpec {
  const input = SUPPORT_TURNS.map(([role, text]) => ({ type: 'message', role, content: [{ type: role === 'user' ? 'input_text' : 'output_text', text }] }));
  const body = { model, max_output_tokens: 256, stream, store: false, instructions: SUPPORT_SYSTEM, input };
  return { path: '/v1/responses', headers: chatHeaders(), body: JSON.stringify(body) };
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
