// The requests real clients sent (fixtures/clients/*.jsonl, copied from the client probe) must pass
// the query, header and body rules with their own headers and betas.
import t from 'tap';
import { readFileSync } from 'node:fs';
import type { JsonObject, JsonValue } from '../../../lib/chunks.js';
import { validateMessagesHeaders, validateMessagesQuery, type MessagesHeaderInfo } from '../../../lib/dialects/anthropic/headers.js';
import { validateMessagesRequest } from '../../../lib/dialects/anthropic/validate.js';
import { fixture } from '../../helpers/paths.js';
import { INVALID, REJECTED, assertError, at, list, thrown } from './validate-harness.js';

interface Capture {
  seq: number;
  label: string;
  method: string;
  path: string;
  url: string;
  rawHeaders: string[];
  body?: string;
}

const FILES = ['cc_sayhi.jsonl', 'cc_tool.jsonl', 'cc_thinking.jsonl', 'sdk_anthropic.jsonl'];
/** Accepted versions as configured for these clients (decisions §8: the SDK 1.12 sends 2026-10-21). */
const VERSIONS = ['2023-06-01', '2026-10-21'];
/**
 * The probe's `anth-beta-messages` call asks for a 1024-token thinking budget with max_tokens 256:
 * the spec requires budget_tokens < max_tokens, so it is the one capture that must be refused.
 */
const REFUSED = new Map([['sdk_anthropic.jsonl#7', 'thinking.budget_tokens']]);

function captures(file: string): Capture[] {
  return readFileSync(fixture('clients', file), 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Capture)
    .filter((c) => c.method === 'POST' && c.path.startsWith('/v1/messages') && c.body !== undefined);
}

function run(c: Capture): { header: MessagesHeaderInfo; body: JsonObject } {
  validateMessagesQuery(new URL(c.url, 'http://gateway').searchParams);
  const header = validateMessagesHeaders(c.rawHeaders, VERSIONS, { requireContentType: true });
  const body = JSON.parse(c.body as string) as JsonObject;
  return { header, body };
}

for (const file of FILES) {
  t.test(file, async (t) => {
    const list = captures(file);
    t.ok(list.length > 0, 'has requests');
    for (const c of list) {
      const { header, body } = run(c);
      const countTokens = c.path === '/v1/messages/count_tokens';
      const opts = { betas: header.betas, countTokens };
      const refusedAt = REFUSED.get(`${file}#${c.seq}`);
      if (refusedAt !== undefined) {
        assertError(t, thrown(() => validateMessagesRequest(body, header, opts)), INVALID, refusedAt);
        continue;
      }
      const req = validateMessagesRequest(body, header, opts);
      t.equal(req.body, body, `#${c.seq} ${c.label}: valid`);
      t.equal(req.model, body.model);
    }
  });
}

function ccCapture(file: string, seq: number): { header: MessagesHeaderInfo; body: JsonObject } {
  const c = captures(file).find((x) => x.seq === seq);
  if (c === undefined) throw new Error(`no capture ${file}#${seq}`);
  return run(c);
}

t.test('Claude Code facts carried to the canonical request', async (t) => {
  const { header, body } = ccCapture('cc_thinking.jsonl', 2);
  const req = validateMessagesRequest(body, header, { betas: header.betas });
  t.equal(req.stream, true);
  t.equal(req.maxTokens, 128000);
  t.equal(req.needs.signedThinking, true, 'the replayed thinking block is model-bound');
  t.equal(req.needs.reasoning, true);
  t.equal(req.needs.tools, true);
  t.equal(req.forward.sessionId, header.sessionId);
  t.same(req.forward.headers, { 'anthropic-dangerous-direct-browser-access': 'true' });
  t.equal(req.forward.betas.length, 8);
  t.equal(req.labels.endUserId, (body.metadata as JsonObject).user_id);
  t.ok(req.inputTokenBound > 10_000 && req.inputTokenBound < 100_000, `bound ${req.inputTokenBound}`);
});

t.test('interactive Claude Code: safeguards and display "updates" with their betas', async (t) => {
  const { header, body } = ccCapture('cc_sayhi.jsonl', 1);
  const betas = [...header.betas, 'dangerous-tool-use-2026-09-03', 'thinking-display-updates-2026-08-18'];
  body.safeguards = [{ type: 'dangerous_tool_use', classifier_context: { v: 1, permission_mode: 'auto', rules: { allow: [], deny: [], ask: [] } } }];
  body.thinking = { type: 'adaptive', display: 'updates' };
  t.doesNotThrow(() => validateMessagesRequest(body, { ...header, betas }, { betas }));
  const without = header.betas;
  assertError(t, thrown(() => validateMessagesRequest(body, header, { betas: without })), REJECTED, 'safeguards', '`dangerous-tool-use-2026-09-03`');
});

t.test('per-turn output_config without its beta names the beta', async (t) => {
  const { header, body } = ccCapture('cc_sayhi.jsonl', 1);
  const systemIndex = list(body, 'messages').findIndex((m) => (m as JsonObject).role === 'system');
  t.ok(at(body, 'messages', systemIndex).output_config, 'the capture has a per-turn output_config');
  const betas = header.betas.filter((b) => b !== 'per-turn-control-2026-07-01');
  const err = thrown(() => validateMessagesRequest(body, { ...header, betas }, { betas }));
  assertError(t, err, REJECTED, `messages[${systemIndex}].output_config`, 'Unexpected value(s) `per-turn-control-2026-07-01` for the `anthropic-beta` header');
  // what Claude Code then sends: the same body without that beta and without the per-turn field
  delete at(body, 'messages', systemIndex).output_config;
  t.doesNotThrow(() => validateMessagesRequest(body, { ...header, betas }, { betas }));
});

t.test('validation is fast on a real Claude Code body', async (t) => {
  const { header, body } = ccCapture('cc_tool.jsonl', 2);
  const rounds = 200;
  const start = process.hrtime.bigint();
  for (let i = 0; i < rounds; i++) validateMessagesRequest(body as JsonValue, header, { betas: header.betas });
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  t.comment(`${(ms / rounds).toFixed(3)} ms per ${Buffer.byteLength(JSON.stringify(body))}-byte body`);
  t.ok(ms / rounds < 20, 'well under 20 ms per request');
});
