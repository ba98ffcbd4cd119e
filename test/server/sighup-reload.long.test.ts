// SIGHUP reloads the configuration file of a running bin/gateway: new keys work and removed keys are
// refused, new prices are what the next request is charged (read back with `bin/gateway credits
// usage`), a stream in flight across the reload finishes whole on the old config and is settled at
// its price; a config that fails validation, or changes what needs a restart, is refused with a
// logged error and the old config keeps serving.
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import t, { type Test } from 'tap';
import { startGateway, type RunningGateway } from '../helpers/gateway.js';
import { credits, eventually, parseSse } from '../helpers/messages.js';
import { BILL_PRICING, billModel, expectedCost, fileStoreConfig, headersFor, localRequestId, TEST_KEY } from '../helpers/billing.js';
import { ROOT } from '../helpers/paths.js';

const OLD_KEY = 'sk-test-old-0000';
const NEW_KEY = 'sk-test-new-0000';
const NEW_PRICING = { input: 2, output: 30, cacheRead: 0.2, cacheWrite: 2.5 };

function keys(...extra: [string, string][]): Record<string, unknown>[] {
  return [{ id: 'full', key: TEST_KEY, org: 'acme', project: 'web', environment: 'production' }, ...extra.map(([id, key]) => ({ id, key, org: 'acme' }))];
}

/** Rewrite the config file, send SIGHUP and wait for the reload's log line (reloaded or refused). */
async function reload(t: Test, gw: RunningGateway, config: Record<string, unknown> | string): Promise<Record<string, unknown>> {
  const before = gw.logs.length;
  writeFileSync(gw.configFile, typeof config === 'string' ? config : JSON.stringify(config));
  gw.proc.kill('SIGHUP');
  const line = await eventually(async () => gw.logs.slice(before).find((l) => typeof l.msg === 'string' && l.msg.startsWith('config reload')), 5000);
  t.ok(line, 'the reload wrote its log line');
  t.equal(gw.proc.exitCode, null, 'the gateway still runs');
  return line ?? {};
}

async function ask(gw: RunningGateway, key: string, model = 'bill/fast'): Promise<{ status: number; reqId: string | null; body: string }> {
  const res = await fetch(`${gw.url}/v1/messages`, { method: 'POST', headers: headersFor(key), body: JSON.stringify({ model, max_tokens: 64, messages: [{ role: 'user', content: 'hello' }] }) });
  return { status: res.status, reqId: localRequestId(res.headers), body: await res.text() };
}

interface CliUsage {
  requestId: string;
  costUnits: number;
  status: number;
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
}

/** The usage line `bin/gateway credits usage` prints for a request (waits for its settle). */
async function usageOf(file: string, reqId: string | null): Promise<CliUsage | undefined> {
  return eventually(async () => (await credits(file, 'usage', '--limit', '100')).find((l) => l.requestId === reqId) as CliUsage | undefined, 5000, 100);
}

const costAt = (pricing: typeof BILL_PRICING | typeof NEW_PRICING, u: CliUsage): number =>
  expectedCost(pricing, { input: u.inputTokens, output: u.outputTokens, cacheRead: u.cacheReadTokens, cacheWrite: u.cacheWriteTokens });

t.test('SIGHUP: keys, prices and an in-flight stream', async (t) => {
  const models = [billModel('bill/fast', 'claude-bill;deltas=3'), billModel('bill/slow', 'claude-bill;delay=100;deltas=20')];
  const store = fileStoreConfig(models, { keys: keys(['old', OLD_KEY]) });
  const gw = await startGateway(store.config);
  t.teardown(() => gw.stop('SIGKILL'));

  t.equal((await ask(gw, OLD_KEY)).status, 200, 'the old key works before the reload');
  t.equal((await ask(gw, NEW_KEY)).status, 401, 'the new key is unknown before the reload');
  const before = await ask(gw, TEST_KEY);
  t.equal(before.status, 200);

  // a stream of about two seconds, opened before the reload
  const res = await fetch(`${gw.url}/v1/messages`, {
    method: 'POST',
    headers: headersFor(TEST_KEY),
    body: JSON.stringify({ model: 'bill/slow', max_tokens: 256, stream: true, messages: [{ role: 'user', content: 'stream across a reload' }] }),
  });
  t.equal(res.status, 200, 'the stream started');
  const streamId = localRequestId(res.headers);
  const streamText = res.text();

  const repriced = (store.config.models as Record<string, unknown>[]).map((m) => (String(m.id).startsWith('bill/') ? { ...m, pricing: NEW_PRICING } : m));
  const changed = { ...store.config, models: repriced, keys: keys(['new', NEW_KEY]) };
  const line = await reload(t, gw, changed);
  t.match(line, { level: 30, msg: 'config reloaded', models: repriced.length, keys: 2, providers: 2 }, `one info line with the counts: ${String(line.err)}`);
  t.ok((line.inflight as number) >= 1, 'the stream was in flight during the reload');

  const fresh = await ask(gw, NEW_KEY);
  t.equal(fresh.status, 200, `a key added to the config works: ${fresh.body.slice(0, 200)}`);
  const removed = await ask(gw, OLD_KEY);
  t.equal(removed.status, 401, 'a key removed from the config is refused');
  t.match(JSON.parse(removed.body), { error: { type: 'authentication_error' } });
  const after = await ask(gw, TEST_KEY);
  t.equal(after.status, 200, 'a key kept in the config still works');

  const frames = parseSse(await streamText);
  t.equal(frames.at(-1)?.event, 'message_stop', 'the stream in flight across the reload completed whole');
  t.notOk(
    frames.some((f) => f.event === 'error'),
    'with no error event',
  );

  const u0 = await usageOf(store.file, before.reqId);
  const u1 = await usageOf(store.file, after.reqId);
  const u2 = await usageOf(store.file, fresh.reqId);
  const us = await usageOf(store.file, streamId);
  if (!u0 || !u1 || !u2 || !us) throw new Error('a usage line is missing');
  t.equal(u0.costUnits, costAt(BILL_PRICING, u0), 'before the reload: the old price');
  t.equal(u1.costUnits, costAt(NEW_PRICING, u1), 'after the reload: the new price is what the next request is charged');
  t.equal(u2.costUnits, costAt(NEW_PRICING, u2), 'the new key is charged the new price');
  t.not(u1.costUnits, u0.costUnits, 'the charge changed with the price');
  t.match(us, { status: 200 }, 'the stream was settled as a success');
  t.equal(us.costUnits, costAt(BILL_PRICING, us), 'the stream started before the reload is charged the price it started with');
  const [org] = await credits(store.file, 'show', '--org', 'acme');
  t.equal(org!.reservedUnits, 0, 'no credit hold left open');
});

t.test('SIGHUP with an invalid config: refused, the field named, the old config kept', async (t) => {
  const models = [billModel('bill/fast', 'claude-bill;deltas=3')];
  const store = fileStoreConfig(models, { keys: keys(['old', OLD_KEY]) });
  const gw = await startGateway(store.config);
  t.teardown(() => gw.stop('SIGKILL'));

  const invalid = { ...store.config, keys: [...keys(['new', NEW_KEY]), { id: 'stray', key: 'sk-test-stray-0000', org: 'nobody' }] };
  const line = await reload(t, gw, invalid);
  t.match(line, { level: 50, msg: 'config reload refused' }, 'logged at level error');
  t.match(line.err, /keys\[2\]\.org: unknown organization "nobody"/, 'naming the field, as start-up would');
  t.match(line.err, /old configuration stays in use/);
  t.equal((await ask(gw, OLD_KEY)).status, 200, 'the old key still works');
  t.equal((await ask(gw, NEW_KEY)).status, 401, 'the refused config added nothing');

  const broken = await reload(t, gw, { ...store.config, models: (store.config.models as Record<string, unknown>[]).map((m, i) => (i === 0 ? { ...m, pricing: { input: 'free' } } : m)) });
  t.match(broken, { level: 50, msg: 'config reload refused', err: /models\[0\]\.pricing\.input/ }, 'a schema error names its field');
  const unreadable = await reload(t, gw, '{ "models": [');
  t.match(unreadable, { level: 50, msg: 'config reload refused', err: /is not valid JSON/ }, 'a half-written file is refused');
  t.equal((await ask(gw, OLD_KEY)).status, 200, 'still serving the old config');

  // a valid config after refused ones is applied
  t.match(await reload(t, gw, { ...store.config, keys: keys(['new', NEW_KEY]) }), { msg: 'config reloaded' });
  t.equal((await ask(gw, NEW_KEY)).status, 200, 'the next valid config is applied');
  t.equal((await ask(gw, OLD_KEY)).status, 401);
});

t.test('SIGHUP: models, anthropicVersions and rate limits follow the new config', async (t) => {
  const models = [billModel('bill/fast', 'claude-bill;deltas=3')];
  const store = fileStoreConfig(models, { keys: keys(['old', OLD_KEY]) });
  const gw = await startGateway(store.config);
  t.teardown(() => gw.stop('SIGKILL'));
  const newVersion = { 'anthropic-version': '2027-01-01' };
  const send = async (model: string, extra: Record<string, string> = {}): Promise<number> =>
    (await fetch(`${gw.url}/v1/messages`, { method: 'POST', headers: headersFor(OLD_KEY, extra), body: JSON.stringify({ model, max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] }) })).status;

  t.not(await send('bill/added'), 200, 'a model not in the config is not served');
  t.equal(await send('bill/fast', newVersion), 400, 'an anthropic-version not in the config is refused');
  t.equal(await send('bill/fast'), 200);
  t.equal(await send('bill/fast'), 200, 'no rate limit yet');

  const next = {
    ...store.config,
    models: [...(store.config.models as unknown[]), billModel('bill/added', 'claude-bill;deltas=2')],
    anthropicVersions: ['2026-10-21', '2027-01-01'],
    keys: [...keys(), { id: 'old', key: OLD_KEY, org: 'acme', rateLimit: { rpm: 2 } }],
  };
  t.match(await reload(t, gw, next), { msg: 'config reloaded' });
  t.equal(await send('bill/added'), 200, 'a model added to the config is served');
  t.equal(await send('bill/fast', newVersion), 200, 'an anthropic-version added to the config is accepted');
  t.equal(await send('bill/fast'), 429, 'a rate limit added to the key applies');
});

/** bin/gateway with the port in the config file (no --port on the command line). */
async function startWithPortInFile(t: Test, config: Record<string, unknown>): Promise<RunningGateway> {
  const dir = mkdtempSync(join(tmpdir(), 'gw-reload-'));
  const file = join(dir, 'config.json');
  writeFileSync(file, JSON.stringify(config));
  return spawnGateway(t, ['--config', file], dir, {}, file);
}

async function spawnGateway(t: Test, args: string[], cwd: string, env: NodeJS.ProcessEnv = {}, file = ''): Promise<RunningGateway> {
  const proc = spawn(process.execPath, [join(ROOT, 'dist/bin/gateway.js'), ...args], { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const stderr: string[] = [];
  createInterface({ input: proc.stderr }).on('line', (l) => stderr.push(l));
  const logs: Record<string, unknown>[] = [];
  createInterface({ input: proc.stdout }).on('line', (l) => {
    try {
      logs.push(JSON.parse(l) as Record<string, unknown>);
    } catch {
      // not a log line
    }
  });
  const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
  const listening = await eventually(async () => logs.find((l) => l.msg === 'listening'), 10_000);
  if (!listening) throw new Error('the gateway did not start');
  const gw = {
    url: listening.url as string,
    simUrl: '',
    proc,
    configFile: file,
    logs,
    stderr,
    stop: async (signal: NodeJS.Signals = 'SIGTERM') => {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill(signal);
      return exited;
    },
    simRequests: async () => [],
    clearSim: async () => {},
  };
  t.teardown(() => gw.stop('SIGKILL'));
  return gw;
}

t.test('SIGHUP changing the port or the store is refused: a restart is needed', async (t) => {
  const models = [billModel('bill/fast', 'claude-bill;deltas=3')];
  const store = fileStoreConfig(models, { listen: { host: '127.0.0.1', port: 0 }, keys: keys(['old', OLD_KEY]) });
  const gw = await startWithPortInFile(t, store.config);

  const port = await reload(t, gw, { ...store.config, listen: { host: '127.0.0.1', port: 1 }, keys: keys(['new', NEW_KEY]) });
  t.match(port, { level: 50, msg: 'config reload refused', restartNeeded: ['listen.port'] });
  t.match(port.err, /listen\.port \(0 → 1\) cannot change without a restart/, 'saying a restart is needed');
  const storeChange = await reload(t, gw, { ...store.config, store: 'sqlite::memory:', keys: keys(['new', NEW_KEY]) });
  t.match(storeChange, { level: 50, msg: 'config reload refused', restartNeeded: ['store'] });
  t.equal((await ask(gw, NEW_KEY)).status, 401, 'nothing of the refused config was applied');
  t.equal((await ask(gw, OLD_KEY)).status, 200, 'the old config still serves');
  t.equal(await gw.stop('SIGTERM'), 0, 'and shuts down cleanly');
});

t.test('SIGHUP on the built-in default with a real provider key: the demo key printed at start keeps working', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'gw-reload-default-'));
  // a real provider switches the demo key to a random one per start; nothing is sent upstream here
  const gw = await spawnGateway(t, ['--port', '0'], dir, { ANTHROPIC_API_KEY: 'sk-ant-not-used' });
  const demo = await eventually(async () => gw.stderr.join('\n').match(/Gateway key[^:]*: (\S+)/)?.[1]);
  if (!demo) throw new Error(`no demo key printed: ${gw.stderr.join('\n')}`);
  const models = async (): Promise<number> => (await fetch(`${gw.url}/v1/models`, { headers: { 'x-api-key': demo } })).status;
  t.equal(await models(), 200, 'the demo key works');
  gw.proc.kill('SIGHUP');
  t.ok(await eventually(async () => gw.logs.find((l) => l.msg === 'config reloaded'), 5000), 'reloaded');
  t.equal(await models(), 200, 'the demo key still works after the reload');
});
