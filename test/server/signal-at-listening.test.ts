// A supervisor may signal the gateway the moment it reads the `listening` line: a reload (SIGHUP) or
// a stop (SIGTERM) sent then is handled, never the signal's default action that ends the process
// (lib/main.ts installs its handlers before it announces itself).
import t from 'tap';
import { baseConfig, startGateway } from '../helpers/gateway.js';
import { eventually } from '../helpers/messages.js';

const ROUNDS = 3;

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
