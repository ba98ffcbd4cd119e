// The real Claude Code request bodies (fixtures/clients/cc_*.jsonl) sent to a model served by an
// OpenAI Chat deployment: validated with their own betas, translated, and checked for the parts
// that matter (system prompt and inline system turns, tool results, tools, no thinking, usage on
// streams). The Chat body is then translated back to Messages, which must pass that validator.
import { readFileSync } from 'node:fs';
import t from 'tap';
import type { JsonObject, JsonValue } from '../../../lib/chunks.js';
import { validateMessagesHeaders } from '../../../lib/dialects/anthropic/headers.js';
import { validateChatRequest } from '../../../lib/dialects/openai-chat/validate.js';
import { anthropicToChat } from '../../../lib/translate/messages-to-chat.js';
import { fixture } from '../../helpers/paths.js';
import { CHAT_DEPLOYMENT, routedFor, toMessages, validMessages } from './harness.js';

interface Capture {
  seq: number;
  label: string;
  path: string;
  rawHeaders: string[];
  body?: string;
}

function captures(file: string): Capture[] {
  return readFileSync(fixture('clients', file), 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Capture)
    .filter((c) => c.path === '/v1/messages' && c.body !== undefined);
}

const texts = (v: JsonValue | undefined): string[] =>
  typeof v === 'string' ? [v] : (v as JsonObject[]).map((b) => b.text as string);

for (const file of ['cc_sayhi.jsonl', 'cc_tool.jsonl', 'cc_thinking.jsonl']) {
  for (const c of captures(file)) {
    t.test(`${file} #${c.seq}`, async (t) => {
      const betas = validateMessagesHeaders(c.rawHeaders, ['2023-06-01'], { requireContentType: true }).betas;
      const body = JSON.parse(c.body as string) as JsonObject;
      validMessages(body, betas);
      // Claude Code asks for 128000; the served model allows 64000
      const call = anthropicToChat(routedFor('anthropic', body, { maxTokens: 64000, modelId: 'openai/gpt-5' }), CHAT_DEPLOYMENT);
      const out = JSON.parse(call.body) as JsonObject;
      validateChatRequest(out);
      t.same(call.headers, {}, 'no betas upstream');
      t.equal(call.stream, true);
      t.same([out.stream, out.stream_options], [true, { include_usage: true }], 'streams ask for usage');
      t.equal(out.max_completion_tokens, 64000);
      t.equal(out.reasoning_effort, 'medium', 'output_config.effort medium');
      t.equal(out.user, (body.metadata as JsonObject).user_id, 'metadata.user_id → user');
      t.notMatch(call.body, /cache_control|context_management|output_config|"thinking"|signature|c2lnbmF0dXJl|defer_loading/, 'nothing Anthropic-only');

      const src = body.messages as JsonObject[];
      const msgs = out.messages as JsonObject[];
      t.same(msgs[0], { role: 'system', content: texts(body.system).map((text) => ({ type: 'text', text })) }, 'system blocks kept in order');
      t.same(msgs[1], { role: 'user', content: (src[0]!.content as JsonObject[]).map((b) => ({ type: 'text', text: b.text })) });
      t.same(msgs[2], { role: 'system', content: texts(src[1]!.content).join('') }, 'inline system turn in place, without output_config');

      const tools = out.tools as JsonObject[];
      const srcTools = body.tools as JsonObject[];
      t.equal(tools.length, srcTools.length, 'every tool kept, the deferred one too');
      for (let i = 0; i < tools.length; i++) {
        t.same(tools[i], { type: 'function', function: { name: srcTools[i]!.name, description: srcTools[i]!.description, parameters: srcTools[i]!.input_schema } });
      }
      t.equal(out.tool_choice, undefined);

      if (src.length > 2) {
        const use = (src[2]!.content as JsonObject[]).find((b) => b.type === 'tool_use')!;
        t.same(msgs.slice(3), [
          {
            role: 'assistant',
            content: 'I will run a command.',
            tool_calls: [{ id: use.id, type: 'function', function: { name: 'Bash', arguments: JSON.stringify(use.input) } }],
          },
          { role: 'tool', tool_call_id: use.id, content: 'README.txt' },
        ], 'tool round trip; thinking dropped');
      } else {
        t.equal(msgs.length, 3);
      }

      const back = toMessages(out, { modelMaxOutputTokens: 64000 });
      t.equal((back.messages as JsonObject[])[0]!.role, 'user', 'and the Chat body translates back to a valid Messages body');
    });
  }
}
