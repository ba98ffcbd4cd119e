// Configuration and command line through the real bin/gateway: schema errors name the path, ${ENV}
// substitution, --port 0, the built-in default, graceful SIGTERM.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { finalizeConfig } from '../../lib/config.js';
import { baseConfig, startGateway, TEST_KEY } from '../helpers/gateway.js';
import { fixture } from '../helpers/paths.js';
import { GATEWAY, runGateway } from '../helpers/processes.js';

function runWithConfig(config: unknown, env: NodeJS.ProcessEnv = {}): { status: number | null; stderr: string } {
  const dir = mkdtempSync(join(tmpdir(), 'gw-cfg-'));
  const file = join(dir, 'config.json');
  writeFileSync(file, typeof config === 'string' ? config : JSON.stringify(config));
  const r = spawnSync(process.execPath, [GATEWAY, '--config', file, '--port', '0'], { cwd: dir, env: { PATH: process.env.PATH, ...env }, encoding: 'utf8', timeout: 15_000 });
  return { status: r.status, stderr: r.stderr };
}

t.test('a malformed config fails at start with the path of the problem', async (t) => {
  const cfg = baseConfig() as Record<string, unknown>;
  const models = structuredClone(cfg.models) as Record<string, unknown>[];
  (models[1]!.pricing as Record<string, unknown>).input = 'three';
  const cases: [unknown, RegExp][] = [
    [{ ...cfg, models }, /models\[1\]\.pricing\.input/],
    [{ ...cfg, bogus: true }, /bogus: unknown field/],
    [{ ...cfg, listen: { port: 99999 } }, /listen\.port/],
    [{ ...cfg, providers: [{ id: 'x', protocol: 'grpc', baseUrl: 'http://127.0.0.1:1' }] }, /providers\[0\]\.protocol/],
    [{ ...cfg, models: [{ ...models[0], pricing: undefined }] }, /models\[0\]\.pricing.*no price/],
    [{ ...cfg, keys: [{ key: 'sk-abcdefgh', org: 'nobody' }] }, /keys\[0\]\.org: unknown organization/],
    [{ ...cfg, router: { candidates: ['nope/nope'] } }, /router\.candidates\[0\]/],
    ['{"providers": [', /not valid JSON/],
  ];
  for (const [config, path] of cases) {
    const r = runWithConfig(config);
    t.equal(r.status, 1, `exit 1 for ${String(path)}`);
    t.match(r.stderr, path);
  }
});

t.test('${ENV} substitution, and a missing variable names the path', async (t) => {
  const cfg = baseConfig({ keys: [{ key: '${GW_TEST_KEY}', org: 'acme' }] });
  const missing = runWithConfig(cfg);
  t.equal(missing.status, 1);
  t.match(missing.stderr, /keys\[0\]\.key: environment variable GW_TEST_KEY is not set/);
  const gw = await startGateway(cfg, { env: { GW_TEST_KEY: 'sk-from-the-environment' } });
  const res = await fetch(`${gw.url}/v1/models`, { headers: { authorization: 'Bearer sk-from-the-environment' } });
  t.equal(res.status, 200);
  await gw.stop();
});

t.test('the example config in fixtures/ is valid', async (t) => {
  const raw = JSON.parse(readFileSync(fixture('config/example.json'), 'utf8')) as unknown;
  const config = finalizeConfig(raw, { ANTHROPIC_API_KEY: 'a', BACKUP_ANTHROPIC_API_KEY: 'b', OPENAI_API_KEY: 'c', GATEWAY_KEY: 'sk-gateway-key' });
  t.equal(config.models.length, 4);
  t.ok(Object.isFrozen(config) && Object.isFrozen(config.models[0]), 'frozen after load');
});

t.test('--port 0, the listening line, and graceful SIGTERM', async (t) => {
  const gw = await startGateway(baseConfig());
  t.equal(gw.logs[0]?.msg, 'listening', 'the first log line says listening');
  t.match(gw.logs[0]?.url, /^http:\/\/127\.0\.0\.1:\d+$/);
  // a slow stream is in flight when SIGTERM arrives: it finishes, then the process exits 0
  const body = JSON.stringify({ model: 'claude-opus-5', max_tokens: 16, stream: true, messages: [{ role: 'user', content: 'hi' }] });
  const pending = fetch(`${gw.url}/v1/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'anthropic-version': '2023-06-01', 'x-api-key': TEST_KEY },
    body,
  }).then((r) => r.text());
  await new Promise((r) => setTimeout(r, 50));
  const code = await gw.stop('SIGTERM');
  t.equal(code, 0, 'exit 0');
  const text = await pending;
  t.match(text, /event: message_stop/, 'the in-flight stream finished');
});

t.test('the built-in default serves without a config file and prints the demo key', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'gw-default-'));
  const gw = await runGateway(dir);
  t.ok(await gw.stderrLine(/sk-gw-demo-0000/), 'prints the demo key');
  const res = await fetch(`${gw.url}/v1/models`, { headers: { 'x-api-key': 'sk-gw-demo-0000' } });
  t.equal(res.status, 200);
  const hello = await fetch(`${gw.url}/api/hello`, { method: 'HEAD' });
  t.equal(hello.status, 204);
  await gw.stop();
});
