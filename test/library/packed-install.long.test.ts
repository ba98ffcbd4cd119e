// The package as a user gets it: `npm pack`, the tarball installed into an empty project outside the
// repository, and the examples run there with node. They import only 'model-gateway', which must
// resolve to the installed tarball (its `exports`, its type declarations), not to the repository.
//
// Offline: the install uses the npm cache that `npm ci` filled. That cache holds the dependencies'
// tarballs but not their registry metadata, so `npm install <tgz>` (which resolves version ranges
// from the metadata) cannot run offline; the project therefore gets a lockfile made of this repo's
// lockfile entries for the production dependencies, and `npm ci --offline` installs exactly those.
// Install scripts are skipped: better-sqlite3 would compile itself from source (no prebuilt binary
// without network), which takes minutes; the same version's addon is copied from this repo's
// node_modules instead. The package itself has no install script (checked below): a tarball install
// never builds it.
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { fixture, ROOT } from '../helpers/paths.js';

interface LockEntry {
  version?: string;
  dev?: boolean;
}

const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  name: string;
  version: string;
  license: string;
  engines: Record<string, string>;
  bin: Record<string, string>;
  dependencies: Record<string, string>;
  scripts: Record<string, string>;
};
const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, LockEntry> };

/** The environment of a user's shell: none of the npm_* variables `npm test` sets, except the cache location. */
function userEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('npm_') || k === 'npm_config_cache') env[k] = v;
  return env;
}

function run(cmd: string, args: string[], cwd: string): string {
  return execFileSync(cmd, args, { cwd, env: userEnv(), encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 60_000 });
}

const work = mkdtempSync(join(tmpdir(), 'gw-packed-'));
const app = join(work, 'app');
t.teardown(() => rmSync(work, { recursive: true, force: true }));

let tarball = '';

t.test('npm pack: dist, declarations and assets; no tests, benches or source maps; no install script', async (t) => {
  // --ignore-scripts: `prepare` would rebuild dist/ under the other tests; `npm test` has just built it
  const [packed] = JSON.parse(run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', work], ROOT)) as [{ filename: string; files: { path: string }[] }];
  tarball = packed.filename;
  const files = new Set(packed.files.map((f) => f.path));
  for (const f of ['package.json', 'README.md', 'dist/lib/index.js', 'dist/lib/index.d.ts', 'dist/stages/index.d.ts', 'dist/lib/config.schema.json', 'dist/bin/gateway.js', 'bin/gateway', 'dist/dashboard/index.html', 'dist/dashboard/app.js', 'dist/dashboard/style.css']) {
    t.ok(files.has(f), `holds ${f}`);
  }
  const stray = [...files].filter((f) => /^dist\/(test|bench)\//.test(f) || f.endsWith('.map') || f.endsWith('.tsbuildinfo') || /^(lib|stages|test|fixtures)\//.test(f));
  t.same(stray, [], 'nothing a user does not run');
  t.same(
    ['preinstall', 'install', 'postinstall'].filter((s) => pkg.scripts[s] !== undefined),
    [],
    'installing the tarball runs no build',
  );
});

t.test('installed offline from the tarball into an empty project', async (t) => {
  mkdirSync(app);
  const spec = `file:../${tarball}`;
  const packages: Record<string, unknown> = {
    '': { name: 'app', dependencies: { [pkg.name]: spec } },
    [`node_modules/${pkg.name}`]: { version: pkg.version, resolved: spec, license: pkg.license, dependencies: pkg.dependencies, engines: pkg.engines, bin: pkg.bin },
  };
  for (const [path, entry] of Object.entries(lock.packages)) if (path !== '' && !entry.dev) packages[path] = entry;
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'app', private: true, type: 'module', dependencies: { [pkg.name]: spec } }, null, 2));
  writeFileSync(join(app, 'package-lock.json'), JSON.stringify({ name: 'app', lockfileVersion: 3, requires: true, packages }, null, 2));
  run('npm', ['ci', '--offline', '--ignore-scripts', '--no-audit', '--no-fund'], app);

  const addon = join('node_modules', 'better-sqlite3', 'build', 'Release');
  mkdirSync(join(app, addon), { recursive: true });
  copyFileSync(join(ROOT, addon, 'better_sqlite3.node'), join(app, addon, 'better_sqlite3.node'));

  const resolved = run(process.execPath, ['--input-type=module', '-e', `process.stdout.write(import.meta.resolve('${pkg.name}'))`], app);
  t.equal(resolved, `file://${app}/node_modules/${pkg.name}/dist/lib/index.js`, 'the import resolves to the installed package');

  mkdirSync(join(app, 'examples'));
  for (const f of ['custom-pipeline.mjs', 'embed.mjs']) copyFileSync(join(ROOT, 'examples', f), join(app, 'examples', f));
  mkdirSync(join(app, 'fixtures', 'upstream', 'anthropic'), { recursive: true });
  copyFileSync(fixture('upstream', 'anthropic', 'tool-use-parallel.sse'), join(app, 'fixtures', 'upstream', 'anthropic', 'tool-use-parallel.sse'));
});

interface ToolCall {
  id: string;
  name: string;
  args: string;
}

/** The tool calls of the recording: tool_use blocks and their input_json_delta pieces. */
function recordedToolCalls(sse: string): ToolCall[] {
  const byIndex = new Map<number, ToolCall>();
  for (const line of sse.split('\n')) {
    if (!line.startsWith('data: ')) continue;
    const data = JSON.parse(line.slice(6)) as { type: string; index: number; content_block?: { type: string; id: string; name: string }; delta?: { type: string; partial_json?: string } };
    if (data.type === 'content_block_start' && data.content_block?.type === 'tool_use') byIndex.set(data.index, { id: data.content_block.id, name: data.content_block.name, args: '' });
    if (data.type === 'content_block_delta' && data.delta?.type === 'input_json_delta') byIndex.get(data.index)!.args += data.delta.partial_json;
  }
  return [...byIndex.values()];
}

/** The tool calls a Chat Completions client assembles from the stream's deltas. */
function chatToolCalls(sse: string): { calls: ToolCall[]; finish: string[]; done: boolean } {
  const calls: ToolCall[] = [];
  const finish: string[] = [];
  let done = false;
  for (const line of sse.split('\n')) {
    if (line === 'data: [DONE]') done = true;
    if (!line.startsWith('data: {')) continue;
    const chunk = JSON.parse(line.slice(6)) as { choices: { delta: { tool_calls?: { index: number; id?: string; function: { name?: string; arguments?: string } }[] }; finish_reason: string | null }[] };
    for (const choice of chunk.choices) {
      if (choice.finish_reason) finish.push(choice.finish_reason);
      for (const tc of choice.delta.tool_calls ?? []) {
        calls[tc.index] ??= { id: '', name: '', args: '' };
        const call = calls[tc.index]!;
        if (tc.id) call.id = tc.id;
        if (tc.function.name) call.name = tc.function.name;
        call.args += tc.function.arguments ?? '';
      }
    }
  }
  return { calls, finish, done };
}

t.test('examples/custom-pipeline.mjs prints the recording as Chat Completions SSE', async (t) => {
  const out = run(process.execPath, ['examples/custom-pipeline.mjs'], app);
  const expected = recordedToolCalls(readFileSync(fixture('upstream', 'anthropic', 'tool-use-parallel.sse'), 'utf8'));
  t.equal(expected.length, 2, 'the recording has two parallel tool calls');
  const got = chatToolCalls(out);
  t.same(got.calls, expected, 'the same tool calls: ids, names, arguments');
  t.same(got.finish, ['tool_calls']);
  t.ok(got.done, 'ends with [DONE]');
  t.match(out, /"delta":\{"content":"I"\}/, 'the text before the tool calls');
});

t.test('examples/embed.mjs answers through the gateway mounted in its own server', async (t) => {
  const out = run(process.execPath, ['examples/embed.mjs'], app);
  t.match(out, /^status 200, model sonnet, \d+ output tokens$/m);
  t.match(out, /^answer: .*Say hello in five words\.$/m, 'the simulated provider’s answer');
  t.match(out, /^own route: my own route$/m);
});

t.test('the type declarations type-check a user’s TypeScript', async (t) => {
  const source = `import { chain, createGateway, integrity, offlineContext, providerDecode, runStage, sseDecode, sseEncode, type Gateway, type Stage } from '${pkg.name}';
const replay: Stage<Buffer, string> = chain(sseDecode(), providerDecode({ dialect: () => 'anthropic' }), integrity(), sseEncode({ dialect: 'openai-chat' }));
export const frames: Promise<string[]> = runStage(replay, [Buffer.from('')], offlineContext());
// @ts-expect-error the encoder's output (text) is not the decoder's input (bytes)
chain(sseEncode(), sseDecode());
export const gateway: Promise<Gateway> = createGateway({ providers: [], models: [] }, { prefix: '/llm' });
`;
  writeFileSync(join(app, 'use.ts'), source);
  const tsconfig = {
    compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', target: 'ES2022', strict: true, noEmit: true, types: ['node'] },
    files: ['use.ts'],
  };
  writeFileSync(join(app, 'tsconfig.json'), JSON.stringify(tsconfig));
  let output = '';
  try {
    run(process.execPath, [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.json'], app);
  } catch (err) {
    output = String((err as { stdout?: string }).stdout ?? err);
  }
  // no skipLibCheck: the declarations themselves must check, with only what the install brought
  t.equal(output, '', 'tsc finds no error');
});
