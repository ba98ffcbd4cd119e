// The upstream Responses decoder on every recorded fixture: sse-decode → provider-decode →
// integrity, fed whole, byte by byte and in seeded random chunks (the same events every time), and
// the blocks (text, function calls and their arguments, reasoning summary and signature, opaque
// hosted-tool items), stop reason and usage checked against what the fixture itself says.
import { readFileSync, readdirSync } from 'node:fs';
import t from 'tap';
import type { JsonObject } from '../../../lib/chunks.js';
import { GatewayError } from '../../../lib/errors.js';
import { eventToJson } from '../../../lib/offline-context.js';
import { CHUNKINGS, chunk, seedOf } from '../../helpers/replay.js';
import { accumulate, decodeChunks, DIR, fixtureFacts, type Block } from './harness.js';

type Obj = Record<string, unknown>;
const files = readdirSync(DIR).filter((f) => f.endsWith('.sse') || f.endsWith('.json')).sort();

/** The block each complete output item should give, written from the wire format. */
function expectedBlock(item: Obj): Partial<Block> | undefined {
  if (item.type === 'message') {
    const text = (item.content as Obj[]).map((p) => String(p.type === 'refusal' ? p.refusal : p.text ?? '')).join('');
    return text === '' ? undefined : { kind: 'text', text };
  }
  if (item.type === 'function_call') return { kind: 'tool-call', id: item.call_id as string, name: item.name as string, json: item.arguments as string };
  if (item.type === 'reasoning' && typeof item.encrypted_content === 'string') {
    const parts = (item.summary as Obj[]).map((p) => p.text as string);
    return { kind: 'thinking', text: parts.join('\n\n'), signature: `oai-rs:${item.id as string}:${parts.map((p) => p.length).join(',')}:${item.encrypted_content}` };
  }
  return { kind: 'opaque', value: item as JsonObject };
}

function pick(b: Block, keys: string[]): Obj {
  const out: Obj = {};
  for (const k of keys) out[k] = (b as unknown as Obj)[k];
  return out;
}

t.test('every fixture decodes to the same events whole, byte by byte and in random chunks', async (t) => {
  t.ok(files.length >= 16, `${files.length} fixtures`);
  for (const name of files) {
    const mode = name.endsWith('.json') ? 'json' : 'sse';
    const bytes = readFileSync(`${DIR}/${name}`);
    const whole = decodeChunks(chunk(bytes, 'whole'), mode).map(eventToJson);
    t.ok(whole.length > 0, `${name}: events`);
    for (const how of CHUNKINGS.filter((c) => c !== 'whole')) {
      t.same(decodeChunks(chunk(bytes, how, seedOf(name)), mode).map(eventToJson), whole, `${name}: ${how} = whole`);
    }
  }
});

t.test('blocks, stop reason and usage are the fixture\'s', async (t) => {
  for (const name of files.filter((f) => !f.startsWith('error-'))) {
    const mode = name.endsWith('.json') ? 'json' : 'sse';
    const got = accumulate(decodeChunks([readFileSync(`${DIR}/${name}`)], mode));
    const facts = fixtureFacts(name);
    const response = facts.response!;
    t.equal(got.id, response.id, `${name}: id`);
    t.equal(got.model, response.model, `${name}: model`);
    const want = facts.items.map(expectedBlock).filter((b) => b !== undefined);
    t.equal(got.blocks.length, want.length, `${name}: block count`);
    want.forEach((w, i) => t.same(pick(got.blocks[i]!, Object.keys(w)), w, `${name}: block ${i} (${w.kind})`));

    const usage = response.usage as Obj;
    const inDetails = (usage.input_tokens_details ?? {}) as Obj;
    const cached = Number(inDetails.cached_tokens ?? 0);
    const written = Number(inDetails.cache_write_tokens ?? 0);
    const searches = facts.items.filter((i) => i.type === 'web_search_call' && i.status === 'completed').length;
    t.same(got.usage, {
      input: (usage.input_tokens as number) - cached - written,
      output: usage.output_tokens,
      cacheRead: cached,
      cacheWrite: written,
      reasoning: (usage.output_tokens_details as Obj).reasoning_tokens,
      webSearches: searches,
    }, `${name}: usage`);
    const incomplete = response.status === 'incomplete';
    const calls = facts.items.some((i) => i.type === 'function_call');
    const stop = incomplete ? { kind: 'length' } : { kind: calls ? 'tool-calls' : 'end' };
    t.same(got.stop, stop, `${name}: stop`);
  }
});

t.test('known values of single fixtures', async (t) => {
  const run = (name: string) => accumulate(decodeChunks([readFileSync(`${DIR}/${name}`)], name.endsWith('.json') ? 'json' : 'sse'));
  const cached = run('cached-tokens.json');
  t.same(cached.usage, { input: 149, output: 5, cacheRead: 6016, cacheWrite: 0, reasoning: 0, webSearches: 0 }, 'input excludes the cached tokens');
  t.equal(cached.blocks[0]!.text, 'OK');

  const calls = run('function-calls-parallel.sse');
  t.same(calls.blocks.map((b) => [b.kind, b.name, JSON.parse(b.json)]), [
    ['tool-call', 'secret_retrieval_tool', { password: 'mellon' }],
    ['tool-call', 'secret_retrieval_tool', { password: 'radiance' }],
  ]);
  t.not(calls.blocks[0]!.id, calls.blocks[1]!.id, 'two call ids');

  const ci = run('reasoning-summary-code-interpreter.sse');
  t.same(ci.blocks.map((b) => b.kind), ['thinking', 'opaque', 'opaque', 'opaque', 'text']);
  t.match(ci.blocks[0]!.text, /^\*\*Calculating a large integer\*\*\n\nI need to compute 123456/);
  t.match(ci.blocks[0]!.signature, /^oai-rs:rs_68c3509b2ee0819eba32735182d275ad0f2d670b80edc507:\d+:gAAAAA/);
  t.same([ci.usage!.input, ci.usage!.cacheRead, ci.usage!.reasoning], [527, 3200, 128]);
  t.equal(ci.blocks[1]!.value!.type, 'code_interpreter_call');

  const enc = run('reasoning-encrypted-function-call.sse');
  t.same(enc.blocks.map((b) => [b.kind, b.text]), [['thinking', ''], ['tool-call', '']], 'empty summary: a thinking block with no text');
  t.match(enc.blocks[0]!.signature, /^oai-rs:rs_[0-9a-f]+::gAAAAA/, 'no summary parts');

  t.equal(run('web-search-annotations.sse').usage!.webSearches, 2, 'two completed searches');
  t.equal(run('web-search.json').usage!.webSearches, 1);
  t.same(run('refusal.sse').blocks.map((b) => b.kind), ['text'], 'a refusal is text');
  t.match(run('refusal.json').blocks[0]!.text, /^I'm very sorry, but I can't assist with that\.$/);
  t.same(run('incomplete-max-output-tokens.sse').stop, { kind: 'length' });
});

t.test('the error fixture ends in an error event (GW_ERR_UPSTREAM, provider code and words kept)', async (t) => {
  const name = 'error-insufficient-quota.sse';
  const bytes = readFileSync(`${DIR}/${name}`);
  for (const how of CHUNKINGS) {
    const events = decodeChunks(chunk(bytes, how, seedOf(name)), 'sse');
    t.same(events.map((e) => e.type), ['message-start', 'error'], how);
    const last = events[events.length - 1]!;
    if (last.type !== 'error') continue;
    t.ok(GatewayError.is(last.error));
    t.equal(last.error.code, 'GW_ERR_UPSTREAM');
    t.equal(last.error.status, 502);
    t.match(last.error.upstream, { protocol: 'openai', status: 429, type: 'insufficient_quota', message: /^You exceeded your current quota/ });
    t.equal(last.native?.event, 'error', 'the first error wins; response.failed after it is ignored');
  }
});
