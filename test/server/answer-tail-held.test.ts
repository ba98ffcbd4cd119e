// The answer's tail through bin/gateway, for the three same-dialect pairs: the frames of the provider's
// last chunk wait, in the socket, for the commit of the answer's charge and leave with the final
// frames (settle's `waitsOnlyForStore`, ResponseSink.holdForStore), while what came before a wait for
// the provider is never held.
//
// The upstream sends its stream in two pieces, the second (two HTTP chunks in one write: the frame
// with the last text, then the final frames) only when the test says so. The test holds the store's
// write lock (BEGIN IMMEDIATE from its own connection) while the second piece arrives, so
// the gateway's settle batch waits in SQLite's busy handler: the client must have the first piece's
// text, and must not get the second piece's text before the lock is let go. Then the answer ends
// whole and its charge is in the ledger.
import { createServer, request, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import t from 'tap';
import { startGateway } from '../helpers/gateway.js';
import { LedgerView } from '../helpers/billing.js';
import { clientHeaders, type Endpoint } from '../failure-modes/clients.js';
import { anthropicStream, chatSse, delta, fmConfig, modelId, responsesStream, usageChunk, type FmModel } from '../failure-modes/upstream.js';

const MODELS: FmModel[] = [
  { name: 'tail-messages', api: 'messages' },
  { name: 'tail-chat', api: 'chat' },
  { name: 'tail-responses', api: 'responses' },
];

const STREAMS: Record<string, string> = {
  'tail-messages': anthropicStream('tail-messages', [{ type: 'text', text: 'Alpha' }, { type: 'text', text: 'Omega' }], 'end_turn'),
  'tail-chat': chatSse('tail-chat', [delta({ role: 'assistant', content: '' }), delta({ content: 'Alpha' }), delta({ content: 'Omega' }), delta({}, 'stop'), usageChunk(9, 4)]),
  'tail-responses': responsesStream('tail-responses', [{ type: 'message', text: 'Alpha' }, { type: 'message', text: 'Omega' }]),
};

/** the stream cut around the first frame that mentions Omega: before it, it, after it */
function pieces(stream: string): [string, string, string] {
  const at = stream.lastIndexOf('\n\n', stream.indexOf('Omega')) + 2;
  const end = stream.indexOf('\n\n', at) + 2;
  return [stream.slice(0, at), stream.slice(at, end), stream.slice(end)];
}

/** An upstream that sends the first piece at once and the rest (the Omega frame, then the others and the end) when `next()` is called. */
async function gatedUpstream(): Promise<{ url: string; next(): void; close(): Promise<void> }> {
  const waiting: (() => void)[] = [];
  let opened = 0;
  const server = createServer((req, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const model = String((JSON.parse(Buffer.concat(chunks).toString()) as { model: string }).model);
      const [first, omega, rest] = pieces(STREAMS[model]!);
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(first);
      // two HTTP chunks in one TCP write: the gateway reads them at once, as two pieces of the body
      const send = (): void => {
        res.write(omega);
        res.end(rest);
      };
      if (opened > 0) {
        opened--;
        send();
      } else waiting.push(send);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    next: () => {
      const send = waiting.shift();
      if (send) send();
      else opened++;
    },
    close: () => new Promise((r) => (server.closeAllConnections(), server.close(() => r()))),
  };
}

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

t.test('the last chunk of an answer leaves with its final frames, once the charge committed', async (t) => {
  const up = await gatedUpstream();
  const file = join(mkdtempSync(join(tmpdir(), 'gw-tail-')), 'gw.db');
  const gw = await startGateway(fmConfig(up.url, MODELS, { store: `sqlite:${file}` }));
  t.teardown(async () => {
    await gw.stop();
    await up.close();
  });
  const ledger = new LedgerView(file);
  t.teardown(() => ledger.close());

  for (const [ep, m] of [['messages', MODELS[0]!], ['chat', MODELS[1]!], ['responses', MODELS[2]!]] as const) {
    t.test(`${ep}: held over the commit, never over the provider`, async (t) => {
      const before = ledger.usage('acme').length;
      const s = stream(gw.url, ep, modelId(m));
      // the first piece arrives while the upstream still waits: a wait for the provider holds nothing
      await s.until('Alpha');
      t.notOk(s.text().includes('Omega'), 'the second piece was not sent yet');
      const lock = new Database(file, { timeout: 5000 });
      lock.exec('BEGIN IMMEDIATE');
      up.next();
      // the gateway reads the second piece and waits for the store; nothing of it reaches the client
      await sleep(400);
      t.notOk(s.text().includes('Omega'), 'the last chunk\'s text waits for the commit');
      lock.exec('COMMIT');
      lock.close();
      const end = await s.ended;
      t.equal(end.status, 200);
      const text = s.text();
      t.ok(text.indexOf('Alpha') < text.indexOf('Omega'), 'the whole answer, in order');
      const terminal = { messages: 'event: message_stop', chat: 'data: [DONE]', responses: 'event: response.completed' }[ep];
      t.ok(text.includes(terminal), `ends with ${terminal}`);
      const rows = ledger.usage('acme').slice(before);
      t.equal(rows.length, 1, 'one usage record');
      t.match(rows[0], { status: 200, error_code: null }, 'of a success');
      t.ok(rows[0]!.cost > 0, 'charged');
      t.same(ledger.reservations(), [], 'no hold left');
    });
  }
});
