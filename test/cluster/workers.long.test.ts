// bin/gateway --workers 2 on one SQLite file, without Redis: one listener, two processes; a key's
// rate limit is exact across them (the primary keeps the buckets), a session pinned by one worker
// continues on the other, SIGHUP reloads every worker, a worker that dies is replaced, SIGTERM
// stops them all. (test/replicas/ runs the same on PostgreSQL.)
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { baseConfig, startGateway, TEST_KEY, type RunningGateway } from '../helpers/gateway.js';
import { rawRequest } from '../helpers/http.js';
import { clientsConfig } from '../clients/config.js';

const LIMITED = 'sk-test-limited-0001';
const RPM = 7;

/** a Messages request on a connection of its own (so the listener hands it to either worker) */
function postFresh(gw: RunningGateway, body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; body: string }> {
  return rawRequest(`${gw.url}/v1/messages`, {
    headers: { 'content-type': 'application/json', 'anthropic-version': '2023-06-01', 'x-api-key': TEST_KEY, connection: 'close', ...headers },
    body: JSON.stringify(body),
  });
}

const hello = { model: 'opus', max_tokens: 64, messages: [{ role: 'user', content: 'Hello' }] };

function workerPids(gw: RunningGateway): number[] {
  return gw.logs.filter((l) => l.msg === 'worker listening').map((l) => l.pid as number);
}

async function waitFor(check: () => boolean, ms: number): Promise<boolean> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (check()) return true;
    await new Promise((r) => setTimeout(r, 25));
  }
  return check();
}

let gw: RunningGateway;
/** the pinned session's second turn (set by the session test) */
let secondTurn: { body: unknown; headers: Record<string, string> } | null = null;
t.before(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'gw-workers-'));
  const config = clientsConfig({ store: `sqlite:${join(dir, 'gw.db')}`, keys: [...(baseConfig().keys as object[]), { id: 'limited', key: LIMITED, org: 'acme', rateLimit: { rpm: RPM } }] });
  gw = await startGateway(config, { args: ['--workers', '2'] });
});
t.teardown(() => gw?.stop());

t.test('two workers serve one listener', async (t) => {
  // each worker's own line may reach stdout after the primary's
  t.ok(await waitFor(() => workerPids(gw).length === 2, 5000));
  t.equal(new Set(workerPids(gw)).size, 2);
  t.equal(gw.logs.filter((l) => l.msg === 'listening').length, 1, 'one listening line, from the primary');
  t.match(gw.logs.find((l) => l.msg === 'listening'), { workers: 2 });
});

t.test(`a key's rate limit is exact across workers: rpm ${RPM} admits ${RPM} of ${3 * RPM}`, async (t) => {
  const replies = await Promise.all(Array.from({ length: 3 * RPM }, () => postFresh(gw, hello, { 'x-api-key': LIMITED })));
  const statuses = replies.map((r) => r.status);
  t.equal(statuses.filter((s) => s === 200).length, RPM, statuses.join(' '));
  t.equal(statuses.filter((s) => s === 429).length, 2 * RPM);
});

t.test('a session pinned on one worker continues on the other', async (t) => {
  const tools = [{ name: 'get_weather', description: 'weather', input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } }];
  const first = { model: 'gateway-auto', max_tokens: 4096, thinking: { type: 'adaptive' }, tools, messages: [{ role: 'user', content: 'weather in Paris?' }] };
  const session = { 'x-claude-code-session-id': 'sess-workers-1' };
  const r1 = await postFresh(gw, first, session);
  t.equal(r1.status, 200, r1.body);
  const m1 = JSON.parse(r1.body) as { content: Record<string, unknown>[] };
  const toolUse = m1.content.find((c) => c.type === 'tool_use')!;
  const second = { ...first, messages: [...first.messages, { role: 'assistant', content: m1.content }, { role: 'user', content: [{ type: 'tool_result', tool_use_id: toolUse.id, content: 'sunny' }] }] };
  secondTurn = { body: second, headers: session };
  // the pin reaches the other worker through the primary: give it a moment, then ask both
  await new Promise((r) => setTimeout(r, 100));
  const again = await Promise.all(Array.from({ length: 6 }, () => postFresh(gw, second, session)));
  t.same(
    again.map((r) => r.status),
    [200, 200, 200, 200, 200, 200],
    again.map((r) => r.body.slice(0, 120)).join('\n'),
  );
});

t.test('SIGHUP reloads every worker', async (t) => {
  const before = gw.logs.filter((l) => l.msg === 'config reloaded').length;
  gw.proc.kill('SIGHUP');
  t.ok(await waitFor(() => gw.logs.filter((l) => l.msg === 'config reloaded').length === before + 2, 10_000), 'two reload lines');
});

t.test('a worker that dies is replaced, and the gateway keeps serving', async (t) => {
  const [victim] = workerPids(gw);
  process.kill(victim!, 'SIGKILL');
  t.ok(await waitFor(() => gw.logs.some((l) => l.msg === 'worker exited: starting another'), 5000));
  t.ok(await waitFor(() => workerPids(gw).length === 3, 10_000), 'a third worker listens');
  const replies = await Promise.all(Array.from({ length: 4 }, () => postFresh(gw, hello)));
  t.same(
    replies.map((r) => r.status),
    [200, 200, 200, 200],
  );
  // the new worker got the sessions pinned before it started from the primary
  const again = await Promise.all(Array.from({ length: 6 }, () => postFresh(gw, secondTurn!.body, secondTurn!.headers)));
  t.same(
    again.map((r) => r.status),
    [200, 200, 200, 200, 200, 200],
    'the pinned session continues on the new worker too',
  );
});

t.test('SIGTERM stops every worker, then the primary, exit code 0', async (t) => {
  const pids = workerPids(gw);
  t.equal(await gw.stop('SIGTERM'), 0);
  for (const pid of pids) t.throws(() => process.kill(pid, 0), 'worker gone');
});
