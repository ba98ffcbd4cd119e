// The dialect layering rule (`npm run lint:deps`, .dependency-cruiser.cjs) fires: a small project
// laid out like this one, with the repository's own rule file, is cruised once without forbidden
// imports (it passes) and once with one of each kind (each is reported under its rule). The real tree is checked
// by `npm test` itself, before tap.
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import t, { type Test } from 'tap';
import { ROOT } from './helpers/paths.js';

/** the devDependency's command (what `npm run lint:deps` runs as `depcruise`) */
const CRUISER = join(ROOT, 'node_modules', 'dependency-cruiser', 'bin', 'dependency-cruise.mjs');

/** Write `files` (path → source) into a fresh project with the repository's rule file; cruise it. */
function cruise(t: Test, files: Record<string, string>): { status: number | null; out: string } {
  const dir = mkdtempSync(join(tmpdir(), 'lint-deps-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  copyFileSync(join(ROOT, '.dependency-cruiser.cjs'), join(dir, '.dependency-cruiser.cjs'));
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', strict: true } }));
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: 'module' }));
  for (const [path, source] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), source);
  }
  const run = spawnSync(process.execPath, [CRUISER, '--config', '.dependency-cruiser.cjs', '--output-type', 'err', 'lib', 'stages'], { cwd: dir, encoding: 'utf8' });
  return { status: run.status, out: run.stdout + run.stderr };
}

const CLEAN: Record<string, string> = {
  'lib/chunks.ts': 'export type DialectName = string;\n',
  'lib/json/values.ts': 'export const isObject = (v: unknown): boolean => typeof v === "object";\n',
  'lib/dialects/dialect.ts': 'export interface Dialect { name: string }\n',
  'lib/dialects/alpha/index.ts': "import { isObject } from '../../json/values.js';\nimport type { Dialect } from '../dialect.js';\nexport const alpha: Dialect = { name: String(isObject({})) };\n",
  'lib/dialects/beta/index.ts': "import type { Dialect } from '../dialect.js';\nexport const beta: Dialect = { name: 'beta' };\n",
  'lib/dialects/index.ts': "import { alpha } from './alpha/index.js';\nimport { beta } from './beta/index.js';\nexport const dialects = { alpha, beta };\n",
  'lib/translate/alpha-to-beta.ts': "import { alpha } from '../dialects/alpha/index.js';\nimport { beta } from '../dialects/beta/index.js';\nexport const pair = [alpha, beta];\n",
  'lib/translate/reasoning-details.ts': 'export const FORMAT = "x";\n',
  'stages/encode.ts': "import { dialects } from '../lib/dialects/index.js';\nexport const d = dialects;\n",
  // the one shared convention a dialect may use
  'lib/dialects/beta/reasoning.ts': "import { FORMAT } from '../../translate/reasoning-details.js';\nexport const f = FORMAT;\n",
};

t.test('the layout as it should be passes', async (t) => {
  const { status, out } = cruise(t, CLEAN);
  t.equal(status, 0, out);
  t.match(out, /no dependency violations found/);
});

t.test('each forbidden import fails with its rule named', async (t) => {
  const cases: [rule: string, path: string, source: string][] = [
    ['dialect-folders-are-peers', 'lib/dialects/alpha/uses-beta.ts', "import { beta } from '../beta/index.js';\nexport const b = beta;\n"],
    ['dialect-folders-are-peers', 'lib/dialects/alpha/type-only.ts', "import type { beta } from '../beta/index.js';\nexport type B = typeof beta;\n"],
    ['generic-code-uses-the-registry', 'stages/deep.ts', "import { beta } from '../lib/dialects/beta/index.js';\nexport const b = beta;\n"],
    ['generic-code-uses-the-registry', 'lib/server.ts', "import { alpha } from './dialects/alpha/index.js';\nexport const a = alpha;\n"],
    ['generic-code-uses-the-registry', 'lib/pipeline.ts', "import type { alpha } from './dialects/alpha/index.js';\nexport type A = typeof alpha;\n"],
    ['dialects-do-not-translate', 'lib/dialects/beta/translates.ts', "import { pair } from '../../translate/alpha-to-beta.js';\nexport const p = pair;\n"],
    ['dialects-do-not-translate', 'lib/dialects/beta/registry.ts', "import { dialects } from '../index.js';\nexport const d = dialects;\n"],
    ['neutral-helpers-stay-neutral', 'lib/json/leaky.ts', "import { alpha } from '../dialects/alpha/index.js';\nexport const a = alpha;\n"],
    ['reasoning-conventions-are-leaves', 'lib/translate/reasoning-state.ts', "import { alpha } from '../dialects/alpha/index.js';\nexport const a = alpha;\n"],
    ['imports-resolve', 'lib/dialects/alpha/typo.ts', "import { nothing } from './missing.js';\nexport const n = nothing;\n"],
  ];
  const { status, out } = cruise(t, { ...CLEAN, ...Object.fromEntries(cases.map(([, path, source]) => [path, source])) });
  t.not(status, 0, 'the cruise fails');
  for (const [rule, path] of cases) t.match(out, new RegExp(`error ${rule}: ${path.replace(/\./g, '\\.')} →`), `${path}: ${rule}`);
  // lib/json/leaky.ts breaks two rules (neutral helper, and generic code outside the registry)
  t.match(out, new RegExp(`x ${cases.length + 1} dependency violations`), 'and nothing else');
});

t.test('a dialect or translator that imports a stage fails under dialects-never-import-stages', async (t) => {
  const cases: [path: string, source: string][] = [
    ['lib/dialects/alpha/cost.ts', "import { d } from '../../../stages/encode.js';\nexport const x = d;\n"],
    ['lib/translate/alpha-cost.ts', "import type { d } from '../../stages/encode.js';\nexport type X = typeof d;\n"],
  ];
  const { status, out } = cruise(t, { ...CLEAN, ...Object.fromEntries(cases) });
  t.not(status, 0, 'the cruise fails');
  for (const [path] of cases) t.match(out, new RegExp(`error dialects-never-import-stages: ${path.replace(/\./g, '\\.')} →`), path);
});
