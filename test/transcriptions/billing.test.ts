// Billing and the upstream call against the real bin/gateway: the reservation taken from the file
// size and the model's prices before the upstream call, the charge settled from the upstream's usage
// (tokens, or seconds for a per-minute price) and reported as usage.cost, failover before the answer,
// and nothing charged when no provider answered.
import t from 'tap';
import { errorCode, formPost, makeWav, PATH, postForm } from './helpers.js';
import { startTranscriptionGateway, type TranscriptionGateway } from './transcription-gateway.js';

const gw: TranscriptionGateway = await startTranscriptionGateway();
t.teardown(() => gw.stop());

/** 1.5 s of 16 kHz 16-bit mono: 48,044 bytes */
const WAV = makeWav({ sampleRate: 16000, channels: 1, bits: 16, frames: 24000 });
const HELLO = { data: WAV, filename: 'hello.wav', type: 'audio/wav' };
const UNITS_PER_USD = 1e9;

/** postForm, then wait for the request's settlement (it runs just after the answer is written) */
async function post(...args: Parameters<typeof postForm>): ReturnType<typeof postForm> {
  const res = await postForm(...args);
  await gw.settled(res.headers.get('x-request-id')!);
  return res;
}

function spent(): number {
  return gw.balance('acme').spent;
}

t.test('token prices: cost = input × 2.5 + output × 10 per million, reported, recorded and charged', async (t) => {
  const before = spent();
  const res = await post(gw.url, { gateway: JSON.stringify({ call_name: 'billing' }) }, HELLO);
  t.equal(res.status, 200);
  const usage = res.body.usage as Record<string, number>;
  // the simulated provider counts one input token per started 1,000 bytes and one output token per word
  t.equal(usage.input_tokens, Math.ceil(WAV.length / 1000));
  t.equal(usage.output_tokens, 6);
  t.equal(usage.total_tokens, usage.input_tokens! + usage.output_tokens!);
  t.equal(usage.seconds, 1.5);
  const units = Math.round((usage.input_tokens! * 2.5 + usage.output_tokens! * 10) * 1000);
  t.equal(Math.round(usage.cost! * UNITS_PER_USD), units, 'usage.cost in USD');
  const record = await gw.settled(res.headers.get('x-request-id')!);
  t.match(record, { cost: units, inputTokens: usage.input_tokens, outputTokens: usage.output_tokens, audioSeconds: 1.5, callName: 'billing', status: 200, modelServed: 'openai/gpt-4o-transcribe' });
  t.equal(spent() - before, units, 'the charge is the reported cost');
  t.equal(gw.balance('acme').reserved, 0, 'the reservation is ended');
});

t.test('text responses are charged the same, without showing usage', async (t) => {
  const before = spent();
  const res = await post(gw.url, { response_format: 'text' }, HELLO);
  t.equal(res.status, 200);
  t.notMatch(res.text, /usage|cost/);
  const units = Math.round((Math.ceil(WAV.length / 1000) * 2.5 + 6 * 10) * 1000);
  t.equal(spent() - before, units);
  t.match(await gw.settled(res.headers.get('x-request-id')!), { cost: units, audioSeconds: 1.5 });
});

t.test('per-minute prices: cost = seconds / 60 × perMinute', async (t) => {
  const before = spent();
  const res = await post(gw.url, { model: 'openai/whisper-minute' }, HELLO);
  t.equal(res.status, 200);
  const usage = res.body.usage as Record<string, number>;
  const units = Math.round((1.5 / 60) * 0.006 * UNITS_PER_USD); // 150,000 units = $0.00015
  t.equal(units, 150_000);
  t.equal(Math.round(usage.cost! * UNITS_PER_USD), units);
  t.equal(spent() - before, units);
  t.match(await gw.settled(res.headers.get('x-request-id')!), { cost: units, audioSeconds: 1.5, modelServed: 'openai/whisper-minute' });
});

t.test('the reservation is taken from the file size and the prices before the upstream call', async (t) => {
  const cases = [
    // tokens: input bound max(ceil(48,044 / 1,000), 20 × 1.5 s) = 49; output bound 64 + 10 × 1.5 = 79
    { model: 'openai/slow-transcribe', file: HELLO, units: Math.round((49 * 2.5 + 79 * 10) * 1000) },
    // per minute: the exact WAV duration
    { model: 'openai/slow-minute', file: HELLO, units: Math.round((1.5 / 60) * 0.006 * UNITS_PER_USD) },
    // per minute, mp3: twice the duration estimated at 128 kbit/s (160,000 bytes → 10 s → 20 s)
    { model: 'openai/slow-minute', file: { data: Buffer.alloc(160_000, 1), filename: 'hello.mp3', type: 'audio/mpeg' }, units: Math.round((20 / 60) * 0.006 * UNITS_PER_USD) },
  ];
  for (const c of cases) {
    const pending = post(gw.url, { model: c.model }, c.file);
    // the simulated provider holds the answer for 1.5 s: the hold is visible meanwhile
    let reserved = 0;
    for (let i = 0; i < 100 && reserved === 0; i++) {
      reserved = gw.balance('acme').reserved;
      if (reserved === 0) await new Promise((r) => setTimeout(r, 20));
    }
    t.equal(reserved, c.units, `${c.model} ${c.file.filename}: reserved`);
    const res = await pending;
    t.equal(res.status, 200);
    t.equal(gw.balance('acme').reserved, 0, 'released after settling');
  }
});

t.test('insufficient credits: 402 before any provider work', async (t) => {
  await gw.clearSim();
  const res = await postForm(gw.url, {}, HELLO, { authorization: 'Bearer sk-test-poor' });
  t.equal(res.status, 402);
  t.equal(errorCode(res.body), 'insufficient_credits');
  t.same((await gw.simRequests()).filter((r) => r.path.endsWith(PATH)), [], 'the provider was not called');
  t.equal(gw.balance('poor').reserved, 0);
});

t.test('failover: 503 and 429 move on to the next deployment, which gets the whole file', async (t) => {
  await gw.clearSim();
  const res = await post(gw.url, { model: 'openai/flaky-transcribe', language: 'en' }, HELLO);
  t.equal(res.status, 200, 'status', { body: res.text });
  const calls = (await gw.simRequests()).filter((r) => r.path.endsWith(PATH));
  t.same(
    calls.map((c) => (c.body as { fields: Record<string, string> }).fields.model),
    ['fault:503', 'fault:429;retry-after=0', 'gpt-4o-transcribe'],
  );
  for (const c of calls) {
    const body = c.body as { fields: Record<string, string>; file: { bytes: number; filename: string } };
    t.equal(body.file.bytes, WAV.length, 'every attempt carries the whole file');
    t.equal(body.file.filename, 'hello.wav');
    t.equal(body.fields.language, 'en');
    t.match(c.headers['content-type'], /^multipart\/form-data; boundary=/);
    t.ok(Number(c.headers['content-length']) > WAV.length, 'a sized body, not chunked');
  }
  t.match(await gw.settled(res.headers.get('x-request-id')!), { provider: 'sim-openai', modelServed: 'openai/flaky-transcribe', status: 200 });
});

t.test('failover: connection refused and a header timeout move on too', async (t) => {
  const res = await post(gw.url, { model: 'openai/failover-transcribe' }, HELLO);
  t.equal(res.status, 200, 'status', { body: res.text });
  t.equal((res.body.usage as Record<string, number>).seconds, 1.5);
});

t.test('every deployment failing: 503 provider_unavailable, nothing charged', async (t) => {
  const before = spent();
  const res = await post(gw.url, { model: 'openai/down-transcribe' }, HELLO);
  t.equal(res.status, 503);
  t.equal(errorCode(res.body), 'provider_unavailable');
  t.match(res.body, { error: { message: /All 2 provider deployment\(s\) of model openai\/down-transcribe failed/ } });
  t.equal(res.headers.get('retry-after'), '1');
  t.equal(spent(), before);
  t.equal(gw.balance('acme').reserved, 0);
  t.match(await gw.settled(res.headers.get('x-request-id')!), { cost: 0, status: 503 });
});

t.test("the provider refusing the request: its 400 is the client's, not retried, not charged", async (t) => {
  await gw.clearSim();
  const before = spent();
  const res = await post(gw.url, { model: 'openai/refusing-transcribe' }, HELLO);
  t.equal(res.status, 400);
  t.match(res.body, { error: { code: 'invalid_request', message: /sim fault 400/ } });
  t.equal((await gw.simRequests()).filter((r) => r.path.endsWith(PATH)).length, 1);
  t.equal(spent(), before);
});

t.test('hand-framed upload: the spooled file is what the provider receives', async (t) => {
  await gw.clearSim();
  const res = await formPost(gw.url, { authorization: 'Bearer sk-test-full-0000' }, 'xyz', [
    { name: 'prompt', value: 'line one\r\nline two' },
    { name: 'file', filename: 'hello.m4a', contentType: 'audio/mp4', data: Buffer.alloc(100_003, 7) },
  ]);
  t.equal(res.status, 200);
  const call = (await gw.simRequests()).filter((r) => r.path.endsWith(PATH))[0]!;
  t.match(call.body, { fields: { prompt: 'line one\r\nline two', response_format: 'json' }, file: { bytes: 100_003, filename: 'hello.m4a', mimeType: 'audio/mp4' } });
});
