// Web search with no network and with no backend (decisions §11): the built-in default answers a
// search request with a cited answer from the simulated search backend it starts on loopback; a
// config with no backend never offers the search function and charges nothing for the hosted tool
// Codex always sends.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { runGateway } from '../helpers/processes.js';
import { answerText, charged, responses, startSearchGateway } from './loop-helpers.js';

t.test('the built-in default: a Responses request with web_search gets a cited answer, no network', async (t) => {
  const gw = await runGateway(mkdtempSync(join(tmpdir(), 'gw-search-default-')));
  t.teardown(() => gw.stop());
  for (const stream of [false, true]) {
    const res = await fetch(`${gw.url}/v1/responses`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer sk-gw-demo-0000' },
      body: JSON.stringify({ model: 'gpt-5', input: 'What is new in Node.js?', tools: [{ type: 'web_search' }], stream }),
    });
    t.equal(res.status, 200);
    const text = await res.text();
    const body = stream ? (JSON.parse(/event: response\.completed\ndata: (.*)/.exec(text)![1]!) as { response: Record<string, unknown> }).response : (JSON.parse(text) as Record<string, unknown>);
    const said = answerText({ status: 200, requestId: null, body, sse: '' });
    t.match(said, /Here is what I found\. Result 1 for What is new in Node\.js\? covers it\./, 'an answer from the simulated results');
    t.notMatch(said, /【|ws_[a-z2-7]{10}/, 'the citation markers are gone');
    t.ok((body.gateway as { cost: number }).cost > 0.01, 'a search with sources plus tokens');
  }
});

for (const [what, webSearch] of [['no webSearch block', null], ['an empty backends list', { backends: [] }]] as const) {
  t.test(`${what}: Codex's web_search tool works and costs nothing`, async (t) => {
    const s = await startSearchGateway(webSearch);
    t.teardown(() => s.close());
    const a = await responses(s.gw, { model: 'test/chat', input: 'hello', tools: [{ type: 'web_search' }, { type: 'function', name: 'shell_exec', parameters: { type: 'object', properties: {} } }], stream: true });
    t.equal(a.status, 200);
    const sent = (await s.gw.simRequests()).map((r) => JSON.stringify(r.body));
    t.equal(sent.length, 1);
    t.notMatch(sent[0], /web_search/, 'the search function is not offered');
    const { row, expected } = await charged(s.ledger, a.requestId);
    t.equal(row.web_searches, 0);
    t.equal(row.cost, expected, 'tokens only');
    t.equal(Math.round((a.body.gateway as { cost: number }).cost * 1e9), row.cost);
    t.equal(s.search.requests.length, 0);
  });
}
