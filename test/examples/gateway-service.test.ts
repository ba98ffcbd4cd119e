// examples/gateway.service, the systemd unit the README shows: it runs the built gateway directly,
// reloads with SIGHUP, stops with SIGTERM and waits longer than the gateway's shutdown can take,
// and keeps secrets out of the unit.
import { execFile, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import t from 'tap';
import { ROOT } from '../helpers/paths.js';

const file = join(ROOT, 'examples/gateway.service');
const text = readFileSync(file, 'utf8');

/** The unit's settings (comments and section headers dropped); a repeated setting keeps every value. */
function settings(unit: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const line of unit.split('\n')) {
    const m = /^([A-Za-z]+)=(.*)$/.exec(line.trim());
    if (m) out.set(m[1]!, [...(out.get(m[1]!) ?? []), m[2]!]);
  }
  return out;
}

t.test('the unit runs node on dist/bin/gateway.js and is signalled as the gateway expects', async (t) => {
  const s = settings(text);
  const exec = s.get('ExecStart')?.[0] ?? '';
  t.match(exec, /^\/\S*node dist\/bin\/gateway\.js\b/, 'node runs the compiled gateway directly (no npm, no shell in between)');
  t.ok(existsSync(join(ROOT, 'dist/bin/gateway.js')), 'the script it names is what the build produces (relative to WorkingDirectory)');
  t.ok(s.get('WorkingDirectory'), 'WorkingDirectory set (the default store path is relative to it)');
  t.same(s.get('ExecReload'), ['/bin/kill -HUP $MAINPID'], 'reload = SIGHUP');
  t.same(s.get('KillSignal'), ['SIGTERM'], 'stop = SIGTERM (graceful)');
  t.same(s.get('Restart'), ['on-failure']);
  const schema = JSON.parse(readFileSync(join(ROOT, 'lib/config.schema.json'), 'utf8')) as { properties: { shutdownGraceMs: { default: number } } };
  const graceS = schema.properties.shutdownGraceMs.default / 1000;
  // after the grace period: 1 s for aborted streams to end, then up to 2 s for their settle
  t.ok(Number(s.get('TimeoutStopSec')?.[0]) > graceS + 3, `TimeoutStopSec above the default grace period (${graceS} s) and the aborted requests' settle`);
  t.ok(s.get('EnvironmentFile'), 'secrets come from an EnvironmentFile');
  t.notOk(s.has('Environment'), 'no Environment= lines (no secrets in the unit)');
  t.notMatch(text, /sk-[A-Za-z0-9-]{8,}/, 'no key in the unit');
});

const noSystemd = spawnSync('systemd-analyze', ['--version']).error !== undefined;

t.test('systemd-analyze accepts the unit', { skip: noSystemd && 'systemd-analyze is not installed' }, async (t) => {
  const verify = await promisify(execFile)('systemd-analyze', ['verify', file]).then(
    (r) => r.stderr,
    (err: { stderr?: string }) => err.stderr ?? String(err),
  );
  // it may warn about what the test machine lacks (the user, the paths); a syntax error is an error
  t.notMatch(verify, /Unknown (key|section)|Invalid|Failed to parse|Missing/i, `no unknown settings or parse errors: ${verify}`);
});
