// What an open stream keeps of its request: a generation chain lives as long as the answer streams
// (1,000 slow streams, issue #21), so whatever its stages, the fused runner and the failover loop
// still reference is memory per open stream. A Claude-Code-sized request (200 KB) was kept whole,
// parsed and as the client's bytes, by settle, the encoder state, the runner's level and the
// failover loop: about 600 KB per stream. Once the upstream answered and its first content went on
// (no other deployment will be tried), the request must be collectable: checked here with weak
// references and a forced collection while the stream is still open, through the real Messages
// chain as the server runs it (fused), against a loopback upstream that holds its answer open.
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import t from 'tap';
import { buildMessagesChain } from '../../lib/chains.js';
import type { CanonicalRequest } from '../../lib/chunks.js';
import { runFused } from '../../lib/fused-chain.js';
import type { ChainNote } from '../../lib/notes.js';
import { ProviderPool } from '../../lib/providers/pool.js';
import type { Stage } from '../../lib/stage.js';
import { makeContext, makeServices, testConfig } from '../helpers/context.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const sse = (event: string, data: object): string => `event: ${event}\ndata: ${JSON.stringify({ type: event, ...data })}\n\n`;
const usage = (output: number): object => ({ input_tokens: 50_000, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: output });

/** An Anthropic upstream that answers with a stream's start and first delta, then holds it open until `release`. */
async function slowUpstream(): Promise<{ server: Server; url: string; release(): void }> {
  const waiting: (() => void)[] = [];
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'request-id': 'req_up_1' });
      res.write(
        sse('message_start', { message: { id: 'msg_1', type: 'message', role: 'assistant', model: 'claude-opus-5', content: [], stop_reason: null, stop_sequence: null, usage: usage(1) } }) +
          sse('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }) +
          sse('content_block_delta', { index: 0, delta: { type: 'text_delta', text: 'Hello' } }),
      );
      waiting.push(() =>
        res.end(sse('content_block_stop', { index: 0 }) + sse('message_delta', { delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: usage(2) }) + sse('message_stop', {})),
      );
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, release: () => waiting.splice(0).forEach((f) => f()) };
}

t.test('an open stream: the chain keeps neither the parsed request nor the client’s bytes once the answer went on', async (t) => {
  const upstream = await slowUpstream();
  t.teardown(() => upstream.server.close());
  // a model the deployment serves under the same name: the client's bytes go upstream as they came
  const config = testConfig({ providers: [{ id: 'up', protocol: 'anthropic', baseUrl: upstream.url, apiKey: 'sk-up' }], models: [{ id: 'claude-opus-5', deployments: [{ provider: 'up', model: 'claude-opus-5' }], pricing: { input: 5, output: 25 }, maxOutputTokens: 64000 }] });
  const services = makeServices(config);
  (services as { providers: unknown }).providers = new ProviderPool(config, null);
  t.teardown(() => services.providers.agent.close());
  // the Messages endpoint's header hook validated the `anthropic-*` headers
  const ctx = { ...makeContext({ config, services }), anthropic: { version: '2023-06-01', betas: [], sessionId: undefined, forward: {} } };
  const refs: Record<string, WeakRef<object>> = {};
  const stages = buildMessagesChain(config).factories.map((f) => f(ctx) as Stage<unknown, unknown>);
  // the route stage's input is the parsed, validated request: the test only watches it
  const at = stages.findIndex((s) => s.name === 'route');
  const route = stages[at]!;
  stages[at] = {
    ...route,
    step(req, c) {
      refs.request = new WeakRef(req as CanonicalRequest);
      refs.body = new WeakRef((req as CanonicalRequest).body);
      // the client's bytes, which go upstream as they are (the model value needs no renaming)
      const raw = (req as CanonicalRequest).raw;
      if (raw !== undefined) refs.bytes = new WeakRef(raw.bytes);
      return route.step(req, c);
    },
  };
  const notes: string[] = [];
  // a Claude-Code-sized request (200 KB), sent in one piece as a socket may hand it over
  const source = async function* (): AsyncGenerator<Buffer> {
    yield Buffer.from(JSON.stringify({ model: 'claude-opus-5', max_tokens: 100, stream: true, messages: [{ role: 'user', content: 'x'.repeat(200_000) }] }));
  };
  const chain = runFused<string>(stages, ctx, (n: ChainNote) => notes.push(n.note), source());
  // reads until the first content reached the client; the helper's frame (and what it read) is gone once it returns
  const firstContent = async (): Promise<boolean> => {
    let text = '';
    while (!text.includes('Hello')) {
      const r = await chain.next();
      if (r.done === true) return false;
      text += r.value;
    }
    return text.includes('event: message_start');
  };
  t.ok(await firstContent(), 'the client got the stream’s start and its first content');
  // the stream stays open: the upstream holds the rest
  for (let i = 0; i < 3; i++) {
    await new Promise((r) => setImmediate(r));
    gc();
  }
  t.same(
    Object.fromEntries(Object.entries(refs).map(([k, r]) => [k, r.deref() === undefined])),
    { request: true, body: true, bytes: true },
    'neither the parsed request, its body nor the client’s bytes are kept while the stream is open',
  );
  upstream.release();
  let rest = '';
  for await (const piece of chain) rest += piece;
  t.match(rest, /event: message_stop/, 'the stream ends as the client expects');
  for (const stage of stages) await stage.close?.(ctx, undefined, { status: 200 });
  t.same(notes.slice(0, 2), ['routed', 'headers'], 'the chain told its notes as before');
  const charged = services.store.db.prepare('select cost from usage where request_id = ?').get(ctx.reqId) as { cost: number } | undefined;
  t.ok(charged !== undefined && charged.cost > 0, 'the answer was charged');
});
