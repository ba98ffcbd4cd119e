// The request log (in process and over /_sim/requests) and the sim-provider command.
import t from 'tap';
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { AH, chat, post, startSim, transcribe, type J } from './util.js';

t.test('what the provider was sent', async (t) => {
  const sim = await startSim(t);
  t.same(sim.requests, []);
  const body = { model: 'claude-opus-5', max_tokens: 10, messages: [{ role: 'user', content: 'logged' }] };
  await (await post(sim, '/v1/messages?beta=true', body, { ...AH, 'anthropic-beta': 'a-2026-01-01,b-2026-02-02' })).arrayBuffer();
  t.equal(sim.requests.length, 1);
  const r = sim.requests[0];
  t.match(r, { method: 'POST', path: '/v1/messages', query: '?beta=true', body, at: Number });
  t.equal(r?.headers['anthropic-beta'], 'a-2026-01-01,b-2026-02-02');
  t.equal(r?.headers['x-api-key'], 'sk-test');

  await (await chat(sim, { model: 'gpt-5', messages: [{ role: 'user', content: 'two' }] })).arrayBuffer();
  await (await transcribe(sim, { model: 'whisper-1', language: 'en' }, 1234, 'talk.wav')).arrayBuffer();
  await (await post(sim, '/v1/chat/completions', '{broken', { authorization: 'Bearer x' })).arrayBuffer();

  const remote = (await (await fetch(`${sim.url}/_sim/requests`)).json()) as J[];
  t.equal(remote.length, 4);
  t.same(remote.map((x) => x.path), ['/v1/messages', '/v1/chat/completions', '/v1/audio/transcriptions', '/v1/chat/completions']);
  t.match(remote[1], { body: { model: 'gpt-5' }, headers: { authorization: 'Bearer sk-test' } });
  t.match(remote[2], { body: { fields: { model: 'whisper-1', language: 'en' }, file: { filename: 'talk.wav', bytes: 1234, mimeType: 'audio/wav' } } });
  t.equal(remote[3]?.body, '{broken', 'unparseable bodies are kept as text');

  const del = await fetch(`${sim.url}/_sim/requests`, { method: 'DELETE' });
  t.equal(del.status, 204);
  t.same(sim.requests, [], 'the in-process array is cleared in place');
  t.same(await (await fetch(`${sim.url}/_sim/requests`)).json(), []);

  await (await chat(sim, { model: 'gpt-5', messages: [{ role: 'user', content: 'three' }] })).arrayBuffer();
  t.equal(sim.requests.length, 1);
  sim.reset();
  t.equal(sim.requests.length, 0);
});

t.test('a client leaving mid-stream or mid-wait does not hurt the server', async (t) => {
  const sim = await startSim(t);
  for (const model of ['demo;delay=20;deltas=50', 'fault:slow;ms=60000']) {
    const ac = new AbortController();
    const pending = fetch(`${sim.url}/v1/chat/completions`, {
      method: 'POST', signal: ac.signal, headers: { authorization: 'Bearer k' },
      body: JSON.stringify({ model, stream: true, messages: [{ role: 'user', content: 'x' }] }),
    });
    if (model.startsWith('demo')) {
      const res = await pending;
      const reader = (res.body as ReadableStream<Uint8Array>).getReader();
      await reader.read();
      ac.abort();
      await reader.read().catch(() => undefined);
    } else {
      while (sim.requests.length < 2) await new Promise((r) => setTimeout(r, 5));
      ac.abort();
      await pending.catch(() => undefined);
    }
  }
  const ok = await chat(sim, { model: 'gpt-5', messages: [{ role: 'user', content: 'still here' }] });
  t.match(await ok.json(), { choices: [{ message: { content: 'Hello from gpt-5! You said: still here' } }] });
});

t.test('close() ends streams that are still open', async (t) => {
  const sim = await startSim(t);
  const res = await chat(sim, { model: 'fault:stall-mid', stream: true, messages: [{ role: 'user', content: 'x' }] });
  t.equal(res.status, 200);
  const reading = res.text().then(
    () => 'ended',
    () => 'failed',
  );
  await sim.close();
  t.match(await reading, /ended|failed/);
});

t.test('sim-provider command prints its URL and stops on SIGTERM', async (t) => {
  const bin = fileURLToPath(new URL('../../bin/sim-provider.js', import.meta.url));
  const child = spawn(process.execPath, [bin, '--host', '127.0.0.1', '--port', '0'], { stdio: ['ignore', 'pipe', 'inherit'] });
  t.teardown(() => {
    if (child.exitCode === null) child.kill('SIGKILL');
  });
  const lines = createInterface({ input: child.stdout });
  const first = await new Promise<string>((resolve) => lines.once('line', resolve));
  const msg = JSON.parse(first) as { msg: string; url: string };
  t.equal(msg.msg, 'listening');
  t.match(msg.url, /^http:\/\/127\.0\.0\.1:\d+$/);
  const res = await fetch(`${msg.url}/v1/chat/completions`, {
    method: 'POST', headers: { authorization: 'Bearer k' }, body: JSON.stringify({ model: 'demo', messages: [{ role: 'user', content: 'cli' }] }),
  });
  t.match(await res.json(), { choices: [{ message: { content: 'Hello from demo! You said: cli' } }] });
  const code = await new Promise<number | null>((resolve) => {
    child.once('exit', (c) => resolve(c));
    child.kill('SIGTERM');
  });
  t.equal(code, 0);
});
