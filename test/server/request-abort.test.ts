// The request's cancellation without an AbortController (lib/request-abort.ts): it must behave as the
// AbortSignal it replaces for the waits that watch it, and a real signal made late must still abort.
import t from 'tap';
import { RequestAbort } from '../../lib/request-abort.js';

t.test('listeners run once, with the reason already set; a removed one does not run', async (t) => {
  const a = new RequestAbort();
  const seen: unknown[] = [];
  const gone = (): void => void seen.push('removed');
  a.addEventListener('abort', () => seen.push([a.aborted, a.reason]), { once: true });
  a.addEventListener('abort', gone);
  a.removeEventListener('abort', gone);
  a.abort('why');
  a.abort('again');
  t.same(seen, [[true, 'why']]);
  t.equal(a.reason, 'why', 'the first reason stays');
  a.addEventListener('abort', () => seen.push('late'));
  t.same(seen, [[true, 'why']], 'a listener added after the abort never runs (as on an aborted AbortSignal)');
});

t.test('the real signal follows, made before or after the abort', async (t) => {
  const early = new RequestAbort();
  const signal = early.signal;
  t.equal(early.signal, signal, 'one signal per request');
  t.notOk(signal.aborted);
  early.abort('first');
  t.ok(signal.aborted);
  t.equal(signal.reason, 'first');
  const late = new RequestAbort();
  late.abort();
  t.ok(late.signal.aborted, 'made after the abort: already aborted');
  t.equal((late.reason as DOMException).name, 'AbortError', 'no reason: an AbortError, as AbortController gives');
  t.equal(late.signal.reason, late.reason);
});

t.test('a listener that throws does not stop the others', async (t) => {
  const a = new RequestAbort();
  const ran: string[] = [];
  const uncaught = new Promise<unknown>((resolve) => process.once('uncaughtException', resolve));
  a.addEventListener('abort', () => {
    throw new Error('listener failed');
  });
  a.addEventListener('abort', () => void ran.push('second'));
  a.abort();
  t.same(ran, ['second']);
  t.match(await uncaught, { message: 'listener failed' }, 'reported as uncaught, as an EventTarget does');
});
