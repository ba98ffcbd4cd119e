// The answer's tail through bin/gateway, for the three same-dialect pairs: while other answers are
// running, the frames of the provider's last chunk wait in the socket for the commit of the answer's
// charge and leave with the final frames (settle's `waitsOnlyForStore`, ResponseSink.holdForStore);
// what came before a wait for the provider is never held, and an answer running alone is never held.
//
// The upstream sends its stream in two pieces, the second (two HTTP chunks in one write: the frame
// with the last text, then the final frames) only when the test says so. The test holds the store's
// write lock (BEGIN IMMEDIATE from its own connection) while the second piece arrives, so the
// gateway's settle batch waits in SQLite's busy handler: the client must have the first piece's text
// and, with another answer running, must not get the second piece's text before the lock is let go;
// alone, it gets it before. Either way the answer then ends whole and its charge is in the ledger.
import { createServer, request, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import t, { type Test } from 'tap';
import { startGateway } from '../helpers/gateway.js';
import { LedgerView } from '../helpers/billing.js';
import { clientHeaders, type Endpoint } from '../failure-modes/clients.js';
import { anthropicStream, chatSse, delta, fmConfig, modelId, responsesStream, usageChunk, type FmModel } from '../failure-modes/upstream.js';

const MODELS: FmModel[] = [
  { name: 'tail-messages', api: 'messages' },
  { name: 'tail-chat', api: 'chat' },
  { name: 'tail-responses', api: 'responses' },
  // another answer, kept running while one of the others ends
  { name: 'tail-other', api: 'messages' },
];

const STREAMS: Record<string, string> = {
  'tail-messages': anthropicStream('tail-messages', [{ type: 'text', text: 'Alpha' }, { type: 'text', text: 'Omega' }], 'end_turn'),
  'tail-chat': chatSse('tail-chat', [delta({ role: 'assistant', content: '' }), delta({ content: 'Alpha' }), delta({ content: 'Omega' }), delta({}, 'stop'), usageChunk(9, 4)]),
  'tail-responses': responsesStream('tail-responses', [{ type: 'message', text: 'Alpha' }, { type: 'message', text: 'Omega' }]),
  'tail-other': anthropicStream('tail-other', [{ type: 'text', text: 'Alpha' }, { type: 'text', text: 'Omega' }], 'end_turn'),
};

/** the stream cut around the first frame that mentions Omega: before it, it, after it */
function pieces(stream: string): [string, string, string] {
  const at = stream.lastIndexOf('\n\n', stream.indexOf('Omega')) + 2;
  const end = stream.indexOf('\n\n', at) + 2;
  return [stream.slice(0, at), stream.slice(at, end), stream.slice(end)];
}

/** An upstream that sends the first piece at once and the rest (the Omega frame, then the others and the end) when `next(model)` is called. */
async function gatedUpstream(): Promise<{ url: string; next(model: string): void; close(): Promise<void> }> {
  const waiting = new Map<string, () => void>();
  const server = createServer((req, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const model = String((JSON.parse(Buffer.concat(chunks).toString()) as { model: string }).model);
      const [first, omega, rest] = pieces(STREAMS[model]!);
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(first);
      // two HTTP chunks in one TCP write: the gateway reads them at once, as two pieces of the body
      waiting.set(model, () => {
        res.write(omega);
        res.end(rest);
      });
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    next: (model) => {
      const send = waiting.get(model)!;
      waiting.delete(model);
      send();
    },
    close: () => new Promise((r) => (server.closeAllConnections(), server.close(() => r()))),
  };
}

/** the frame that ends each dialect's successful stream */
const TERMINAL: Record<Endpoint, string> = { messages: 'event: message_stop', chat: 'data: [DONE]', responses: 'event: response.completed' };

const PATHS: Record<Endpoint, string> = { messages: '/v1/messages', chat: '/v1/chat/completions', responses: '/v1/responses' };

function body(ep: Endpoint, model: string): string {
  if (ep === 'responses') return JSON.stringify({ model, input: 'hi', stream: true });
  if (ep === 'chat') return JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }], stream: true });
  return JSON.stringify({ model, max_tokens: 64, messages: [{ role: 'user', content: 'hi' }], stream: true });
}

/** A streaming request whose received text can be looked at while it arrives. */
function stream(url: string, ep: Endpoint, model: string): { text(): string; until(s: string): Promise<void>; ended: Promise<{ status: number; id: string | undefined }> } {
  let text = '';
  let wake: (() => void) | null = null;
  const ended = new Promise<{ status: number; id: string | undefined }>((resolve, reject) => {
    const req = request(`${url}${PATHS[ep]}`, { method: 'POST', headers: clientHeaders(ep) }, (res) => {
      res.setEncoding('utf8');
      res.on('data', (c: string) => {
        text += c;
        wake?.();
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, id: (res.headers['x-request-id'] ?? res.headers['request-id']) as string | undefined }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body(ep, model));
  });
  return {
    text: () => text,
    until: async (s) => {
      while (!text.includes(s)) await new Promise<void>((r) => (wake = r));
    },
    ended,
  };
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

t.test('the last chunk of an answer leaves with its final frames, once the charge committed, while other answers run', async (t) => {
  const up = await gatedUpstream();
  const file = join(mkdtempSync(join(tmpdir(), 'gw-tail-')), 'gw.db');
  const gw = await startGateway(fmConfig(up.url, MODELS, { store: `sqlite:${file}` }));
  t.teardown(async () => {
    await gw.stop();
    await up.close();
  });
  const ledger = new LedgerView(file);
  t.teardown(() => ledger.close());

  /** one answer of `m`, its second piece sent while the store is locked; `held`: whether its text must wait for the lock */
  async function answer(t: Test, ep: Endpoint, m: FmModel, held: boolean): Promise<void> {
    const before = ledger.usage('acme').length;
    const s = stream(gw.url, ep, modelId(m));
    // the first piece arrives while the upstream still waits: a wait for the provider holds nothing
    await s.until('Alpha');
    t.notOk(s.text().includes('Omega'), 'the second piece was not sent yet');
    const lock = new Database(file, { timeout: 5000 });
    lock.exec('BEGIN IMMEDIATE');
    up.next(m.name);
    if (held) {
      // the gateway reads the second piece and waits for the store; nothing of it reaches the client
      await sleep(400);
      t.notOk(s.text().includes('Omega'), 'the last chunk\'s text waits for the commit');
    } else {
      const arrived = await Promise.race([s.until('Omega').then(() => true), sleep(3000).then(() => false)]);
      t.ok(arrived, 'alone, the last chunk\'s text goes out before the commit');
      t.notOk(s.text().includes(TERMINAL[ep]), 'and the final frames wait for it');
    }
    lock.exec('COMMIT');
    lock.close();
    const end = await s.ended;
    t.equal(end.status, 200);
    const text = s.text();
    t.ok(text.indexOf('Alpha') < text.indexOf('Omega'), 'the whole answer, in order');
    t.ok(text.includes(TERMINAL[ep]), `ends with ${TERMINAL[ep]}`);
    const rows = ledger.usage('acme').slice(before);
    t.equal(rows.length, 1, 'one usage record');
    t.match(rows[0], { status: 200, error_code: null }, 'of a success');
    t.ok(rows[0]!.cost > 0, 'charged');
  }

  const ENDPOINTS = [['messages', MODELS[0]!], ['chat', MODELS[1]!], ['responses', MODELS[2]!]] as const;
  for (const [ep, m] of ENDPOINTS) {
    t.test(`${ep}, alone: never held`, (t) => answer(t, ep, m, false));
  }
  t.test('with another answer running', async (t) => {
    const other = stream(gw.url, 'messages', modelId(MODELS[3]!));
    await other.until('Alpha');
    for (const [ep, m] of ENDPOINTS) {
      await t.test(`${ep}: held over the commit, never over the provider`, (t) => answer(t, ep, m, true));
    }
    up.next(MODELS[3]!.name);
    t.equal((await other.ended).status, 200, 'the other answer ends too');
    t.same(ledger.reservations(), [], 'no hold left');
  });
});
