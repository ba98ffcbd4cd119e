// gateway-auto's settings are checked when bin/gateway starts: a quality profile naming a skill the
// router does not know, a target outside (0, 1] and an unknown organisation setting are refused with
// the config path.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { startGateway } from '../helpers/gateway.js';
import { ROOT } from '../helpers/paths.js';
import { labConfig, labModel } from './lab.js';

const GATEWAY = join(ROOT, 'dist/bin/gateway.js');

function check(config: unknown): { status: number | null; stdout: string; stderr: string } {
  const dir = mkdtempSync(join(tmpdir(), 'gw-router-config-'));
  const file = join(dir, 'config.json');
  writeFileSync(file, JSON.stringify(config));
  const r = spawnSync(process.execPath, [GATEWAY, '--config', file, '--port', '0'], { cwd: dir, env: { PATH: process.env.PATH }, encoding: 'utf8', timeout: 15_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

const model = labModel('lab/m', { input: 1, output: 5 }, 1);
const base = labConfig([model]).config;

const refused: [string, Record<string, unknown>, RegExp][] = [
  ['an unknown skill', { models: [{ ...model, quality: { ability: 1, skills: { poetry: 1 } } }] }, /models\[0\]\.quality\.skills\.poetry: unknown skill; the router weighs "knowledge", "reasoning", "math", "code", "writing"/],
  ['a profile without ability', { models: [{ ...model, quality: { skills: { code: 1 } } }] }, /models\[0\]\.quality\.ability: is required/],
  ['a target above 1', { router: { target: 1.5 } }, /router\.target: must be <= 1/],
  ['a target of 0', { router: { target: 0 } }, /router\.target: must be > 0/],
  ['an organisation target of 0', { orgs: [{ id: 'acme', router: { target: 0 } }] }, /orgs\[0\]\.router\.target: must be > 0/],
  ['an unknown organisation router field', { orgs: [{ id: 'acme', router: { candidates: [] } }] }, /orgs\[0\]\.router\.candidates: unknown field/],
  ['a negative sticky time', { router: { stickySeconds: -1 } }, /router\.stickySeconds: must be >= 0/],
];

for (const [name, extra, expected] of refused) {
  t.test(`refused: ${name}`, async (t) => {
    const r = check({ ...base, ...extra });
    t.not(r.status, 0, 'refused');
    t.match(r.stderr + r.stdout, expected);
  });
}

t.test('accepted: skills the router knows, targets, sticky times', async (t) => {
  const gw = await startGateway({ ...base, models: [{ ...model, quality: { ability: 1, skills: { code: 0.5, math: -0.5 } } }], router: { target: 0.9, stickySeconds: 0, cacheSeconds: 60 }, orgs: [{ id: 'acme', credits: 1, router: { target: 0.5 } }] });
  t.match(gw.logs, [{ msg: 'listening' }]);
  await gw.stop();
});
