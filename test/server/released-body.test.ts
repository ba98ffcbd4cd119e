// A large request body goes upstream through the provider pool as a one-shot iterable, so that
// undici does not keep it while the answer streams (lib/providers/released-body.ts): what the
// provider receives must not change for that. Checked against a loopback upstream: the same bytes,
// with their `content-length` (not chunked), small and large, Buffer or string.
import { createServer, type IncomingHttpHeaders } from 'node:http';
import t from 'tap';
import { closeNow, listen } from '../../lib/listen.js';
import { ProviderPool } from '../../lib/providers/pool.js';
import { RELEASED_BODY_BYTES } from '../../lib/providers/released-body.js';
import { testConfig } from '../helpers/context.js';

t.test('small and large bodies reach the provider whole, with their length', async (t) => {
  const got: { headers: IncomingHttpHeaders; body: Buffer }[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      got.push({ headers: req.headers, body: Buffer.concat(chunks) });
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  const url = await listen(server, 0, '127.0.0.1');
  t.teardown(() => closeNow(server));
  const pool = new ProviderPool(testConfig({ providers: [{ id: 'up', protocol: 'anthropic', baseUrl: url, apiKey: 'sk-up' }], models: [{ id: 'm', deployments: [{ provider: 'up', model: 'm' }], pricing: { input: 1, output: 1 } }] }), null);
  t.teardown(() => pool.close());
  const handle = pool.get('up');
  const headers = Object.freeze({ 'content-type': 'application/json', 'x-api-key': 'sk-up' });
  const json = (n: number): string => JSON.stringify({ model: 'm', messages: [{ role: 'user', content: `é${'x'.repeat(n)}` }] });
  const bodies: (string | Buffer)[] = [json(10), Buffer.from(json(RELEASED_BODY_BYTES - 200)), Buffer.from(json(200_000)), json(200_000), json(RELEASED_BODY_BYTES / 2)];
  for (const body of bodies) {
    const res = await pool.open(handle, '/v1/messages', { headers, body, signal: new AbortController().signal });
    for await (const _ of res.body);
  }
  t.same(
    got.map((g) => [g.body.equals(Buffer.from(bodies[got.indexOf(g)]!)), g.headers['content-length'], g.headers['transfer-encoding'] ?? null]),
    bodies.map((b) => [true, String(Buffer.byteLength(b)), null]),
    'each body arrived as sent, with its content-length and no chunked encoding',
  );
  t.same(headers, { 'content-type': 'application/json', 'x-api-key': 'sk-up' }, 'the shared headers are left as they were');
});
