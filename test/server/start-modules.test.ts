// What a start loads: a gateway without Redis limits, simulated providers or --workers never loads
// the Redis client, ajv's schema compiler (the config and admin schemas are compiled at build
// time), the simulators or the cluster modules. Each is megabytes of start-up garbage that V8 keeps
// as committed heap for the life of the process (issue #21's memory target). Checked on the real
// bin/gateway with a module hook recording every module it loads.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';
import t from 'tap';
import { baseConfig, startGateway } from '../helpers/gateway.js';
import { GATEWAY } from '../helpers/processes.js';

/**
 * A module hook in `dir` that appends every URL the process loads to the file named by its
 * LOADED_FILE: the path of its `--import` script.
 */
function loadHook(dir: string): string {
  writeFileSync(join(dir, 'hooks.mjs'), `import { appendFileSync } from 'node:fs';\nexport async function load(url, context, next) { appendFileSync(process.env.LOADED_FILE, url + '\\n'); return next(url, context); }\n`);
  writeFileSync(join(dir, 'register.mjs'), `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(join(dir, 'hooks.mjs')).href)});\n`);
  return join(dir, 'register.mjs');
}

t.test('a gateway with real providers and no limits starts without the Redis client, ajv, the simulators or the cluster', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'gw-start-modules-'));
  const loaded = join(dir, 'loaded.txt');
  const hook = loadHook(dir);
  // nothing listens on port 9: no request is made, the providers only have to be real ones
  const providers = [
    { id: 'sim-anthropic', protocol: 'anthropic', baseUrl: 'http://127.0.0.1:9', apiKey: 'test-upstream-key' },
    { id: 'sim-openai', protocol: 'openai', baseUrl: 'http://127.0.0.1:9/v1', apiKey: 'test-upstream-key' },
  ];
  writeFileSync(join(dir, 'config.json'), JSON.stringify({ ...baseConfig(), providers }));
  const proc = spawn(process.execPath, ['--import', hook, GATEWAY, '--config', join(dir, 'config.json'), '--host', '127.0.0.1', '--port', '0'], { cwd: dir, env: { PATH: process.env.PATH, LOADED_FILE: loaded }, stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise((resolve) => proc.once('exit', resolve));
  const listening = await new Promise<boolean>((resolve) => {
    createInterface({ input: proc.stdout! }).on('line', (l) => {
      if (l.includes('"listening"')) resolve(true);
    });
    proc.once('exit', () => resolve(false));
  });
  t.ok(listening, 'the gateway starts');
  proc.kill('SIGTERM');
  await exited;
  const urls = readFileSync(loaded, 'utf8').split('\n');
  t.ok(urls.some((u) => u.includes('/lib/server.js')), 'the hook saw the gateway load');
  const forbidden: [string, RegExp][] = [
    ['the Redis client', /node_modules\/ioredis\//],
    ['ajv (its compiler)', /node_modules\/ajv\/dist\/ajv\.js/],
    ['the simulated provider', /\/dist\/lib\/sim\//],
    ['the cluster modules', /\/dist\/lib\/cluster\//],
  ];
  for (const [what, re] of forbidden) t.same(urls.filter((u) => re.test(u)), [], `${what}: not loaded`);
});

/** What bin/gateway run with `args` in `cwd` prints (either stream: a subcommand's --help goes to stderr), its exit code and the module URLs it loaded (loadHook). */
async function loadedBy(args: string[], cwd: string): Promise<{ code: number | null; urls: string[]; printed: string }> {
  const loaded = join(mkdtempSync(join(cwd, 'run-')), 'loaded.txt');
  writeFileSync(loaded, '');
  const proc = spawn(process.execPath, ['--import', loadHook(cwd), GATEWAY, ...args], { cwd, env: { PATH: process.env.PATH, LOADED_FILE: loaded }, stdio: ['ignore', 'pipe', 'pipe'] });
  let printed = '';
  proc.stdout!.on('data', (c: Buffer) => (printed += c.toString()));
  proc.stderr!.on('data', (c: Buffer) => (printed += c.toString()));
  const code = await new Promise<number | null>((resolve) => proc.once('exit', resolve));
  return { code, urls: readFileSync(loaded, 'utf8').split('\n').filter(Boolean), printed };
}

t.test('--help and the CLIs answer without loading the server, its services or the HTTP client', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'gw-cli-modules-'));
  const config = { ...baseConfig(), store: `sqlite:${join(dir, 'gw.db')}` };
  writeFileSync(join(dir, 'config.json'), JSON.stringify(config));
  // the CLIs read an existing store (they never create one): a gateway's start makes it
  const gw = await startGateway(config);
  await gw.stop();
  const runs: [string[], RegExp][] = [
    [['--help'], /^usage:/],
    [['keys', 'list', '--config', join(dir, 'config.json')], /full/],
    [['credits', 'show', '--config', join(dir, 'config.json')], /acme/],
    [['router', '--help'], /router choose/],
  ];
  const forbidden: [string, RegExp][] = [
    ['the server', /\/dist\/lib\/server\.js$/],
    ['serving start-up', /\/dist\/lib\/main\.js$/],
    ['the upstream HTTP client (undici)', /node_modules\/undici\//],
  ];
  for (const [args, answer] of runs) {
    const { code, urls, printed } = await loadedBy(args, dir);
    t.equal(code, 0, `gateway ${args.slice(0, 2).join(' ')}: exit 0`);
    t.match(printed, answer, `gateway ${args.slice(0, 2).join(' ')}: its answer`);
    t.ok(urls.some((u) => u.includes('/dist/bin/gateway.js')), `gateway ${args.slice(0, 2).join(' ')}: the hook saw it load`);
    for (const [what, re] of forbidden) t.same(urls.filter((u) => re.test(u)), [], `gateway ${args.slice(0, 2).join(' ')}: ${what} not loaded`);
  }
});
