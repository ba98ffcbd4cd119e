// The rules behind the connection limits, without a server: the body budget's reserve for small
// bodies, and which refused bodies close their connection.
import t from 'tap';
import { BodyBudget, SMALL_BODY } from '../../lib/body-budget.js';
import { closesAfterRefusal } from '../../lib/linger.js';

const MiB = 1024 * 1024;

t.test('large bodies fill only capacity - an eighth; small ones may use the rest; leases come back once', async (t) => {
  const budget = new BodyBudget(8 * MiB);
  const a = budget.lease();
  t.ok(a.take(4 * MiB));
  const b = budget.lease();
  t.ok(b.take(3 * MiB), '7 MiB held by large bodies');
  t.notOk(budget.lease().take(2 * MiB), 'a third large body does not fit');
  t.equal(budget.held, 7 * MiB, 'a refused take takes nothing');
  const small = budget.lease();
  t.ok(small.take(SMALL_BODY), 'a small body fits in the reserve');
  t.notOk(budget.lease().take(SMALL_BODY), 'the reserve is used up');
  const grows = budget.lease();
  a.release();
  t.ok(grows.take(SMALL_BODY));
  t.notOk(grows.take(3.5 * MiB), 'a chunked body that grows large may not use the reserve');
  a.release();
  b.release();
  small.release();
  grows.release();
  t.equal(budget.held, 0);
});

t.test('a refused body closes its connection when cut off, chunked, undeclared or declared large', async (t) => {
  const drain = MiB;
  t.notOk(closesAfterRefusal('GW_ERR_AUTH_INVALID', { 'content-length': '1000' }, drain), 'a small declared body is drained, the connection kept');
  t.ok(closesAfterRefusal('GW_ERR_AUTH_INVALID', { 'content-length': String(2 * MiB) }, drain));
  t.ok(closesAfterRefusal('GW_ERR_AUTH_INVALID', { 'transfer-encoding': 'chunked' }, drain));
  t.ok(closesAfterRefusal('GW_ERR_AUTH_INVALID', {}, drain));
  for (const code of ['GW_ERR_BODY_TOO_LARGE', 'GW_ERR_FILE_TOO_LARGE', 'GW_ERR_REQUEST_TIMEOUT', 'GW_ERR_UNAVAILABLE']) {
    t.ok(closesAfterRefusal(code, { 'content-length': '10' }, drain), `${code} always closes`);
  }
});
