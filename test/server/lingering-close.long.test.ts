// A request refused before its body was read (413, file_too_large) is answered with
// `connection: close` and a lingering close, through real TCP against bin/gateway: a client that is
// still sending reads the whole answer and may keep sending for a while without a reset (EPIPE /
// ECONNRESET); it then closes cleanly, or the gateway cuts it after the linger time. The gateway serves
// the next connection as before.
import { connect, type Socket } from 'node:net';
import t from 'tap';
import { baseConfig, messagesHeaders, startGateway, type RunningGateway } from '../helpers/gateway.js';
import { errorOf } from '../helpers/http.js';
import { startTranscriptionGateway, type TranscriptionGateway } from '../transcriptions/transcription-gateway.js';
import { AUTH, PATH } from '../transcriptions/helpers.js';

const MiB = 1024 * 1024;
let gw: RunningGateway;
let tg: TranscriptionGateway;
t.before(async () => {
  gw = await startGateway(baseConfig());
  tg = await startTranscriptionGateway();
});
t.teardown(async () => {
  await gw?.stop();
  await tg?.stop();
});

interface Refused {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** bytes the client sent after the whole answer had arrived, all without an error */
  sentAfter: number;
  /** the first socket error, if any, and whether the answer had been read by then */
  error?: { code: string; afterAnswer: boolean };
  /** the client had ended its side when the connection closed (else the gateway cut it) */
  clientEnded: boolean;
}

/**
 * Send `head` and then body bytes (chunked) without stopping; once the whole answer has arrived, send
 * `after` bytes more (Infinity: until the connection is cut), then end our side and wait for close.
 */
function refusedUpload(url: string, path: string, headers: Record<string, string>, first: Buffer, after: number): Promise<Refused> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket: Socket = connect({ host: hostname, port: Number(port), allowHalfOpen: true });
    const out: Refused = { status: 0, headers: {}, body: '', sentAfter: 0, clientEnded: false };
    let received = Buffer.alloc(0);
    let answered = false;
    const block = Buffer.alloc(256 * 1024, 0x20);
    const frame = (b: Buffer): Buffer => Buffer.concat([Buffer.from(`${b.length.toString(16)}\r\n`), b, Buffer.from('\r\n')]);
    const chunk = frame(block);
    socket.on('data', (d: Buffer) => {
      if (answered) return;
      received = Buffer.concat([received, d]);
      const end = received.indexOf('\r\n\r\n');
      if (end < 0) return;
      const lines = received.subarray(0, end).toString('latin1').split('\r\n');
      const length = Number(/^content-length: (\d+)$/im.exec(lines.join('\n'))?.[1] ?? NaN);
      if (received.length < end + 4 + length) return;
      answered = true;
      out.status = Number(lines[0]!.split(' ')[1]);
      for (const line of lines.slice(1)) {
        const i = line.indexOf(':');
        out.headers[line.slice(0, i).toLowerCase()] = line.slice(i + 1).trim();
      }
      out.body = received.subarray(end + 4, end + 4 + length).toString('utf8');
    });
    socket.on('error', (err: NodeJS.ErrnoException) => {
      out.error ??= { code: err.code ?? err.message, afterAnswer: answered };
    });
    socket.on('close', () => resolve(out));
    const pump = (): void => {
      while (!socket.destroyed && !out.clientEnded) {
        if (answered && out.sentAfter >= after) {
          out.clientEnded = true;
          socket.end();
          return;
        }
        if (answered && after === Infinity) {
          // a steady sender after the answer (one block every 20 ms), not a loopback flood
          out.sentAfter += block.length;
          socket.write(chunk, () => setTimeout(pump, 20));
          return;
        }
        if (answered) out.sentAfter += block.length;
        if (!socket.write(chunk)) {
          socket.once('drain', pump);
          return;
        }
      }
    };
    const lines = [`POST ${path} HTTP/1.1`, `host: ${hostname}:${port}`, 'transfer-encoding: chunked', ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`)];
    socket.write(`${lines.join('\r\n')}\r\n\r\n`);
    socket.write(frame(first));
    pump();
  });
}

const messagesStart = Buffer.from('{"model":"claude-opus-5","max_tokens":16,"messages":[{"role":"user","content":"');

t.test('a 413 mid-upload: the client reads the answer, keeps sending 16 MiB without a reset, then closes cleanly', async (t) => {
  const r = await refusedUpload(gw.url, '/v1/messages', messagesHeaders(), messagesStart, 16 * MiB);
  t.equal(r.status, 413);
  t.equal(errorOf(r.body).type, 'request_too_large');
  t.equal(r.headers.connection, 'close', 'the answer says the connection closes');
  t.equal(r.error, undefined, 'no EPIPE or ECONNRESET: the gateway read and dropped what came after its answer');
  t.equal(r.sentAfter, 16 * MiB);
  t.ok(r.clientEnded, 'the connection closed after the client ended its side');
});

t.test('a client that never stops sending is cut after the linger time, after it has read the answer', async (t) => {
  const r = await refusedUpload(gw.url, '/v1/messages', messagesHeaders(), messagesStart, Infinity);
  t.equal(r.status, 413);
  t.notOk(r.clientEnded, 'the gateway cut the connection');
  t.ok(r.sentAfter > 0, `the client went on sending after the answer (${r.sentAfter} bytes)`);
  if (r.error !== undefined) t.ok(r.error.afterAnswer, `the reset (${r.error.code}) came only after the answer had been read`);
  const next = await fetch(`${gw.url}/api/hello`, { method: 'HEAD' });
  t.equal(next.status, 204, 'the gateway serves the next connection');
});

t.test('file_too_large mid-upload closes the same way', async (t) => {
  const B = 'linger-boundary-1';
  const head = Buffer.from(`--${B}\r\nContent-Disposition: form-data; name="model"\r\n\r\nwhisper-1\r\n--${B}\r\nContent-Disposition: form-data; name="file"; filename="big.mp3"\r\nContent-Type: audio/mpeg\r\n\r\n`);
  const r = await refusedUpload(tg.url, PATH, { ...AUTH, 'content-type': `multipart/form-data; boundary=${B}` }, head, 8 * MiB);
  t.equal(r.status, 400);
  t.equal(errorOf(r.body).code, 'file_too_large');
  t.equal(r.headers.connection, 'close');
  t.equal(r.error, undefined, 'no reset while the client was still sending');
  t.ok(r.clientEnded);
});
