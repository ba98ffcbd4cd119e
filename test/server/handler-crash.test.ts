// A request whose handling throws outside every error path the endpoints have (here: the endpoint's
// dialect function, called while the request context is built) is caught by the server's request
// handler itself: logged as 'request handler crashed' and answered with a bare 500, and the server
// goes on serving. (The handler catches it in its own body: no `.catch` promise per request.)
import type { AddressInfo } from 'node:net';
import t from 'tap';
import { createGateway, endpoints, type EndpointDefinition, type GatewayConfig } from 'model-gateway';

const config: GatewayConfig = {
  store: 'sqlite::memory:',
  logLevel: 'silent',
  providers: [{ id: 'sim', protocol: 'anthropic', simulated: true }],
  models: [{ id: 'anthropic/claude-sonnet-5', deployments: [{ provider: 'sim', model: 'claude-sonnet-5' }], pricing: { input: 3, output: 15 } }],
};

const broken: EndpointDefinition = {
  method: 'GET',
  path: '/v1/broken',
  build: () => ({
    name: 'hello',
    dialect: () => {
      throw new Error('a dialect function that throws');
    },
    hooks: [],
    handle(_ctx, _req, res) {
      res.writeHead(200).end('never');
    },
  }),
};

t.test('a crash while handling a request is answered 500, and the server goes on', async (t) => {
  const gateway = await createGateway(config, { endpoints: [...endpoints.filter((e) => e.path === '/v1/models'), broken] });
  await new Promise<void>((resolve) => gateway.server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(gateway.server.address() as AddressInfo).port}`;
  t.teardown(async () => {
    gateway.server.close();
    await gateway.close();
  });
  const crashed = await fetch(`${base}/v1/broken`);
  t.equal(crashed.status, 500);
  t.equal(await crashed.text(), '');
  const again = await fetch(`${base}/v1/models`);
  t.not(again.status, 500, 'the next request is served');
});
