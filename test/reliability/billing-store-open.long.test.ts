// A store that cannot be opened stops bin/gateway at start with one line on stderr that names the
// file and says how to fix it (exit 1), never a stack trace.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { baseConfig } from '../helpers/gateway.js';
import { ROOT } from '../helpers/paths.js';

/** Start bin/gateway on a config whose store is `path`; its exit code and stderr. */
function startWith(dir: string, path: string): Promise<{ code: number | null; stderr: string }> {
  const file = join(dir, 'config.json');
  writeFileSync(file, JSON.stringify({ ...baseConfig(), store: `sqlite:${path}` }));
  const proc = spawn(process.execPath, [join(ROOT, 'dist/bin/gateway.js'), '--config', file, '--port', '0'], {
    cwd: dir,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  proc.stderr!.on('data', (b: Buffer) => (stderr += b.toString('utf8')));
  const timer = setTimeout(() => proc.kill('SIGKILL'), 20_000);
  return new Promise((resolve) =>
    proc.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stderr });
    }),
  );
}

const dir = mkdtempSync(join(tmpdir(), 'gw-store-open-'));
writeFileSync(join(dir, 'a-file'), 'not a folder');
mkdirSync(join(dir, 'a-folder'));
writeFileSync(join(dir, 'garbage.db'), 'this is not an SQLite database, just text that is long enough to have a header. '.repeat(20));

const CASES: { name: string; path: string; fix: RegExp }[] = [
  { name: 'its folder cannot be created (a file is in the way)', path: join(dir, 'a-file', 'gw.db'), fix: /folder exists/ },
  { name: 'the path is a folder', path: join(dir, 'a-folder'), fix: /set `store` in the config/ },
  { name: 'the file is not a database', path: join(dir, 'garbage.db'), fix: /not a gateway store/ },
];

for (const c of CASES) {
  t.test(`a store that cannot be opened: ${c.name}`, async (t) => {
    const { code, stderr } = await startWith(dir, c.path);
    t.equal(code, 1, 'exit 1');
    const lines = stderr.trim().split('\n');
    t.equal(lines.length, 1, `one line: ${stderr}`);
    t.notMatch(stderr, /\n\s+at /, 'no stack trace');
    t.ok(lines[0]!.includes(c.path), 'names the path');
    t.match(lines[0], /^gateway: Invalid configuration: store: cannot open /);
    t.match(lines[0], c.fix, 'says how to fix it');
  });
}
