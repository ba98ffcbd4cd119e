// An upstream whose event stream ends its lines with CR alone (allowed by the SSE format) through
// bin/gateway: the client gets the whole answer, its last event included. Before the fix the final
// CR was held back as a possible CRLF, the upstream's message_stop was never decoded, and the client
// got an integrity error instead of the end of its answer.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import { baseConfig, startGateway, withModels } from '../helpers/gateway.js';
import { dataOf, events, msg, parseSse, post } from '../helpers/messages.js';
import { fixture } from '../helpers/paths.js';

const RECORDED = readFileSync(fixture('upstream', 'anthropic', 'text-basic.sse'), 'utf8');
const MODEL = /"model":"([^"]+)"/.exec(RECORDED)![1]!;

/** A loopback upstream answering every Messages call with the recorded stream, in the given line ends. */
async function upstream(eol: string): Promise<{ url: string; close: () => Promise<void> }> {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'request-id': 'req_cr_upstream' });
      res.end(RECORDED.replaceAll('\n', eol));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

for (const [name, eol] of [['CR', '\r'], ['CRLF', '\r\n'], ['LF', '\n']] as const) {
  t.test(`an upstream stream with ${name} line ends reaches the client whole`, async (t) => {
    const up = await upstream(eol);
    t.teardown(up.close);
    const base = baseConfig();
    const config = withModels(
      { ...base, providers: [...(base.providers as Record<string, unknown>[]), { id: 'line-ends', protocol: 'anthropic', baseUrl: up.url, apiKey: 'sk-upstream-unused' }] },
      [{ id: 'test/line-ends', family: 'anthropic', deployments: [{ provider: 'line-ends', model: MODEL.replace(/-\d{8}$/, '') }], pricing: { input: 1, output: 1 }, maxOutputTokens: 4096 }],
    );
    const gw = await startGateway(config);
    t.teardown(() => gw.stop());
    const r = await post(gw, msg('test/line-ends', { stream: true }));
    t.equal(r.status, 200);
    const frames = parseSse(r.text);
    t.equal(events(frames).at(-1), 'message_stop', 'the last event arrived');
    t.notOk(events(frames).includes('error'), 'no error frame');
    t.match(dataOf(frames.find((f) => f.event === 'content_block_delta')), { delta: { text: '1\n2\n3' } });
  });
}
