// Keys in the config reconcile with the store at every start. One database file goes through every
// case in order, restarting the real bin/gateway each time, as an operator's ledger would: the
// built-in default's demo key, then real providers from the environment (bin/sim-provider standing
// in for them), then config files that rotate, remove and rename keys.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { baseConfig } from '../helpers/gateway.js';
import { gatewayCli, runGateway, runSimProvider, usageLines, type Served } from '../helpers/processes.js';

const dir = mkdtempSync(join(tmpdir(), 'gw-keys-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));
// the built-in default keeps its ledger at ./data/gateway.db; the config files below name the same file
const db = join(dir, 'data', 'gateway.db');
const configFile = join(dir, 'gateway.keys.json');
const DEMO = 'sk-gw-demo-0000';

async function status(gw: Served, key: string): Promise<number> {
  const res = await fetch(`${gw.url}/v1/models`, { headers: { 'x-api-key': key } });
  await res.arrayBuffer();
  return res.status;
}

async function ask(gw: Served, key: string, model: string): Promise<number> {
  const res = await fetch(`${gw.url}/v1/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'anthropic-version': '2023-06-01', 'x-api-key': key },
    body: JSON.stringify({ model, max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] }),
  });
  await res.arrayBuffer();
  return res.status;
}

async function printedKey(gw: Served): Promise<string> {
  return /(sk-gw-\S+)/.exec(await gw.stderrLine(/sk-gw-/))?.[1] ?? '';
}

function usage(keyId: string): Record<string, unknown>[] {
  const r = gatewayCli(dir, ['credits', 'usage', '--key', keyId, '--config', configFile]);
  if (r.status !== 0) throw new Error(`credits usage failed: ${r.stderr}`);
  return usageLines(r.stdout);
}

function writeConfig(keys: Record<string, unknown>[]): void {
  writeFileSync(configFile, JSON.stringify(baseConfig({ store: `sqlite:${db}`, keys })));
}

async function withConfig(keys: Record<string, unknown>[], body: (gw: Served) => Promise<void>): Promise<void> {
  writeConfig(keys);
  const gw = await runGateway(dir, {}, ['--config', configFile]);
  try {
    await body(gw);
  } finally {
    await gw.stop();
  }
}

t.test('built-in default: demo start, real-provider start, demo start again', async (t) => {
  const demo = await runGateway(dir);
  t.equal(await printedKey(demo), DEMO);
  t.equal(await ask(demo, DEMO, 'claude-sonnet-5-5'), 200, 'the demo key is served by the simulated provider');
  await demo.stop();

  const sim = await runSimProvider();
  t.teardown(() => sim.stop());
  const env = { ANTHROPIC_API_KEY: 'sk-ant-upstream', GATEWAY_ANTHROPIC_BASE_URL: sim.url, OPENAI_API_KEY: 'sk-oai-upstream', GATEWAY_OPENAI_BASE_URL: `${sim.url}/v1` };
  const real = await runGateway(dir, env);
  const local = await printedKey(real);
  t.match(local, /^sk-gw-/, 'a random key is printed');
  t.not(local, DEMO);
  t.equal(await status(real, local), 200, 'the printed key works');
  t.equal(await status(real, DEMO), 401, 'the demo key is refused while real providers serve');
  await fetch(`${sim.url}/_sim/requests`, { method: 'DELETE' });
  t.equal(await ask(real, local, 'claude-sonnet-5-5'), 200, 'served by the real-provider path');
  const seen = (await (await fetch(`${sim.url}/_sim/requests`)).json()) as { path: string; headers: Record<string, string> }[];
  t.equal(seen.length, 1, 'the request went to GATEWAY_ANTHROPIC_BASE_URL');
  t.equal(seen[0]?.path, '/v1/messages');
  t.equal(seen[0]?.headers['x-api-key'], 'sk-ant-upstream', 'with the upstream key from the environment');
  const chat = await fetch(`${real.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${local}` },
    body: JSON.stringify({ model: 'gpt-5', messages: [{ role: 'user', content: 'hi' }] }),
  });
  await chat.arrayBuffer();
  t.equal(chat.status, 200, 'OpenAI models go to GATEWAY_OPENAI_BASE_URL');
  const openai = ((await (await fetch(`${sim.url}/_sim/requests`)).json()) as { path: string; headers: Record<string, string> }[])[1];
  t.match(openai, { path: '/v1/chat/completions', headers: { authorization: 'Bearer sk-oai-upstream' } });
  await real.stop();

  const again = await runGateway(dir);
  t.equal(await status(again, DEMO), 200, 'the demo key works again');
  t.equal(await status(again, local), 401, 'the previous random key is refused');
  await again.stop();

  writeConfig([]);
  t.equal(usage('demo').length, 1, 'the demo key keeps its simulated request only');
  t.match(usage('local'), [{ keyId: 'local', provider: 'openai' }, { keyId: 'local', provider: 'anthropic', status: 200 }], 'real spend is under another id');
});

t.test('config file: rotating a secret under the same id', async (t) => {
  await withConfig([{ id: 'alice', key: 'sk-alice-one', org: 'acme' }], async (gw) => {
    t.equal(await status(gw, DEMO), 401, 'the built-in demo key is gone: removed from the config');
    t.equal(await ask(gw, 'sk-alice-one', 'claude-opus-5'), 200);
  });
  await withConfig([{ id: 'alice', key: 'sk-alice-two', org: 'acme' }], async (gw) => {
    t.equal(await status(gw, 'sk-alice-one'), 401, 'the old secret stops working');
    t.equal(await ask(gw, 'sk-alice-two', 'claude-opus-5'), 200, 'the new one works');
  });
  t.equal(usage('alice').length, 2, 'usage history stays with the id across the rotation');
});

t.test('config file: a key removed from the config is refused', async (t) => {
  await withConfig(
    [
      { id: 'alice', key: 'sk-alice-two', org: 'acme' },
      { id: 'bob', key: 'sk-bob-one', org: 'acme' },
    ],
    async (gw) => {
      t.equal(await status(gw, 'sk-bob-one'), 200);
    },
  );
  await withConfig([{ id: 'alice', key: 'sk-alice-two', org: 'acme' }], async (gw) => {
    t.equal(await status(gw, 'sk-bob-one'), 401);
    t.equal(await status(gw, 'sk-alice-two'), 200);
  });
});

t.test('config file: the same secret under a new id, two ids swapping secrets, and derived ids', async (t) => {
  await withConfig(
    [
      { id: 'carol', key: 'sk-alice-two', org: 'acme' },
      { key: 'sk-anonymous', org: 'acme' },
    ],
    async (gw) => {
      t.equal(await ask(gw, 'sk-alice-two', 'claude-opus-5'), 200, 'the secret works under its new id');
      t.equal(await ask(gw, 'sk-anonymous', 'claude-opus-5'), 200);
    },
  );
  t.equal(usage('carol').length, 1, 'the request is billed to the new id');
  t.equal(usage('alice').length, 2, 'the old id keeps its history');
  const derived = usageLines(gatewayCli(dir, ['credits', 'usage', '--config', configFile]).stdout).find((r) => r.keyId !== 'carol')?.keyId as string;
  t.match(derived, /^key_[0-9a-f]{12}$/, 'a key without id gets one derived from its hash');

  await withConfig(
    [
      { id: 'carol', key: 'sk-dave-one', org: 'acme' },
      { id: 'dave', key: 'sk-alice-two', org: 'acme' },
      { key: 'sk-anonymous', org: 'acme' },
    ],
    async (gw) => {
      t.equal(await ask(gw, 'sk-alice-two', 'claude-opus-5'), 200);
      t.equal(await ask(gw, 'sk-dave-one', 'claude-opus-5'), 200);
      t.equal(await ask(gw, 'sk-anonymous', 'claude-opus-5'), 200);
    },
  );
  t.equal(usage('dave').length, 1);
  t.equal(usage('carol').length, 2, 'carol rotated to a secret dave held a moment before');
  t.equal(usage(derived).length, 2, 'the derived id is the same at the next start');
});
