// Names in the config that point at nothing are refused when bin/gateway starts, with the path of the
// entry and the closest id, instead of a gateway that starts and then refuses every request.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { baseConfig } from '../helpers/gateway.js';
import { ROOT } from '../helpers/paths.js';

const GATEWAY = join(ROOT, 'dist/bin/gateway.js');

function start(config: unknown): { status: number | null; stderr: string } {
  const dir = mkdtempSync(join(tmpdir(), 'gw-refs-'));
  const file = join(dir, 'config.json');
  writeFileSync(file, JSON.stringify(config));
  const r = spawnSync(process.execPath, [GATEWAY, '--config', file, '--port', '0'], { cwd: dir, env: { PATH: process.env.PATH }, encoding: 'utf8', timeout: 15_000 });
  return { status: r.status, stderr: r.stderr };
}

const key = (extra: Record<string, unknown>): Record<string, unknown> => ({ key: 'sk-refs-test-0001', org: 'acme', ...extra });
const cfg = baseConfig() as Record<string, unknown>;
const models = cfg.models as Record<string, unknown>[];

const refused: [string, Record<string, unknown>, RegExp][] = [
  ['a typo in a key allowlist', { keys: [key({ models: ['anthropic/*', 'openai/gpt5'] })] }, /keys\[0\]\.models\[1\]: "openai\/gpt5" matches no model in models\[\]; did you mean "openai\/gpt-5"\?/],
  ['an allowlist pattern matching nothing', { keys: [key({ models: ['google/*'] })] }, /keys\[0\]\.models\[0\]: pattern "google\/\*" matches no model in models\[\]/],
  ['an alias in an allowlist (allowlists match ids)', { keys: [key({ models: ['opus'] })] }, /keys\[0\]\.models\[0\]: "opus" is not a model id: it is an alias of "anthropic\/claude-opus-5".*write "anthropic\/claude-opus-5"/],
  ['an unknown name with no close id', { keys: [key({ models: ['mistral/large-3'] })] }, /keys\[0\]\.models\[0\]: "mistral\/large-3" matches no model in models\[\](?!; did)/],
  ['a router candidate typo', { router: { candidates: ['anthropic/claude-sonet-5'] } }, /router\.candidates\[0\]: "anthropic\/claude-sonet-5" matches no model in models\[\]; did you mean "anthropic\/claude-sonnet-5"\?/],
  ['a transcription-only router candidate', { router: { candidates: ['openai/gpt-4o-transcribe'] } }, /router\.candidates\[0\]: "openai\/gpt-4o-transcribe" serves transcriptions only/],
  ['a default transcription model that cannot transcribe', { transcription: { defaultModel: 'openai/gpt-5' } }, /transcription\.defaultModel: "openai\/gpt-5" cannot transcribe/],
  ['a default transcription model given by alias', { transcription: { defaultModel: 'gpt-5' } }, /transcription\.defaultModel: "gpt-5" is not a model id/],
  ['a deployment API its provider cannot carry', { models: [{ ...models[0], deployments: [{ provider: 'sim-anthropic', model: 'x', api: 'chat' }] }, ...models.slice(1)] }, /models\[0\]\.deployments\[0\]\.api: "chat" cannot be served by provider "sim-anthropic"/],
  ['two keys with one id', { keys: [key({ id: 'k' }), key({ id: 'k', key: 'sk-refs-test-0002' })] }, /keys\[1\]\.id: duplicate key id "k"/],
  ['two organizations with one id', { orgs: [{ id: 'acme' }, { id: 'acme' }], keys: [] }, /orgs\[1\]\.id: duplicate organization id "acme"/],
  ['the admin key reused as a client key', { admin: { key: 'sk-refs-test-0001' }, keys: [key({})] }, /admin\.key: is also keys\[0\]\.key/],
  ['a lease that expires before a missed renewal', { lease: { renewMs: 2000, expireMs: 5000 } }, /lease\.expireMs: 5000 is less than 3 × lease\.renewMs \(2000\).*at least 6000/],
  ['a lease renewed less often than it expires (expireMs at its default)', { lease: { renewMs: 5000 } }, /lease\.expireMs: 10000 is less than 3 × lease\.renewMs \(5000\)/],
];

for (const [name, extra, expected] of refused) {
  t.test(`refused at start: ${name}`, async (t) => {
    const r = start({ ...cfg, ...extra });
    t.equal(r.status, 1, 'exit code 1');
    t.match(r.stderr, /GW_ERR_CONFIG_INVALID|Invalid configuration/);
    t.match(r.stderr, expected);
  });
}

t.test('valid references start: exact ids, matching patterns, "*" and an empty allowlist; a lease of exactly 3 renewals', async (t) => {
  const { startGateway } = await import('../helpers/gateway.js');
  const gw = await startGateway({ ...cfg, lease: { renewMs: 1000, expireMs: 3000 }, keys: [...(cfg.keys as unknown[]), key({ models: ['anthropic/claude-opus-*', 'openai/gpt-5', '*'] }), key({ key: 'sk-refs-test-0002', models: [] })] });
  t.equal(await gw.stop(), 0);
});
