// `gateway credits usage --after CURSOR` and `--follow`, run as an operator runs them against the
// store a gateway is serving: the recent requests read forward with the admin API's cursor, each row
// once, oldest first, none skipped and none repeated while requests keep coming (what `tail -f` of a
// request log gives); --follow ends cleanly on Ctrl-C (SIGINT).
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import t from 'tap';
import { askMessages, serveAndList, startAdminGateway } from '../helpers/admin.js';
import { sleep } from '../helpers/billing.js';
import { TEST_KEY } from '../helpers/gateway.js';
import { GATEWAY, gatewayCli, usageLines } from '../helpers/processes.js';

t.test('credits usage --after: one forward page, then where to go on from', async (t) => {
  const a = await startAdminGateway();
  t.teardown(() => a.gw.stop());
  const cli = (...args: string[]): ReturnType<typeof gatewayCli> => gatewayCli(a.store.dir, ['credits', 'usage', ...args, '--config', a.store.file]);
  const ids = await serveAndList(a, TEST_KEY, 3, 3);

  const first = cli('--after', '0', '--limit', '2');
  t.equal(first.status, 0, first.stderr);
  const lines = usageLines(first.stdout);
  t.same(lines.slice(0, -1).map((l) => l.requestId), ids.slice(0, 2), 'oldest first, --limit rows');
  t.match(lines.at(-1), { nextAfter: String, hasMore: true }, 'the last line says where to go on from');
  const rest = usageLines(cli('--after', String(lines.at(-1)!.nextAfter)).stdout);
  t.same(rest.map((l) => l.requestId ?? 'end'), [ids[2], 'end'], 'the next page: the rest, none repeated');
  t.equal(rest.at(-1)!.hasMore, false);
  t.same(usageLines(cli('--after', ids[0]!).stdout).slice(0, -1).map((l) => l.requestId), ids.slice(1), 'after a request id');

  const bad = cli('--after', 'not-a-place');
  t.equal(bad.status, 2);
  t.match(bad.stderr, /after/);
  t.equal(cli('--interval', '1').status, 2, '--interval without --follow');
  t.equal(cli('--follow=yes').status, 2, '--follow takes no value');
});

t.test('credits usage --follow: the newest rows, then each new one once, in order, until Ctrl-C', async (t) => {
  const a = await startAdminGateway();
  t.teardown(() => a.gw.stop());
  const before = await serveAndList(a, TEST_KEY, 3, 3);

  const proc = spawn(process.execPath, [GATEWAY, 'credits', 'usage', '--follow', '--limit', '2', '--interval', '0.1', '--config', a.store.file], {
    cwd: a.store.dir,
    env: { PATH: process.env.PATH },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  t.teardown(() => void proc.kill('SIGKILL'));
  const seen: string[] = [];
  createInterface({ input: proc.stdout! }).on('line', (l) => void seen.push(String(JSON.parse(l).requestId)));
  let stderr = '';
  proc.stderr!.on('data', (d) => (stderr += String(d)));
  const exited = new Promise<number | null>((resolve) => proc.on('exit', (code) => resolve(code)));
  const lines = async (n: number): Promise<void> => {
    for (const deadline = Date.now() + 8000; seen.length < n && Date.now() < deadline; ) await sleep(20);
  };

  await lines(2);
  t.same(seen, before.slice(1), 'first the newest --limit rows, oldest first');
  // requests while it follows, some at once: each row printed once, in the order the store wrote them
  await Promise.all([askMessages(a.gw.url, TEST_KEY), askMessages(a.gw.url, TEST_KEY)]);
  const all = await serveAndList(a, TEST_KEY, 3, 8);
  await lines(7);
  await sleep(300); // a few more polls: nothing repeated
  t.same(seen, all.slice(1), 'then every new row once, none skipped, none repeated');

  proc.kill('SIGINT');
  t.equal(await exited, 0, `Ctrl-C ends it cleanly: ${stderr}`);
});
