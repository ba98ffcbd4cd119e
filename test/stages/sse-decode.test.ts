// sse-decode: upstream body bytes → one message per SSE event, or one JSON message at the end. Every
// recorded upstream body of every dialect is fed whole, byte by byte and in random chunks, with the
// upstream note (SSE or JSON as the deployment said) and without it (the first byte decides): the
// messages are the same each time. Then its refusals: bad UTF-8, an event or body over its bound.
import t from 'tap';
import type { UpstreamMessage } from '../../lib/chunks.js';
import type { ChainNote, Upstream } from '../../lib/notes.js';
import { offlineContext } from '../../lib/offline-context.js';
import { sseDecode, type SseDecodeOptions } from '../../stages/sse-decode.js';
import { failed, recorded, run, sameForEveryFeeding, type Run } from './harness.js';

const ctx = offlineContext({ reqId: 'req_sse_decode' });
const DIALECTS = ['anthropic', 'openai-chat', 'openai-responses', 'openai-transcriptions', 'errors'];

function upstream(stream: boolean): ChainNote {
  const u: Upstream = { id: 'up', protocol: 'anthropic', api: 'messages', upstreamModel: 'm', stream, timing: { sentAt: 0 } };
  return { note: 'upstream', upstream: u };
}

function decode(chunks: Buffer[], note?: ChainNote, opts: SseDecodeOptions = {}): Promise<Run<UpstreamMessage>> {
  return run(sseDecode(opts), note ? [note, ...chunks] : chunks, ctx);
}

/** The events of an SSE text, read independently: blocks separated by a blank line that carry data. */
function eventCount(text: string): number {
  return text.split(/\r?\n\r?\n/).filter((block) => /^data:/m.test(block)).length;
}

t.test('every recorded SSE body, every dialect: one message per event, the same however it is chunked', async (t) => {
  for (const dir of DIALECTS) {
    for (const { name, bytes } of recorded(dir, '.sse')) {
      const told = await sameForEveryFeeding(t, bytes, `${name} (upstream said SSE)`, (chunks) => decode(chunks, upstream(true)));
      const auto = await sameForEveryFeeding(t, bytes, `${name} (no upstream note: auto)`, (chunks) => decode(chunks));
      t.equal(told.error, undefined, `${name} decodes`);
      t.same(auto.values, told.values, `${name}: auto decides SSE too`);
      t.equal(told.values.length, eventCount(bytes.toString()), `${name}: one message per event`);
      t.ok(told.values.every((m) => m.kind === 'sse'), `${name}: all SSE messages`);
      if (dir === 'anthropic') {
        // Anthropic names every event after its data's `type`
        t.ok(told.values.every((m) => m.kind === 'sse' && JSON.parse(m.data).type === m.event), `${name}: event names match their data`);
      }
    }
  }
});

t.test('every recorded JSON body: one json message with the exact text, at the end', async (t) => {
  for (const dir of DIALECTS) {
    for (const { name, bytes } of recorded(dir, '.json')) {
      const told = await sameForEveryFeeding(t, bytes, `${name} (upstream said JSON)`, (chunks) => decode(chunks, upstream(false)));
      const auto = await sameForEveryFeeding(t, bytes, `${name} (auto)`, (chunks) => decode(chunks));
      t.same(told.values, [{ kind: 'json', body: bytes.toString() }], name);
      t.same(auto.values, told.values, `${name}: auto decides JSON from the first byte`);
    }
  }
  const stage = sseDecode();
  t.equal(stage.step(Buffer.from('{"a":'), ctx), undefined, 'a JSON body outputs nothing before the end');
  t.same(stage.flush!(ctx), [{ kind: 'json', body: '{"a":' }], 'and all of it at the end (integrity parses it)');
});

t.test('auto mode: leading whitespace and a BOM are held until a byte decides', async (t) => {
  const sse = Buffer.from('\n\r\n\nevent: ping\ndata: {}\n\n');
  const got = await sameForEveryFeeding(t, sse, 'auto whitespace sse', (chunks) => decode(chunks));
  t.same(got.values, [{ kind: 'sse', event: 'ping', data: '{}' }]);
  const json = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('  [1]')]);
  const j = await sameForEveryFeeding(t, json, 'auto bom json', (chunks) => decode(chunks));
  t.same(j.values, [{ kind: 'json', body: '  [1]' }], 'JSON after a BOM (the decoder drops the BOM)');
  t.same((await decode([])).values, [], 'an empty body is an empty event stream');
  t.same((await decode([], upstream(false))).values, [{ kind: 'json', body: '' }], 'an empty JSON body reaches the decoder (which refuses it)');
});

t.test('a multi-byte character split anywhere decodes the same', async (t) => {
  const bytes = Buffer.from('event: x\ndata: {"t":"é✓🙂 done"}\n\nevent: y\ndata: 2\n\n');
  const got = await sameForEveryFeeding(t, bytes, 'utf8 split', (chunks) => decode(chunks, upstream(true)));
  t.same(got.values, [
    { kind: 'sse', event: 'x', data: '{"t":"é✓🙂 done"}' },
    { kind: 'sse', event: 'y', data: '2' },
  ]);
});

t.test('CRLF and CR line ends, split between chunks, read as LF does', async (t) => {
  for (const [name, eol] of [['crlf', '\r\n'], ['cr', '\r']] as const) {
    const bytes = Buffer.from(`event: a${eol}data: 1${eol}${eol}: comment${eol}event: b${eol}data: 2${eol}data: 3${eol}${eol}`);
    const got = await sameForEveryFeeding(t, bytes, `sse ${name}`, (chunks) => decode(chunks, upstream(true)));
    t.same(got.values, [
      { kind: 'sse', event: 'a', data: '1' },
      { kind: 'sse', event: 'b', data: '2\n3' },
    ], name);
    // an event cut short (no blank line after it) is still dropped, as the SSE format says
    const cut = await sameForEveryFeeding(t, Buffer.from(`data: 1${eol}${eol}data: 2${eol}`), `sse ${name} cut`, (chunks) => decode(chunks, upstream(true)));
    t.same(cut.values, [{ kind: 'sse', event: undefined, data: '1' }], `${name}: the unfinished event is not dispatched`);
  }
});

t.test('refusals are GW_ERR_INTEGRITY (inference had begun), the same for every chunking', async (t) => {
  const badUtf8 = Buffer.concat([Buffer.from('data: {"t":"'), Buffer.from([0xc3, 0x28]), Buffer.from('"}\n\n')]);
  const e1 = await sameForEveryFeeding(t, badUtf8, 'bad utf8 sse', (chunks) => decode(chunks, upstream(true)));
  t.match(failed(e1), { code: 'GW_ERR_INTEGRITY', status: 502, message: /event stream is not valid UTF-8/, providerWork: true });

  const e2 = await sameForEveryFeeding(t, Buffer.from([0x7b, 0xff, 0x7d]), 'bad utf8 json', (chunks) => decode(chunks, upstream(false)));
  t.match(failed(e2), { code: 'GW_ERR_INTEGRITY', message: /response body is not valid UTF-8/ });

  const big = Buffer.from(`data: ${'x'.repeat(200)}\n\n`);
  const e3 = await sameForEveryFeeding(t, big, 'event too large', (chunks) => decode(chunks, upstream(true), { maxEventSize: 100 }));
  t.match(failed(e3), { code: 'GW_ERR_INTEGRITY', message: /an event exceeds the maximum size of 100 characters/ });
  const fits = await decode([big], upstream(true), { maxEventSize: 300 });
  t.equal(fits.values.length, 1, 'an event within the bound passes');

  const body = Buffer.from(JSON.stringify({ text: 'y'.repeat(200) }));
  const e4 = await sameForEveryFeeding(t, body, 'json too large', (chunks) => decode(chunks, upstream(false), { maxJsonBytes: 100 }));
  t.match(failed(e4), { code: 'GW_ERR_INTEGRITY', message: /response body exceeds 100 bytes/ });
});

t.test('the mode option overrides the upstream note', async (t) => {
  const bytes = Buffer.from('{"not":"sse"}');
  const got = await decode([bytes], upstream(false), { mode: () => 'sse' });
  t.same(got.values, [], 'read as SSE, a JSON text holds no event');
  const j = await decode([Buffer.from('data: 1\n\n')], upstream(true), { mode: () => 'json' });
  t.same(j.values, [{ kind: 'json', body: 'data: 1\n\n' }]);
});
