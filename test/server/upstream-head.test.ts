// An upstream answer's headers read one at a time from undici's raw list (lib/providers/upstream-call.ts
// `upstreamHeader`, what the failover loop and dispatch read on every answer) are exactly what the
// whole `headers` object holds: names in any case, repeated names, empty values, UTF-8 values, and a
// name that looks like another one.
import { createServer, type Server } from 'node:http';
import t from 'tap';
import { Agent } from 'undici';
import { dispatchCall, upstreamHeader } from '../../lib/providers/upstream-call.js';
import { closeNow, listen } from '../../lib/listen.js';

let raw: string[] = [];
let server: Server;
let origin: string;
const agent = new Agent({ connections: null, pipelining: 1 });

t.before(async () => {
  server = createServer((req, res) => {
    req.resume();
    res.writeHead(200, raw);
    res.end('ok');
  });
  origin = new URL(await listen(server, 0, '127.0.0.1')).origin;
});
t.teardown(async () => {
  await agent.close();
  await closeNow(server);
});

const NAMES = ['content-type', 'x-request-id', 'request-id', 'content-encoding', 'x-a', 'x-b', 'x-c', 'x-d', 'x-e', 'x-missing', 'set-cookie', 'content-length'];

const CASES: string[][] = [
  ['Content-Type', 'text/event-stream; charset=utf-8', 'Cache-Control', 'no-cache', 'X-Request-Id', 'req_1'],
  ['content-type', 'application/json', 'CONTENT-TYPE', 'text/plain', 'x-request-id', 'a', 'X-REQUEST-ID', 'b'],
  ['X-A', '', 'x-a', 'second', 'x-a', 'third', 'x-b', '', 'x-c', 'one', 'x-c', '', 'x-d', '', 'X-D', ''],
  ['Request-Id', 'req_é_ü', 'x-e', 'caf\u00e9', 'Set-Cookie', 'a=1', 'set-cookie', 'b=2', 'Content-Encoding', 'identity'],
  ['x-request-ie', 'near', 'y-request-id', 'miss', 'Content-Typf', 'x'],
];

t.test('each header read alone is what the headers object holds', async (t) => {
  for (const headers of CASES) {
    raw = headers;
    const res = await dispatchCall(agent, { origin, path: '/', method: 'GET', headersTimeout: 5000, bodyTimeout: 5000 }, new AbortController().signal);
    t.type(res.header, 'function', 'the answer reads its raw list');
    const alone = NAMES.map((name) => [res.header!(name), upstreamHeader(res, name)]);
    const all = res.headers; // built now, after every header was read alone
    t.same(alone, NAMES.map((name) => [all[name], Array.isArray(all[name]) ? all[name][0] : all[name]]), `the same values for ${JSON.stringify(headers)}`);
    for await (const _ of res.body) void _;
  }
});
