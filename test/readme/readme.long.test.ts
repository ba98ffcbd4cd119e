// The README's own commands, run as written, in the order a newcomer meets them: `npm start` and the
// requests to try, every SDK snippet (each must print its answer), the real-provider path
// (`ANTHROPIC_API_KEY=… npm start`, here against bin/sim-provider on loopback) on the same database,
// back to the demo, and a key rotated in the config file with the README's SIGHUP command.
// `npm start` serves the README's port 8787: this is the only test that uses a fixed port.
import { spawn } from 'node:child_process';
import { mkdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import t from 'tap';
import { ROOT } from '../helpers/paths.js';
import { rawRequest } from '../helpers/http.js';
import { cleanEnv, commandLines, readmeBlock, runShell, scratchProject, startShell } from './readme-blocks.js';

const URL = 'http://127.0.0.1:8787';
t.setTimeout(300_000);

// The README's port is fixed: two checkouts running their suites at once on one machine take turns
// (an atomic mkdir is the lock; one older than 5 minutes was left by a killed run).
const LOCK = join(tmpdir(), 'model-gateway-readme-8787.lock');
t.before(async () => {
  for (let i = 0; ; i++) {
    try {
      mkdirSync(LOCK);
      return;
    } catch {
      const age = Date.now() - (statSync(LOCK, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
      if (age > 300_000 || i > 600) rmSync(LOCK, { recursive: true, force: true });
      await new Promise((r) => setTimeout(r, 500));
    }
  }
});
t.teardown(() => rmSync(LOCK, { recursive: true, force: true }));

/** stderr once a line matching `re` was written (the banner follows the listening line) */
async function stderrWith(lines: string[], re: RegExp): Promise<string> {
  for (let i = 0; i < 100 && !re.test(lines.join('\n')); i++) await new Promise((r) => setTimeout(r, 50));
  return lines.join('\n');
}
const project = scratchProject();
const npmStart = commandLines(readmeBlock('install')).find((l) => l.startsWith('npm start'))!;

async function messages(key: string, model = 'claude-sonnet-5-5'): Promise<number> {
  const res = await rawRequest(`${URL}/v1/messages`, {
    headers: { 'x-api-key': key, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
    body: JSON.stringify({ model, max_tokens: 64, messages: [{ role: 'user', content: 'Hello' }] }),
  });
  return res.status;
}

t.test('quick start: npm start, the requests to try, and every SDK snippet', async (t) => {
  t.equal(npmStart, 'npm start');
  const gw = await startShell(npmStart, project, cleanEnv());
  t.teardown(() => gw.stop());
  t.equal(gw.listening.url, URL);
  const banner = await stderrWith(gw.stderr, /curl /);
  t.match(banner, URL, 'npm start prints the URL');
  t.match(banner, 'sk-gw-demo-0000', 'and the demo key');
  t.match(banner, /curl .*\/v1\/messages/, 'and a request to try');

  const tried = await runShell(commandLines(readmeBlock('try')).join('\n'), project, cleanEnv());
  t.equal(tried.code, 0, tried.stderr);
  t.match(tried.stdout, /HTTP\/1\.1 204/, 'hello answers 204');
  t.match(tried.stdout, /"anthropic\/claude-sonnet-5\.5"/, 'the model list');
  t.match(tried.stdout, /"type":"message"/, 'a message');

  const snippets = join(ROOT, 'dist', 'readme-snippets');
  mkdirSync(snippets, { recursive: true });
  for (const name of ['sdk-anthropic', 'sdk-openai', 'sdk-ai']) {
    const block = readmeBlock(name);
    t.equal(block.lang, 'js');
    const file = join(snippets, `${name}.mjs`);
    writeFileSync(file, block.code);
    const run = await runShell(`node ${JSON.stringify(file)}`, ROOT, cleanEnv());
    t.equal(run.code, 0, `${name} runs: ${run.stderr}`);
    const printed = run.stdout.split('\n').filter((l) => l.trim() !== '');
    t.ok(printed.length >= 1 && printed.every((l) => l !== 'undefined' && l !== 'null'), `${name} prints its answer: ${run.stdout}`);
  }
});

t.test('the real-provider path on the same database, then back to the demo', async (t) => {
  const sim = spawn(process.execPath, [join(ROOT, 'dist/bin/sim-provider.js'), '--port', '0'], { stdio: ['ignore', 'pipe', 'inherit'] });
  t.teardown(() => sim.kill());
  const simUrl = await new Promise<string>((resolve) => {
    createInterface({ input: sim.stdout! }).on('line', (l) => {
      const rec = JSON.parse(l) as { msg: string; url: string };
      if (rec.msg === 'listening') resolve(rec.url);
    });
  });
  const line = commandLines(readmeBlock('real-provider'))[0]!;
  t.match(line, /^ANTHROPIC_API_KEY=\S+ npm start$/);
  const real = await startShell(line, project, cleanEnv({ GATEWAY_ANTHROPIC_BASE_URL: simUrl }));
  t.teardown(() => real.stop());
  const printed = /sk-gw-[A-Za-z0-9_-]{16,}/.exec(await stderrWith(real.stderr, /sk-gw-/));
  t.ok(printed, 'a random gateway key is printed');
  t.equal(await messages(printed![0]), 200, 'the printed key works');
  t.equal(await messages('sk-gw-demo-0000'), 401, 'the demo key is off while real providers are on');
  const seen = (await (await fetch(`${simUrl}/_sim/requests`)).json()) as { path: string; headers: Record<string, string> }[];
  t.ok(seen.some((r) => r.path === '/v1/messages' && r.headers['x-api-key'] === 'sk-ant-your-key'), 'the request went to the provider with its key');
  await real.stop();

  const demo = await startShell(npmStart, project, cleanEnv());
  t.teardown(() => demo.stop());
  t.equal(await messages('sk-gw-demo-0000'), 200, 'npm start again: no crash, the demo key works');
  t.equal(await messages(printed![0]), 401, 'the real-provider key is off again');
});

t.test('a key rotated in the config file takes effect with the README reload command', async (t) => {
  const config = (secret: string): string =>
    JSON.stringify({
      providers: [{ id: 'anthropic', protocol: 'anthropic', simulated: true }],
      models: [
        {
          id: 'anthropic/claude-sonnet-5.5',
          aliases: ['claude-sonnet-5-5'],
          deployments: [{ provider: 'anthropic', model: 'claude-sonnet-5-5' }],
          pricing: { input: 3, output: 15 },
          input: ['text'],
          maxOutputTokens: 64000,
        },
      ],
      orgs: [{ id: 'team', credits: 5 }],
      keys: [{ id: 'team-key', key: secret, org: 'team' }],
    });
  const dir = scratchProject();
  writeFileSync(join(dir, 'gateway.config.json'), config('sk-gw-first-secret-0001'));
  const gw = await startShell(npmStart, dir, cleanEnv());
  t.teardown(() => gw.stop());
  t.equal(await messages('sk-gw-first-secret-0001'), 200);
  writeFileSync(join(dir, 'gateway.config.json'), config('sk-gw-second-secret-0002'));
  const reload = commandLines(readmeBlock('reload'))[0]!;
  t.match(reload, /^kill -HUP <pid>$/);
  t.type(gw.listening.pid, 'number', 'the listening line carries the pid');
  const done = await runShell(reload.replace('<pid>', String(gw.listening.pid)), dir, cleanEnv());
  t.equal(done.code, 0);
  for (let i = 0; i < 100 && !gw.logs.some((l) => l.msg === 'config reloaded'); i++) await new Promise((r) => setTimeout(r, 50));
  t.ok(gw.logs.some((l) => l.msg === 'config reloaded'), 'reloaded');
  t.equal(await messages('sk-gw-first-secret-0001'), 401, 'the old secret stops working');
  t.equal(await messages('sk-gw-second-secret-0002'), 200, 'the new one works');
  const usage = await runShell('node dist/bin/gateway.js credits usage --key team-key', dir, cleanEnv());
  t.equal(usage.code, 0, usage.stderr);
  t.equal(usage.stdout.trim().split('\n').length, 2, 'both requests stay in the key id history');
});

t.test('the Admin API example: a key created by curl works at once; the dashboard is served', async (t) => {
  const env = cleanEnv({ GATEWAY_ADMIN_KEY: 'readme-admin-key-0123456789' });
  const gw = await startShell(npmStart, project, env);
  t.teardown(() => gw.stop());
  t.match(await stderrWith(gw.stderr, /dashboard/i), `${URL}/dashboard`, 'the banner names the dashboard');
  const run = await runShell(commandLines(readmeBlock('admin-api')).join('\n'), project, env);
  t.equal(run.code, 0, run.stderr);
  const created = /"key":"(sk-gw-[A-Za-z0-9_-]+)"/.exec(run.stdout);
  t.ok(created, `the 201 answer carries the secret: ${run.stdout}`);
  t.equal(await messages(created![1]!), 200, 'the new key answers at once');
  t.match(run.stdout, /"group_by":"model"/, 'the usage sums answer');
  const page = await rawRequest(`${URL}/dashboard/`, { method: 'GET' });
  t.equal(page.status, 200, 'the dashboard page is served');
});
