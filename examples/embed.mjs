// The gateway mounted in your own node:http server, under /llm, next to your own routes. The config
// is inline: one simulated Anthropic provider (started in process, no network), one model, one key,
// an in-memory store. The program listens on a free loopback port, asks itself one question through
// the gateway's Messages endpoint, prints the answer and closes.
//
//   node examples/embed.mjs
import { createServer } from 'node:http';
import { createGateway } from 'model-gateway';

const KEY = 'sk-embed-example-0001';

const gateway = await createGateway(
  {
    store: 'sqlite::memory:',
    logLevel: 'warn',
    providers: [{ id: 'sim', protocol: 'anthropic', simulated: true }],
    models: [
      {
        id: 'anthropic/claude-sonnet-5',
        aliases: ['sonnet'],
        deployments: [{ provider: 'sim', model: 'claude-sonnet-5' }],
        pricing: { input: 3, output: 15 },
      },
    ],
    orgs: [{ id: 'acme', credits: 10 }],
    keys: [{ key: KEY, org: 'acme' }],
  },
  { prefix: '/llm' },
);

// your server: the gateway answers under /llm, everything else is yours
const server = createServer((req, res) => {
  if (gateway.handle(req, res)) return;
  res.writeHead(200, { 'content-type': 'text/plain' }).end('my own route\n');
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const base = `http://127.0.0.1:${server.address().port}`;

try {
  const res = await fetch(`${base}/llm/v1/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': KEY, 'anthropic-version': '2023-06-01' },
    body: JSON.stringify({ model: 'sonnet', max_tokens: 200, messages: [{ role: 'user', content: 'Say hello in five words.' }] }),
  });
  const message = await res.json();
  if (!res.ok) throw new Error(`${res.status}: ${JSON.stringify(message)}`);
  const text = message.content.filter((b) => b.type === 'text').map((b) => b.text).join('');
  console.log(`status ${res.status}, model ${message.model}, ${message.usage.output_tokens} output tokens`);
  console.log(`answer: ${text}`);
  console.log(`own route: ${(await (await fetch(`${base}/health`)).text()).trim()}`);
} finally {
  await new Promise((resolve) => server.close(resolve));
  await gateway.close();
}
