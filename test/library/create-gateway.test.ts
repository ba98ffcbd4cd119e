// createGateway as a library user calls it (imported from 'model-gateway'): mounted in the user's own
// node:http server under a prefix, or listening on its own server; a wrong configuration rejected as
// bin/gateway rejects it; close() ends it.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import { createGateway, GatewayError, type GatewayConfig } from 'model-gateway';

const KEY = 'sk-library-test-0001';

function config(extra: Partial<GatewayConfig> = {}): GatewayConfig {
  return {
    store: 'sqlite::memory:',
    logLevel: 'silent',
    providers: [{ id: 'sim', protocol: 'anthropic', simulated: true }],
    models: [{ id: 'anthropic/claude-sonnet-5', aliases: ['sonnet'], deployments: [{ provider: 'sim', model: 'claude-sonnet-5' }], pricing: { input: 3, output: 15 } }],
    orgs: [{ id: 'acme', credits: 10 }],
    keys: [{ key: KEY, org: 'acme' }],
    ...extra,
  };
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

function ask(url: string): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': KEY, 'anthropic-version': '2023-06-01' },
    body: JSON.stringify({ model: 'sonnet', max_tokens: 100, messages: [{ role: 'user', content: 'Hello there' }] }),
  });
}

t.test('mounted under a prefix in the user’s own server, next to the user’s routes', async (t) => {
  const gateway = await createGateway(config(), { prefix: '/llm/' });
  const server = createServer((req, res) => {
    if (gateway.handle(req, res)) return;
    res.writeHead(200, { 'content-type': 'text/plain' }).end(`mine: ${req.url}`);
  });
  const base = await listen(server);
  t.teardown(async () => {
    server.close();
    await gateway.close();
  });

  const res = await ask(`${base}/llm/v1/messages`);
  t.equal(res.status, 200);
  const message = (await res.json()) as { type: string; content: { type: string; text: string }[] };
  t.equal(message.type, 'message');
  t.match(message.content[0]!.text, /Hello there/, 'the simulated provider answered');

  const models = await fetch(`${base}/llm/v1/models`, { headers: { 'x-api-key': KEY, 'anthropic-version': '2023-06-01' } });
  t.equal(models.status, 200);

  t.equal(await (await fetch(`${base}/health`)).text(), 'mine: /health', 'outside the prefix: the user answers');
  t.equal(await (await fetch(`${base}/llmx/v1/models`)).text(), 'mine: /llmx/v1/models', 'a longer segment is not under the prefix');
  const root = await fetch(`${base}/llm?x=1`);
  t.equal(root.status, 404, 'the prefix itself is the gateway’s (its own 404)');
  t.match(((await root.json()) as { error: { message: string } }).error.message, /^No route for GET \/\./);
});

t.test('listening on its own server', async (t) => {
  const gateway = await createGateway(config());
  const base = await listen(gateway.server);
  t.teardown(() => gateway.close());
  t.equal(gateway.config.maxBodyBytes, 33554432, 'schema defaults applied');
  t.ok(Object.isFrozen(gateway.config), 'the configuration is frozen');
  t.equal(gateway.demoKey, null);
  const res = await ask(`${base}/v1/messages`);
  t.equal(res.status, 200);
});

t.test('a wrong configuration is rejected as bin/gateway rejects it', async (t) => {
  const err = await createGateway(config({ models: [{ id: 'x/y', deployments: [{ provider: 'nowhere', model: 'y' }], pricing: { input: 1, output: 1 } }] })).then(
    () => undefined,
    (e: unknown) => e,
  );
  t.ok(GatewayError.is(err));
  t.equal((err as GatewayError).code, 'GW_ERR_CONFIG_INVALID');
  t.match((err as GatewayError).message, 'models[0].deployments[0].provider: unknown provider "nowhere"');

  const missing = await createGateway(config({ providers: [{ id: 'sim', protocol: 'anthropic', baseUrl: 'http://127.0.0.1:9', apiKey: '${SIM_KEY}' }] }), { env: {} }).then(
    () => undefined,
    (e: unknown) => e,
  );
  t.match((missing as GatewayError).message, 'environment variable SIM_KEY is not set', '`${NAME}` is read from options.env');
});

t.test('close() stops taking requests and can be called twice', async (t) => {
  const gateway = await createGateway(config());
  const server = createServer((req, res) => gateway.handle(req, res));
  const base = await listen(server);
  t.teardown(() => server.close());
  t.equal((await ask(`${base}/v1/messages`)).status, 200);
  await gateway.close();
  await gateway.close();
  const after = await ask(`${base}/v1/messages`);
  t.equal(after.status, 503);
  t.match(((await after.json()) as { error: { message: string } }).error.message, /shutting down/);
});
