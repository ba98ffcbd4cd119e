// UpstreamCall: one upstream call on undici's dispatcher, its body read straight from the handler
// callbacks. Order, backpressure against a fast upstream, early stop, aborts and timeouts.
import { createServer, type Server, type ServerResponse } from 'node:http';
import t from 'tap';
import { Agent } from 'undici';
import { dispatchCall } from '../../lib/providers/upstream-call.js';
import { closeNow, listen } from '../../lib/listen.js';

type Route = (res: ServerResponse, onClose: Promise<void>) => void;
let route: Route = (res) => res.end();
let server: Server;
let origin: string;
const agent = new Agent({ connections: null, pipelining: 1 });

t.before(async () => {
  server = createServer((req, res) => {
    req.resume();
    const closed = new Promise<void>((r) => res.once('close', () => r()));
    route(res, closed);
  });
  origin = new URL(await listen(server, 0, '127.0.0.1')).origin;
});
t.teardown(async () => {
  await agent.close();
  await closeNow(server);
});

const call = (signal = new AbortController().signal, headersTimeout = 5000) =>
  dispatchCall(agent, { origin, path: '/x', method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}', headersTimeout, bodyTimeout: 5000 }, signal);

t.test('status, headers and every chunk in order', async (t) => {
  route = (res) => {
    res.writeHead(201, { 'x-a': '1', 'set-cookie': ['a=1', 'b=2'] });
    let i = 0;
    const tick = (): void => {
      if (i === 5) return void res.end();
      res.write(`part${i++};`);
      setImmediate(tick);
    };
    tick();
  };
  const r = await call();
  t.equal(r.statusCode, 201);
  t.equal(r.headers['x-a'], '1');
  t.same(r.headers['set-cookie'], ['a=1', 'b=2']);
  let text = '';
  for await (const c of r.body) text += c.toString();
  t.equal(text, 'part0;part1;part2;part3;part4;');
});

t.test('a fast upstream and a slow reader: the socket is paused, nothing piles up', async (t) => {
  const total = 48 * 1024 * 1024; // well above what loopback socket buffers absorb
  let sentWhenFirstRead = -1;
  let sent = 0;
  route = (res) => {
    res.writeHead(200);
    const chunk = Buffer.alloc(16 * 1024, 0x61);
    const pump = (): void => {
      while (sent < total) {
        sent += chunk.length;
        if (!res.write(chunk)) return void res.once('drain', pump);
      }
      res.end();
    };
    pump();
  };
  const r = await call();
  await new Promise((resolve) => setTimeout(resolve, 300)); // the reader is busy elsewhere
  sentWhenFirstRead = sent;
  let got = 0;
  for await (const c of r.body) got += c.length;
  t.equal(got, total, 'every byte arrived');
  t.ok(sentWhenFirstRead < total / 2, `the upstream was held back while nobody read (${sentWhenFirstRead} of ${total} bytes sent)`);
});

t.test('stopping early aborts the call: the upstream sees its connection close', async (t) => {
  let upstreamClosed!: Promise<void>;
  route = (res, closed) => {
    upstreamClosed = closed;
    res.writeHead(200);
    res.write('first;');
    // never ends by itself
  };
  const r = await call();
  for await (const c of r.body) {
    t.equal(c.toString(), 'first;');
    break;
  }
  await upstreamClosed;
  t.pass('the upstream connection closed');
});

t.test('an abort before the answer rejects with the reason; during the body, the pending read rejects', async (t) => {
  route = () => undefined; // no answer
  const ac = new AbortController();
  const pending = call(ac.signal);
  setTimeout(() => ac.abort(new Error('client gone')), 50);
  await t.rejects(pending, { message: 'client gone' });

  route = (res) => {
    res.writeHead(200);
    res.write('x');
  };
  const ac2 = new AbortController();
  const r = await call(ac2.signal);
  const it = r.body[Symbol.asyncIterator]();
  t.equal((await it.next()).value?.toString(), 'x');
  const next = it.next();
  ac2.abort(new Error('shutdown'));
  await t.rejects(next, { message: 'shutdown' });

  const ac3 = new AbortController();
  ac3.abort(new Error('already'));
  await t.rejects(call(ac3.signal), { message: 'already' }, 'an aborted signal never dispatches');
});

t.test("undici's error codes are kept (headers timeout)", async (t) => {
  route = () => undefined;
  await t.rejects(call(undefined, 100), { code: 'UND_ERR_HEADERS_TIMEOUT' });
});
