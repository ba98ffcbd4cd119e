// A Responses client sends the whole previous output back as input (Codex does): the gateway's
// `web_search_call` items among it reach the upstream as calls of the web_search function the
// gateway offers in place of the hosted tool, with their query and source URLs, so no upstream meets a
// hosted-search item it never made — on a Responses deployment (which would otherwise receive the item
// itself) and on a Chat deployment.
import t from 'tap';
import { brave, responses, startSearchGateway } from './loop-helpers.js';

for (const model of ['test/responses', 'test/chat']) {
  t.test(`${model}: a searched turn sent back as history`, async (t) => {
    const s = await startSearchGateway({ backends: [brave()] });
    t.teardown(() => s.close());
    const first = await responses(s.gw, { model, input: 'What is new in Node.js?', tools: [{ type: 'web_search' }] });
    t.equal(first.status, 200);
    const output = first.body.output as Record<string, unknown>[];
    const searched = output.filter((i) => i.type === 'web_search_call');
    t.equal(searched.length, 1, 'the first turn searched once');
    const query = (searched[0]!.action as { query: string }).query;
    const url = ((searched[0]!.action as { sources: { url: string }[] }).sources[0]!).url;

    const before = (await s.gw.simRequests()).length;
    const input = [{ role: 'user', content: 'What is new in Node.js?' }, ...output, { role: 'user', content: 'And in Deno?' }];
    const second = await responses(s.gw, { model, input, tools: [{ type: 'web_search' }] });
    t.equal(second.status, 200, JSON.stringify(second.body));
    const sent = JSON.stringify((await s.gw.simRequests())[before]!.body);
    t.notMatch(sent, /web_search_call/, 'no hosted-search item goes upstream');
    t.match(sent, query, 'the past query is in the history the model sees');
    t.match(sent, url, 'and its source URL');
    t.match(sent, /web_search/, 'as a call of the offered function');
  });
}
