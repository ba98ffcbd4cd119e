// Labels: call_name and end_user_id from the `gateway` and `metadata` JSON-object strings and the
// legacy top-level call_name, per-key precedence, limits and error codes; checked on the usage
// record through `bin/gateway credits usage`.
import t from 'tap';
import { makeWav, postForm } from './helpers.js';
import { startTranscriptionGateway } from './transcription-gateway.js';

const gw = await startTranscriptionGateway();
t.teardown(() => gw.stop());

const HELLO = { data: makeWav({ sampleRate: 8000, channels: 1, bits: 16, frames: 800 }), filename: 'hello.wav', type: 'audio/wav' };
const json = (v: unknown): string => JSON.stringify(v);

interface Case {
  name: string;
  fields: Record<string, string>;
  callName: string | null;
  endUserId: string | null;
}

const accepted: Case[] = [
  { name: 'no labels', fields: {}, callName: null, endUserId: null },
  { name: 'top-level call_name alone', fields: { call_name: 'legacy' }, callName: 'legacy', endUserId: null },
  { name: 'gateway wins over metadata and top level', fields: { gateway: json({ call_name: 'gw', end_user_id: 'gw-user' }), metadata: json({ call_name: 'md', end_user_id: 'md-user' }), call_name: 'legacy' }, callName: 'gw', endUserId: 'gw-user' },
  { name: 'metadata wins over top level', fields: { metadata: json({ call_name: 'md' }), call_name: 'legacy' }, callName: 'md', endUserId: null },
  { name: 'top level applies only when absent from both', fields: { gateway: json({ end_user_id: 'u1' }), metadata: json({ other: 'x' }), call_name: 'legacy' }, callName: 'legacy', endUserId: 'u1' },
  { name: 'precedence is per key', fields: { gateway: json({ end_user_id: 'gw-user' }), metadata: json({ call_name: 'md', end_user_id: 'md-user' }), call_name: 'legacy' }, callName: 'md', endUserId: 'gw-user' },
  { name: 'metadata end_user_id when gateway has none', fields: { gateway: json({ call_name: 'gw' }), metadata: json({ end_user_id: 'md-user' }) }, callName: 'gw', endUserId: 'md-user' },
  { name: 'null in gateway counts as absent', fields: { gateway: json({ call_name: null, end_user_id: null }), metadata: json({ call_name: 'md', end_user_id: 'md-user' }) }, callName: 'md', endUserId: 'md-user' },
  { name: 'reserved gateway keys are parsed and ignored', fields: { gateway: json({ call_name: 'gw', memory: { a: [1, 2] }, eval: true, policy: 'strict' }) }, callName: 'gw', endUserId: null },
  { name: 'metadata accepts other keys', fields: { metadata: json({ team: 'ml', nested: { deep: [1] }, end_user_id: 'm' }) }, callName: null, endUserId: 'm' },
  { name: 'a losing value is not validated', fields: { gateway: json({ call_name: 'gw' }), metadata: json({ call_name: '', end_user_id: 'ok' }), call_name: '   ' }, callName: 'gw', endUserId: 'ok' },
  { name: 'limits: 64 and 512 characters', fields: { gateway: json({ call_name: 'c'.repeat(64), end_user_id: 'u'.repeat(512) }) }, callName: 'c'.repeat(64), endUserId: 'u'.repeat(512) },
  { name: 'characters, not bytes', fields: { call_name: 'é'.repeat(64), metadata: json({ end_user_id: '👤'.repeat(512) }) }, callName: 'é'.repeat(64), endUserId: '👤'.repeat(512) },
  { name: 'surrounding spaces are kept', fields: { gateway: json({ call_name: ' summarize ' }) }, callName: ' summarize ', endUserId: null },
];

t.test('labels are stored on the usage record by the precedence rules', async (t) => {
  const ids = new Map<string, Case>();
  for (const c of accepted) {
    const res = await postForm(gw.url, c.fields, HELLO);
    t.equal(res.status, 200, `${c.name}`, { body: res.text });
    ids.set(res.headers.get('x-request-id')!, c);
  }
  const usage = await gw.usage(ids.keys());
  for (const [id, c] of ids) {
    const record = usage.get(id);
    t.ok(record, `${c.name}: a usage record`);
    t.equal(record?.callName, c.callName, `${c.name}: callName`);
    t.equal(record?.endUserId, c.endUserId, `${c.name}: endUserId`);
    t.equal(record?.endpoint, 'audio.transcriptions');
  }
});

const refused: { name: string; fields: Record<string, string>; code: string; param: string; message: RegExp }[] = [
  { name: 'empty top-level call_name', fields: { call_name: '' }, code: 'invalid_call_name', param: 'call_name', message: /empty or whitespace-only/ },
  { name: 'whitespace top-level call_name', fields: { call_name: ' \t ' }, code: 'invalid_call_name', param: 'call_name', message: /empty or whitespace-only/ },
  { name: 'call_name of 65 characters', fields: { call_name: 'x'.repeat(65) }, code: 'invalid_call_name', param: 'call_name', message: /at most 64 characters, got 65/ },
  { name: 'gateway.call_name empty', fields: { gateway: json({ call_name: '' }), call_name: 'ok' }, code: 'invalid_call_name', param: 'gateway.call_name', message: /empty/ },
  { name: 'metadata.call_name too long', fields: { metadata: json({ call_name: 'm'.repeat(65) }) }, code: 'invalid_call_name', param: 'metadata.call_name', message: /at most 64/ },
  { name: 'gateway.call_name a number', fields: { gateway: json({ call_name: 7 }) }, code: 'invalid_call_name', param: 'gateway.call_name', message: /must be a string/ },
  { name: 'gateway.end_user_id whitespace', fields: { gateway: json({ end_user_id: '  ' }) }, code: 'invalid_end_user_id', param: 'gateway.end_user_id', message: /whitespace-only/ },
  { name: 'metadata.end_user_id of 513 characters', fields: { metadata: json({ end_user_id: 'u'.repeat(513) }) }, code: 'invalid_end_user_id', param: 'metadata.end_user_id', message: /at most 512 characters, got 513/ },
  { name: 'gateway.end_user_id empty', fields: { gateway: json({ end_user_id: '' }) }, code: 'invalid_end_user_id', param: 'gateway.end_user_id', message: /empty/ },
  { name: 'metadata.end_user_id an object', fields: { metadata: json({ end_user_id: { id: 1 } }) }, code: 'invalid_end_user_id', param: 'metadata.end_user_id', message: /must be a string, got a object|must be a string/ },
  { name: 'malformed gateway JSON', fields: { gateway: '{"call_name": "x"' }, code: 'invalid_request', param: 'gateway', message: /^gateway: must be a JSON object string.*not valid JSON/ },
  { name: 'malformed metadata JSON', fields: { metadata: "{call_name: 'x'}" }, code: 'invalid_request', param: 'metadata', message: /^metadata: must be a JSON object string/ },
  { name: 'gateway duplicate keys', fields: { gateway: '{"call_name":"a","call_name":"b"}' }, code: 'invalid_request', param: 'gateway', message: /not valid JSON/ },
  { name: 'gateway an array', fields: { gateway: '["call_name"]' }, code: 'invalid_request', param: 'gateway', message: /got an array/ },
  { name: 'metadata a string', fields: { metadata: '"call_name"' }, code: 'invalid_request', param: 'metadata', message: /got a string/ },
  { name: 'gateway null', fields: { gateway: 'null' }, code: 'invalid_request', param: 'gateway', message: /got null/ },
  { name: 'gateway empty', fields: { gateway: '' }, code: 'invalid_request', param: 'gateway', message: /not valid JSON/ },
  { name: 'unknown gateway key', fields: { gateway: json({ callName: 'x' }) }, code: 'invalid_request', param: 'gateway.callName', message: /unknown key/ },
];

t.test('invalid labels and containers: 400 with the code and the field', async (t) => {
  for (const c of refused) {
    const res = await postForm(gw.url, c.fields, HELLO);
    t.equal(res.status, 400, c.name);
    t.match(res.body, { error: { code: c.code, param: c.param, message: c.message } }, c.name);
  }
});

t.test('a refused request leaves no charge', async (t) => {
  const before = gw.balance('acme');
  const res = await postForm(gw.url, { call_name: '' }, HELLO);
  t.equal(res.status, 400);
  const after = gw.balance('acme');
  t.equal(after.spent, before.spent);
  t.equal(after.reserved, 0);
});
