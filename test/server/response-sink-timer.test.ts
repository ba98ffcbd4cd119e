// The response writer's keep-alive timers (lib/request-io.ts ResponseSink): a streaming answer's early
// timer (armed when the request was routed, before any provider answered) goes on as its keep-alive
// timer at the first write, so a request makes one timer, not two; a keep-alive frame still goes only
// after `pingMs` of silence since the last write, never sooner, and the early frame still commits a
// silent stream to 200.
import { EventEmitter } from 'node:events';
import type { ServerResponse } from 'node:http';
import t from 'tap';
import type { RequestContext } from '../../lib/context.js';
import type { ChainNote } from '../../lib/notes.js';
import { ResponseSink } from '../../lib/request-io.js';

const PING_MS = 40;
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** a response that records what was written, and when */
class FakeResponse extends EventEmitter {
  writes: { at: number; chunk: string }[] = [];
  head: number | null = null;
  destroyed = false;
  writableEnded = false;
  writeHead(status: number): this {
    this.head = status;
    return this;
  }
  write(chunk: string): boolean {
    this.writes.push({ at: Date.now(), chunk });
    return true;
  }
  end(): void {
    this.writableEnded = true;
  }
  cork(): void {}
  uncork(): void {}
}

function sinkFor(res: FakeResponse, pingMs = PING_MS): ResponseSink {
  const ctx = { responseHeaders: {}, reqId: 'req_1' } as unknown as RequestContext;
  return new ResponseSink(ctx, res as unknown as ServerResponse, pingMs, ':early\n\n');
}

const routed = { note: 'routed', routed: { request: { stream: true } } } as unknown as ChainNote;
const head = { note: 'head', status: 200, headers: {}, whole: false, keepalive: ':ping\n\n' } as ChainNote;
const timers = (sink: ResponseSink): { early: unknown; timer: unknown } => sink as unknown as { early: unknown; timer: unknown };

t.test("the early timer goes on as the keep-alive timer; a frame only after pingMs of silence", async (t) => {
  // a long interval here: the first write must come before the early timer fires, however loaded the machine
  const pingMs = 400;
  const res = new FakeResponse();
  const sink = sinkFor(res, pingMs);
  sink.note(routed);
  const early = timers(sink).early;
  t.ok(early !== null, 'armed when routed');
  await sleep(20);
  sink.note(head);
  const wroteAt = Date.now();
  t.equal(sink.write('data: a\n\n'), undefined);
  t.equal(timers(sink).early, null, 'no early timer once written');
  t.equal(timers(sink).timer, early, 'the same timer goes on');
  // silence: the keep-alive comes after pingMs since the write (a timer never fires early), not at
  // the early timer's own deadline (pingMs after routing)
  for (let waited = 0; waited < 2000 && !res.writes.some((w) => w.chunk === ':ping\n\n'); waited += 10) await sleep(10);
  const ping = res.writes.find((w) => w.chunk === ':ping\n\n');
  t.ok(ping !== undefined, 'a keep-alive frame after silence');
  t.ok(ping!.at - wroteAt >= pingMs - 1, `not before pingMs of silence (${ping!.at - wroteAt} ms)`);
  t.notOk(res.writes.some((w) => w.chunk === ':early\n\n'), 'no early frame once the answer began');
  sink.end();
  t.equal(timers(sink).timer, null, 'stopped at the end');
});

t.test('a provider silent past pingMs: the early frame commits to 200, then keep-alives follow', async (t) => {
  const res = new FakeResponse();
  const sink = sinkFor(res);
  sink.note(routed);
  for (let waited = 0; waited < 2000 && res.writes.length < 2; waited += 10) await sleep(10);
  t.equal(res.head, 200);
  t.same(
    res.writes.slice(0, 2).map((w) => w.chunk),
    [':early\n\n', ':early\n\n'],
    'the early frame, then again after pingMs',
  );
  t.ok(res.writes[1]!.at - res.writes[0]!.at >= PING_MS - 1, 'pingMs apart at least');
  sink.stopTimer();
});

t.test('an answer that ends at once leaves no timer behind', async (t) => {
  const res = new FakeResponse();
  const sink = sinkFor(res);
  sink.note(routed);
  sink.note(head);
  sink.write('data: a\n\n');
  sink.end();
  t.equal(timers(sink).early, null);
  t.equal(timers(sink).timer, null);
  await sleep(PING_MS * 2);
  t.same(
    res.writes.map((w) => w.chunk),
    ['data: a\n\n'],
    'nothing written after the end',
  );
});
