// The config and admin body schemas are compiled at build time (scripts/compile-schemas.mjs), not
// at each start: a build whose compiled validators no longer match the schemas beside them (a
// schema edited without `npm run build`) is refused, never run with the old checks. Checked on a
// copy of dist/ inside the checkout (so node_modules resolves), one schema file changed.
import { spawnSync } from 'node:child_process';
import { appendFileSync, cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import t, { type Test } from 'tap';
import { DIST } from '../helpers/paths.js';

function copyOfDist(t: Test): string {
  const dir = mkdtempSync(join(DIST, '.stale-schemas-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  for (const sub of ['bin', 'lib', 'stages', 'dashboard']) {
    cpSync(join(DIST, sub), join(dir, sub), { recursive: true, filter: (src) => !src.endsWith('.map') && !src.endsWith('.d.ts') });
  }
  return dir;
}

const help = (dir: string): { status: number | null; stderr: string } => {
  const r = spawnSync(process.execPath, [join(dir, 'bin/gateway.js'), '--help'], { env: { PATH: process.env.PATH }, encoding: 'utf8', timeout: 30_000 });
  return { status: r.status, stderr: r.stderr };
};

t.test('a config validator built from another config.schema.json stops the gateway at start', async (t) => {
  const dir = copyOfDist(t);
  t.equal(help(dir).status, 0, 'the copy as built starts');
  appendFileSync(join(dir, 'lib/config.schema.json'), '\n');
  const r = help(dir);
  t.not(r.status, 0, 'the copy with the schema changed does not');
  t.match(r.stderr, /config-validator\.cjs was built from another config\.schema\.json: run npm run build/);
});

t.test('admin body validators built from other schemas are refused', async (t) => {
  const dir = copyOfDist(t);
  const file = join(dir, 'lib/admin/body-validators.cjs');
  writeFileSync(file, readFileSync(file, 'utf8').replace(/schemasSha256 = "[0-9a-f]+"/, 'schemasSha256 = "0000"'));
  const { checkBody } = (await import(pathToFileURL(join(dir, 'lib/admin/schemas.js')).href)) as typeof import('../../lib/admin/schemas.js');
  t.throws(() => checkBody('credits', { usd: 1, reason: 'top-up' }), /body-validators\.cjs was built from other admin schemas: run npm run build/);
});
