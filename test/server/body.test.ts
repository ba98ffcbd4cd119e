// The strict JSON body stage through real HTTP: RFC JSON only, exact paths, 413 without buffering,
// Content-Type rules. Nothing reaches the provider.
import { request } from 'node:http';
import t from 'tap';
import { baseConfig, messagesHeaders, startGateway, type RunningGateway } from '../helpers/gateway.js';
import { errorOf, rawRequest } from '../helpers/http.js';

let gw: RunningGateway;
t.before(async () => {
  gw = await startGateway(baseConfig());
});
t.teardown(async () => {
  await gw.stop();
});

const valid = '{"model":"claude-opus-5","max_tokens":16,"messages":[{"role":"user","content":[{"type":"text","text":"hi"}]}]}';

t.test('malformed JSON is refused with the exact path', async (t) => {
  await gw.clearSim();
  const cases: [string, Buffer | string, RegExp][] = [
    ['duplicate key', '{"model":"claude-opus-5","max_tokens":16,"messages":[{"role":"user","content":[{"type":"text","type":"text","text":"hi"}]}]}', /messages\[0\]\.content\[0\]\.type.*duplicate key/],
    ['NaN', '{"model":"claude-opus-5","max_tokens":NaN,"messages":[]}', /max_tokens/],
    ['Infinity', '{"model":"claude-opus-5","max_tokens":16,"temperature":Infinity,"messages":[]}', /temperature/],
    ['-Infinity', '{"model":"claude-opus-5","max_tokens":16,"temperature":-Infinity,"messages":[]}', /temperature/],
    ['trailing garbage', `${valid} x`, /\(root\)/],
    ['two documents', `${valid}{}`, /\(root\)/],
    ['trailing comma', '{"model":"claude-opus-5","messages":[1,],"max_tokens":1}', /messages/],
    ['invalid UTF-8', Buffer.concat([Buffer.from('{"model":"claude-opus-5","max_tokens":16,"messages":[{"role":"user","content":"'), Buffer.from([0xc3, 0x28]), Buffer.from('"}]}')]), /messages\[0\]\.content.*UTF-8/],
    ['empty body', '', /empty/],
  ];
  for (const [name, body, path] of cases) {
    const res = await rawRequest(`${gw.url}/v1/messages`, { headers: messagesHeaders(), body });
    t.equal(res.status, 400, name);
    const err = errorOf(res.body);
    t.equal(err.type, 'invalid_request_error', name);
    t.match(err.message, path, `${name}: ${err.message}`);
    t.match(err.message, /Nothing was processed/, 'says nothing was processed');
  }
  t.same(await gw.simRequests(), [], 'no provider call');
});

t.test('Content-Type: required, application/json, parameters allowed', async (t) => {
  const withCharset = await rawRequest(`${gw.url}/v1/messages`, { headers: messagesHeaders({ 'content-type': 'application/json; charset=utf-8' }), body: valid });
  t.equal(withCharset.status, 200);
  const upper = await rawRequest(`${gw.url}/v1/messages`, { headers: messagesHeaders({ 'content-type': 'Application/JSON' }), body: valid });
  t.equal(upper.status, 200);
  for (const ct of ['text/plain', 'application/x-www-form-urlencoded', 'application/jsonx']) {
    const res = await rawRequest(`${gw.url}/v1/messages`, { headers: messagesHeaders({ 'content-type': ct }), body: valid });
    t.equal(res.status, 400, ct);
    t.match(errorOf(res.body).message, /content-type/i);
  }
  const headers = messagesHeaders();
  delete (headers as Record<string, string | undefined>)['content-type'];
  const missing = await rawRequest(`${gw.url}/v1/messages`, { headers, body: valid });
  t.equal(missing.status, 400, 'missing');
  const twice = await rawRequest(`${gw.url}/v1/messages`, { headers: { ...messagesHeaders(), 'content-type': ['application/json', 'application/json'] }, body: valid });
  t.equal(twice.status, 400, 'duplicated');
});

t.test('a body over 32 MiB gets 413 without being read whole', async (t) => {
  // declared length over the limit: refused before any byte of the body is read
  const declared = await new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = request(`${gw.url}/v1/messages`, { method: 'POST', headers: { ...messagesHeaders(), 'content-length': String(40 * 1024 * 1024) } }, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.on('error', reject);
    req.write('{"model":"claude-opus-5","messages":[');
    // the rest is never sent: the answer must come anyway
  });
  t.equal(declared.status, 413);
  t.equal(errorOf(declared.body).type, 'request_too_large');

  // chunked upload with no length: cut off once 32 MiB have passed
  const chunked = await new Promise<{ status: number; body: string; sent: number }>((resolve, reject) => {
    let sent = 0;
    const req = request(`${gw.url}/v1/messages`, { method: 'POST', headers: messagesHeaders() }, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text, sent }));
    });
    req.on('error', () => undefined);
    const piece = Buffer.alloc(1024 * 1024, 0x20);
    const pump = (): void => {
      while (sent < 64 * 1024 * 1024) {
        sent += piece.length;
        if (!req.write(piece)) {
          req.once('drain', pump);
          return;
        }
      }
      req.end();
    };
    req.write('{"model":"claude-opus-5","messages":[');
    pump();
    setTimeout(() => reject(new Error('no answer')), 20_000).unref();
  });
  t.equal(chunked.status, 413);
  t.equal(errorOf(chunked.body).type, 'request_too_large');
  t.ok(chunked.sent < 64 * 1024 * 1024, 'answered before the whole upload was sent');
});
