// The endpoint table is the gateway's request lifecycle: createGateway serves exactly the entries of
// the table it is given, so a library user can serve a subset or add an endpoint of their own.
import type { AddressInfo } from 'node:net';
import t from 'tap';
import { createGateway, endpoints, type EndpointDefinition, type GatewayConfig } from 'model-gateway';

const KEY = 'sk-table-test-0001';

const config: GatewayConfig = {
  store: 'sqlite::memory:',
  logLevel: 'silent',
  providers: [{ id: 'sim', protocol: 'anthropic', simulated: true }],
  models: [{ id: 'anthropic/claude-sonnet-5', deployments: [{ provider: 'sim', model: 'claude-sonnet-5' }], pricing: { input: 3, output: 15 } }],
  orgs: [{ id: 'acme', credits: 10 }],
  keys: [{ key: KEY, org: 'acme' }],
};

const whoami: EndpointDefinition = {
  method: 'GET',
  path: '/v1/whoami',
  build: () => ({
    name: 'hello',
    dialect: () => 'anthropic',
    // the table's own auth hook: the key it learns is on the (read-only) context of the handler
    hooks: [endpoints.find((e) => e.path === '/v1/models')!.build(config as never).hooks[0]!],
    handle(ctx, _req, res) {
      res.writeHead(200, { ...ctx.responseHeaders, 'content-type': 'text/plain' }).end(`org ${ctx.key?.org}`);
    },
  }),
};

t.test('a custom table: only its endpoints are served, hooks feed the context', async (t) => {
  const gateway = await createGateway(config, { endpoints: [...endpoints.filter((e) => e.path === '/v1/models'), whoami] });
  await new Promise<void>((resolve) => gateway.server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(gateway.server.address() as AddressInfo).port}`;
  t.teardown(async () => {
    gateway.server.close();
    await gateway.close();
  });

  const models = await fetch(`${base}/v1/models`, { headers: { 'x-api-key': KEY } });
  t.equal(models.status, 200, 'an endpoint of the table is served');
  const me = await fetch(`${base}/v1/whoami`, { headers: { 'x-api-key': KEY } });
  t.equal(me.status, 200);
  t.equal(await me.text(), 'org acme', 'the auth hook returned the key; the handler reads it from the context');
  t.ok(me.headers.get('request-id')?.startsWith('req_'), 'the request id header every answer carries');
  const denied = await fetch(`${base}/v1/whoami`, { headers: { 'x-api-key': 'sk-wrong' } });
  t.equal(denied.status, 401, 'a hook that throws answers before the handler');
  const messages = await fetch(`${base}/v1/messages`, { method: 'POST', headers: { 'x-api-key': KEY, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' }, body: '{}' });
  t.equal(messages.status, 404, 'an endpoint outside the table is not served');
});
