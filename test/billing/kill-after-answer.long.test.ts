// Issue #16's last gap: the answer's last frame (which tells the client it succeeded, and for Chat,
// Responses and transcriptions what it cost) must never leave before its charge commits, or a
// process killed in between has told a cost it never charged (the sweep then releases the hold).
//
// The store's test switch (lib/store/fault-switch.ts, `slow <ms>`) makes every ledger batch commit
// 1.5 s late, so that moment is wide open: one request per endpoint and form (Messages, Chat and
// Responses, streaming and JSON, a transcription) is read to its end, the gateway is SIGKILLed as
// soon as the last answer arrived, and started again (its start-up sweep ends what the dead process
// left). Every answer a client got in full must be charged, exactly what it said, and nothing is
// left held. Runs on SQLite and, under `npm run test:postgres`, on PostgreSQL.
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { startGateway } from '../helpers/gateway.js';
import { eventually } from '../helpers/messages.js';
import { BILL_PRICING, billModel, chatHeaders, expectedCost, fileStoreConfig, headersFor, LedgerView, localRequestId, rowUsage, TEST_KEY } from '../helpers/billing.js';
import { makeWav } from '../transcriptions/helpers.js';
import { UNITS_PER_USD } from '../../lib/store/types.js';

const DELAY_MS = 1500;

const MODELS = [
  billModel('bill/demo', 'claude-bill'),
  { ...billModel('billchat/demo', 'gpt-bill'), family: 'openai', deployments: [{ provider: 'sim-openai', model: 'gpt-bill', api: 'chat' }] },
  { id: 'openai/whisper-minute', deployments: [{ provider: 'sim-openai', model: 'whisper-1', api: 'transcriptions' }], pricing: { perMinute: 0.006 }, input: ['audio'] },
];

interface Answer {
  name: string;
  status: number;
  reqId: string | null;
  text: string;
}

const ask = { model: 'bill/demo', max_tokens: 64, messages: [{ role: 'user', content: 'charge me before you tell me' }] };
const chat = { ...ask, model: 'billchat/demo' };
const responses = { model: 'billchat/demo', max_output_tokens: 64, input: 'charge me before you tell me' };

async function post(url: string, name: string, path: string, headers: Record<string, string>, body: object): Promise<Answer> {
  const res = await fetch(url + path, { method: 'POST', headers, body: JSON.stringify(body) });
  return { name, status: res.status, reqId: localRequestId(res.headers), text: await res.text() };
}

async function transcribe(url: string): Promise<Answer> {
  const form = new FormData();
  form.set('model', 'openai/whisper-minute');
  form.set('file', new Blob([makeWav({ sampleRate: 16000, channels: 1, bits: 16, frames: 24000 })], { type: 'audio/wav' }), 'hello.wav');
  const res = await fetch(`${url}/v1/audio/transcriptions`, { method: 'POST', headers: { authorization: `Bearer ${TEST_KEY}` }, body: form });
  return { name: 'transcription', status: res.status, reqId: res.headers.get('x-request-id'), text: await res.text() };
}

/** The last `"cost": <usd>` an answer carries (Chat's usage.cost, Responses' gateway.cost, a transcription's usage.cost). */
function toldCost(text: string): number | undefined {
  const all = [...text.matchAll(/"cost":\s*([0-9.eE+-]+)/g)];
  return all.length === 0 ? undefined : Number(all[all.length - 1]![1]);
}

t.test('SIGKILL right after the last answer frame: every answer a client got in full is charged', async (t) => {
  const store = fileStoreConfig(MODELS);
  const fault = join(store.dir, 'store-fault');
  writeFileSync(fault, `slow ${DELAY_MS}`);
  const gw = await startGateway(store.config, { env: { GATEWAY_STORE_FAULT_FILE: fault } });
  t.teardown(() => gw.stop('SIGKILL'));
  const view = new LedgerView(store.db);
  t.teardown(() => view.close());

  const sent = Date.now();
  const answers = await Promise.all([
    post(gw.url, 'messages stream', '/v1/messages', headersFor(TEST_KEY), { ...ask, stream: true }),
    post(gw.url, 'messages json', '/v1/messages', headersFor(TEST_KEY), ask),
    post(gw.url, 'chat stream', '/v1/chat/completions', chatHeaders(TEST_KEY), { ...chat, stream: true, stream_options: { include_usage: true } }),
    post(gw.url, 'chat json', '/v1/chat/completions', chatHeaders(TEST_KEY), chat),
    post(gw.url, 'responses stream', '/v1/responses', chatHeaders(TEST_KEY), { ...responses, stream: true }),
    post(gw.url, 'responses json', '/v1/responses', chatHeaders(TEST_KEY), responses),
    transcribe(gw.url),
  ]);
  // killed at once: the last answer is read, the process dies (no SIGTERM, no flush)
  gw.proc.kill('SIGKILL');
  await gw.stop('SIGKILL');
  t.comment(`all answers read after ${Date.now() - sent} ms (each batch commits ${DELAY_MS} ms late)`);
  for (const a of answers) {
    t.equal(a.status, 200, `${a.name}: answered`);
    t.ok(a.reqId, `${a.name}: a request id`);
  }
  t.match(answers[0]!.text, /event: message_stop/, 'the Messages stream ended complete');
  t.match(answers[2]!.text, /data: \[DONE\]/, 'the Chat stream ended complete');
  t.match(answers[4]!.text, /response\.completed/, 'the Responses stream ended complete');

  // the restart on the same store ends what the killed process left: releases holds it never charged
  rmSync(fault);
  const next = await startGateway(store.config);
  t.teardown(() => next.stop('SIGKILL'));
  t.ok(await eventually(async () => (view.reservations().length === 0 ? true : undefined)), 'no reservation left open');

  const rows = new Map(view.usage('acme').map((r) => [r.request_id, r]));
  for (const a of answers) {
    const row = rows.get(a.reqId!);
    t.ok(row, `${a.name}: charged (a usage row) although the process died right after the answer`);
    if (row === undefined) continue;
    t.equal(Number(row.status), 200, `${a.name}: recorded as a success`);
    t.ok(Number(row.cost) > 0, `${a.name}: a non-zero charge`);
    if (a.name !== 'transcription') t.equal(Number(row.cost), expectedCost(BILL_PRICING, rowUsage(row)), `${a.name}: charged the cost of its tokens`);
    const told = toldCost(a.text);
    if (told !== undefined) t.equal(Number(row.cost), Math.round(told * UNITS_PER_USD), `${a.name}: charged exactly the cost the client was told`);
  }
  const org = view.org('acme');
  const spent = [...rows.values()].reduce((s, r) => s + Number(r.cost), 0);
  t.equal(Number(org.reserved), 0, 'nothing reserved');
  t.equal(Number(org.spent), spent, 'spent = the charges');
  t.equal(Number(org.balance) + spent, view.credited('acme'), 'credits = balance + spent, exactly');
});
