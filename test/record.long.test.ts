// bin/gateway --record DIR through the real process and the simulated provider: after a request,
// DIR holds the upstream body exactly as sent, named by the request id the client saw, with a
// .meta.json; no file holds a secret; and bin/replay on the recording gives the client's answer.
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { baseConfig, messagesHeaders, startGateway, TEST_KEY, type RunningGateway } from './helpers/gateway.js';
import { runReplay } from './helpers/replay-bin.js';

const UPSTREAM_SECRET = 'sk-upstream-secret-never-recorded';
const dir = join(mkdtempSync(join(tmpdir(), 'gw-record-')), 'recordings'); // created by the gateway
let gw: RunningGateway;

t.before(async () => {
  const config = baseConfig();
  config.providers = (config.providers as Record<string, unknown>[]).map((p) => ({ ...p, apiKey: UPSTREAM_SECRET }));
  // the first deployment answers 529: the gateway fails over to the second
  (config.models as Record<string, unknown>[]).push({
    id: 'anthropic/flaky', deployments: [{ provider: 'sim-anthropic', model: 'fault:529' }, { provider: 'sim-anthropic', model: 'claude-sonnet-5' }],
    pricing: { input: 3, output: 15 }, input: ['text'], maxOutputTokens: 32000,
  });
  gw = await startGateway(config, { args: ['--record', dir] });
});
t.teardown(() => gw.stop());

/** The gateway's id for the request: in `x-gateway-request-id` when `request-id` shows the upstream's. */
const gatewayId = (h: Headers): string => h.get('x-gateway-request-id') ?? h.get('request-id') ?? h.get('x-request-id')!;

async function waitFor(file: string): Promise<void> {
  for (let i = 0; i < 200 && !existsSync(file); i++) await new Promise((r) => setTimeout(r, 10));
}

/** The keep-alive comments the server writes while the provider is silent depend on timing: not compared. */
const withoutKeepAlive = (text: string): string => text.replaceAll(': keep-alive\n\n', '').replace(/^event: ping\ndata: \{"type": "ping"\}\n\n/gm, '');

async function recorded(t: Test, id: string, ext: string, attempt = 1): Promise<string> {
  const base = join(dir, `${id}.${attempt}`);
  await waitFor(`${base}.meta.json`);
  t.ok(existsSync(`${base}.${ext}`), `${id}.${attempt}.${ext} is written`);
  return `${base}.${ext}`;
}

const cases = [
  { name: 'Messages, streamed', path: '/v1/messages', headers: messagesHeaders(), body: { model: 'sonnet', max_tokens: 50, stream: true, messages: [{ role: 'user', content: 'hello there' }] }, ext: 'sse', from: 'anthropic' },
  { name: 'Messages, JSON', path: '/v1/messages', headers: messagesHeaders(), body: { model: 'claude-opus-5', max_tokens: 50, messages: [{ role: 'user', content: 'hi' }] }, ext: 'json', from: 'anthropic' },
  { name: 'Chat, streamed', path: '/v1/chat/completions', headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' }, body: { model: 'gpt-5', stream: true, messages: [{ role: 'user', content: 'hi' }] }, ext: 'sse', from: 'openai-chat' },
  { name: 'Responses from an Anthropic model, JSON', path: '/v1/responses', headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' }, body: { model: 'sonnet', input: 'hi' }, ext: 'json', from: 'anthropic' },
];

for (const c of cases) {
  t.test(c.name, async (t) => {
    const res = await fetch(gw.url + c.path, { method: 'POST', headers: c.headers, body: JSON.stringify(c.body) });
    const answer = await res.text();
    t.equal(res.status, 200, answer);
    const id = gatewayId(res.headers);
    const file = await recorded(t, id, c.ext);
    const meta = JSON.parse(readFileSync(join(dir, `${id}.1.meta.json`), 'utf8')) as Record<string, Record<string, unknown>>;
    t.match(meta, { gatewayRequestId: id, attempt: 1, upstream: { dialect: c.from, status: 200 }, client: { stream: c.body.stream === true }, complete: true });
    t.equal(meta.bytes as unknown as number, readFileSync(file).length, 'the meta counts the bytes');

    // the bytes as the provider sent them: what the simulated provider answers is what replay decodes
    const replayed = await runReplay([file]);
    t.equal(replayed.code, 0, replayed.stderr);
    if (c.body.stream === true) t.equal(withoutKeepAlive(replayed.stdout), withoutKeepAlive(answer), "bin/replay gives the client's stream");
    else t.same(JSON.parse(replayed.stdout), JSON.parse(answer), "bin/replay gives the client's JSON answer");
  });
}

t.test('each attempt is recorded: the 529 of the first deployment, then the answer of the second', async (t) => {
  const res = await fetch(gw.url + '/v1/messages', { method: 'POST', headers: messagesHeaders(), body: JSON.stringify({ model: 'anthropic/flaky', max_tokens: 20, stream: true, messages: [{ role: 'user', content: 'hi' }] }) });
  const answer = await res.text();
  t.equal(res.status, 200);
  const id = gatewayId(res.headers);
  const second = await recorded(t, id, 'sse', 2);
  const first = JSON.parse(readFileSync(join(dir, `${id}.1.meta.json`), 'utf8')) as { upstream: { status: number; model: string } };
  t.match(first.upstream, { status: 529, model: 'fault:529' }, 'attempt 1: the 529');
  t.match(readFileSync(join(dir, `${id}.1.json`), 'utf8'), /overloaded_error/, 'attempt 1: the error body as sent');
  const error = await runReplay([join(dir, `${id}.1.json`)]);
  t.equal(error.code, 1, 'replaying the 529 attempt: exit 1');
  t.match(error.stderr, /^replay: this attempt answered HTTP 529: an error body/, 'says it is an error answer');
  t.equal(error.stdout, readFileSync(join(dir, `${id}.1.json`), 'utf8'), 'and prints it as recorded');
  const replayed = await runReplay([second]);
  t.equal(withoutKeepAlive(replayed.stdout), withoutKeepAlive(answer), "attempt 2 replays to the client's stream");
});

t.test('a folder that cannot be made stops the start with a clear message', async (t) => {
  const file = join(dir, `${readdirSync(dir)[0]}`); // a file, not a folder
  await t.rejects(startGateway(baseConfig(), { args: ['--record', join(file, 'sub')] }), /gateway: Invalid configuration: recordDir: cannot create the folder .*sub: ENOTDIR/);
});

t.test('no file holds a key', async (t) => {
  for (const name of readdirSync(dir)) {
    const text = readFileSync(join(dir, name), 'utf8');
    t.notOk(text.includes(TEST_KEY), `${name}: no client key`);
    t.notOk(text.includes(UPSTREAM_SECRET), `${name}: no provider key`);
    t.notMatch(text, /x-api-key|authorization|Bearer/i, `${name}: no credential header`);
  }
});
