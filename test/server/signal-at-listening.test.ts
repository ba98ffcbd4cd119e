// A supervisor may signal the gateway the moment it reads the `listening` line: a reload (SIGHUP) or
// a stop (SIGTERM) sent then is handled, never the signal's default action that ends the process
// (lib/main.ts installs its handlers before it announces itself). A reload asked for while it still
// starts is held and runs once it serves (lib/held-reloads.ts, from bin/gateway's first steps).
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import t from 'tap';
import { baseConfig, launchGateway, startGateway } from '../helpers/gateway.js';
import { eventually } from '../helpers/messages.js';

const ROUNDS = 2;

t.test('SIGHUP at the listening line reloads the config; the gateway keeps serving', async (t) => {
  for (let i = 0; i < ROUNDS; i++) {
    const gw = await startGateway(baseConfig());
    t.teardown(() => gw.stop('SIGKILL'));
    gw.proc.kill('SIGHUP'); // at once: startGateway resolves as the line is read
    const line = await eventually(async () => gw.logs.find((l) => typeof l.msg === 'string' && l.msg.startsWith('config reload')), 5000);
    t.equal(gw.proc.signalCode, null, `round ${i}: not ended by the signal`);
    t.match(line, { msg: 'config reloaded' }, `round ${i}: the reload's line`);
    const res = await fetch(`${gw.url}/healthz`);
    t.equal(res.status, 200, `round ${i}: still serving`);
    await res.arrayBuffer();
    t.equal(await gw.stop(), 0, `round ${i}: stops cleanly afterwards`);
  }
});

t.test('SIGTERM at the listening line is a graceful stop', async (t) => {
  for (let i = 0; i < ROUNDS; i++) {
    const gw = await startGateway(baseConfig());
    t.teardown(() => gw.stop('SIGKILL'));
    const code = await gw.stop('SIGTERM');
    t.equal(gw.proc.signalCode, null, `round ${i}: not ended by the signal`);
    t.equal(code, 0, `round ${i}: exit code 0`);
    t.ok(gw.logs.some((l) => l.msg === 'stopped'), `round ${i}: the 'stopped' line`);
  }
});

/** whether process `pid` has a handler for SIGHUP (Linux: bit 0 of SigCgt in /proc/PID/status) */
function catchesSighup(pid: number): boolean {
  try {
    const line = /^SigCgt:\s*([0-9a-f]+)$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return line !== null && (BigInt(`0x${line[1]}`) & 1n) === 1n;
  } catch {
    return false;
  }
}

t.test('SIGHUP while the gateway starts: held, and the reload runs once it serves', { skip: process.platform === 'linux' ? false : 'reads /proc' }, async (t) => {
  const gw = launchGateway(baseConfig());
  const { proc, logs } = gw;
  t.teardown(() => proc.kill('SIGKILL'));
  // the first moment the process handles SIGHUP at all
  while (!catchesSighup(proc.pid!) && proc.exitCode === null) await sleep(2);
  const sentAt = Date.now();
  proc.kill('SIGHUP');
  const listening = await gw.listening;
  const reload = await eventually(async () => logs.find((l) => typeof l.msg === 'string' && l.msg.startsWith('config reload')), 5000);
  t.equal(proc.signalCode, null, 'not ended by the signal');
  t.ok(Date.parse(listening.time as string) > sentAt, 'the signal came before the gateway was listening');
  t.match(reload, { msg: 'config reloaded' }, 'the reload ran');
  t.ok(logs.indexOf(reload!) > logs.indexOf(listening), 'once it served');
  t.equal(logs.filter((l) => typeof l.msg === 'string' && l.msg.startsWith('config reload')).length, 1, 'once');
  const res = await fetch(`${listening.url as string}/healthz`);
  t.equal(res.status, 200, 'serving');
  await res.arrayBuffer();
  proc.kill('SIGTERM');
  const code = await new Promise<number | null>((resolve) => (proc.exitCode !== null ? resolve(proc.exitCode) : proc.once('exit', resolve)));
  t.equal(code, 0, 'then stops cleanly');
});
