// The search loop through bin/gateway (decisions §11): a Responses or Messages request with a hosted
// web search tool, on an upstream of each dialect, is offered a `web_search` function; its calls run
// against the (simulated) search backend, the results go back as tool results, and the client gets
// one answer from the next round, cited, billed once per search with a source.
import t from 'tap';
import { answerText, brave, charged, messages, reportedUnits, responses, SEARCH_PRICE_UNITS, startSearchGateway, type SearchGateway } from './loop-helpers.js';

let s: SearchGateway;
t.before(async () => {
  s = await startSearchGateway({ backends: [brave()], maxSearches: 2, maxRounds: 3 });
});
t.teardown(() => s.close());

/** The upstream requests of the last test, and the searches it ran. */
async function traffic(): Promise<{ bodies: Record<string, unknown>[]; searches: number }> {
  const reqs = await s.gw.simRequests();
  return { bodies: reqs.filter((r) => r.path !== '/_sim/requests').map((r) => r.body), searches: s.search.requests.length };
}

async function reset(): Promise<void> {
  await s.gw.clearSim();
  s.search.reset();
}

const SEARCH = [{ type: 'web_search' }];

for (const [model, upstream] of [['test/chat', 'OpenAI Chat'], ['test/responses', 'OpenAI Responses'], ['test/messages', 'Anthropic']] as const) {
  for (const stream of [false, true]) {
    t.test(`Responses client, ${upstream} upstream, ${stream ? 'streaming' : 'JSON'}: one cited answer from two rounds`, async (t) => {
      await reset();
      const a = await responses(s.gw, { model, input: 'node release notes', tools: SEARCH, stream });
      t.equal(a.status, 200);
      const text = answerText(a);
      t.match(text, /Here is what I found\. Result 1 for node release notes covers it\./, 'the second round answers from the results');
      t.notMatch(text, /【|】|ws_[a-z2-7]{10}/, 'no citation marker reaches the client');
      t.notMatch(JSON.stringify(a.body.output ?? []), /"function_call"/, 'the search call is not the client\'s');
      const { bodies, searches } = await traffic();
      t.equal(bodies.length, 2, 'two model rounds');
      t.equal(searches, 1, 'one search ran');
      const first = JSON.stringify(bodies[0]);
      t.match(first, /"web_search"/, 'round 1 offers the web_search function');
      t.notMatch(first, /web_search_preview|"type":"web_search"/, 'not the hosted tool');
      const second = JSON.stringify(bodies[1]);
      t.match(second, /\[web_search result\] query: \\"node release notes\\"/, 'round 2 carries the result');
      t.match(second, /1\. id: ws_[a-z2-7]{10}/, 'with result ids');
      t.match(second, /Cite the search results you use/, 'and the citation instructions');
      const { row, expected } = await charged(s.ledger, a.requestId);
      t.equal(row.web_searches, 1);
      t.equal(row.cost, expected, 'ledger: tokens + 1 search');
      t.equal(reportedUnits(a), row.cost, 'gateway.cost is the charge');
      t.ok(row.cost > SEARCH_PRICE_UNITS, 'tokens on top of the search');
      const usage = a.body.usage as { input_tokens: number };
      t.equal(usage.input_tokens, row.input_tokens, 'usage summed over rounds, snippets included');
    });
  }
}

for (const [model, upstream, stream] of [['test/chat', 'Chat', false], ['test/chat', 'Chat', true], ['test/responses', 'Responses', true]] as const) {
  t.test(`Messages client, hosted web_search on a ${upstream} deployment, ${stream ? 'streaming' : 'JSON'}`, async (t) => {
    await reset();
    const a = await messages(s.gw, { model, max_tokens: 500, stream, messages: [{ role: 'user', content: 'tide tables' }], tools: [{ type: 'web_search_20250305', name: 'web_search', max_uses: 3 }] });
    t.equal(a.status, 200);
    t.match(answerText(a), /Result 1 for tide tables covers it\./);
    t.notMatch(answerText(a), /【|ws_[a-z2-7]{10}/);
    if (stream) t.equal(a.body.starts, 1, 'one message_start');
    t.equal((a.body.delta as { stop_reason: string } | undefined)?.stop_reason ?? a.body.stop_reason, 'end_turn');
    t.notMatch(a.sse + JSON.stringify(a.body.content ?? []), /"tool_use"/, 'no client tool_use for the search');
    const usage = a.body.usage as { input_tokens: number; server_tool_use?: { web_search_requests: number } };
    t.equal(usage.server_tool_use?.web_search_requests, 1);
    const { bodies, searches } = await traffic();
    t.equal(bodies.length, 2);
    t.equal(searches, 1);
    t.match(JSON.stringify(bodies[1]), upstream === 'Chat' ? /"role":"tool"/ : /"type":"function_call_output"/, 'the upstream gets the results as its tool results');
    const { row, expected } = await charged(s.ledger, a.requestId);
    t.equal(row.web_searches, 1);
    t.equal(row.cost, expected);
    t.equal(usage.input_tokens, row.input_tokens);
  });
}

t.test('Messages client on an Anthropic deployment: the hosted tool goes through, the gateway runs no search', async (t) => {
  await reset();
  await messages(s.gw, { model: 'test/messages', max_tokens: 200, messages: [{ role: 'user', content: 'hi' }], tools: [{ type: 'web_search_20250305', name: 'web_search', max_uses: 3 }] });
  const { bodies, searches } = await traffic();
  t.equal(searches, 0);
  t.match(JSON.stringify(bodies[0]), /"type":"web_search_20250305"/);
});

t.test('maxRounds: the last round is told it cannot search, its search call is dropped and not billed', async (t) => {
  await reset();
  // the model searches three times, one round each; maxSearches 2, maxRounds 3
  const a = await responses(s.gw, { model: 'test/chat-3', input: 'moon phases', tools: SEARCH });
  t.equal(a.status, 200);
  const { bodies, searches } = await traffic();
  t.equal(searches, 2, 'two searches ran');
  t.equal(bodies.length, 3, 'the third round is the last');
  t.match(JSON.stringify(bodies[2]), /No further searches can run for this request: answer now\./);
  const { row, expected } = await charged(s.ledger, a.requestId);
  t.equal(row.web_searches, 2);
  t.equal(row.cost, expected);
  t.equal(reportedUnits(a), row.cost);
  t.notMatch(JSON.stringify(a.body.output), /function_call/, 'the last round\'s search call is dropped');
  t.equal(a.body.status, 'completed');
});

t.test('Messages max_uses bounds the searches below maxSearches', async (t) => {
  await reset();
  const a = await messages(s.gw, { model: 'test/chat-3', max_tokens: 300, messages: [{ role: 'user', content: 'eclipses' }], tools: [{ type: 'web_search_20250305', name: 'web_search', max_uses: 1 }] });
  t.equal(a.status, 200);
  const { bodies, searches } = await traffic();
  t.equal(searches, 1);
  t.match(JSON.stringify(bodies[2]), /this request has used all the searches it may run/);
  const { row, expected } = await charged(s.ledger, a.requestId);
  t.equal(row.web_searches, 1);
  t.equal(row.cost, expected);
});

t.test('a client tool named in the prompt: its call is returned, no search runs', async (t) => {
  await reset();
  const a = await responses(s.gw, { model: 'test/chat', input: 'use lookup please', tools: [...SEARCH, { type: 'function', name: 'lookup', parameters: { type: 'object', properties: { q: { type: 'string' } } } }] });
  t.equal(a.status, 200);
  t.match(JSON.stringify(a.body.output), /"type":"function_call".*"name":"lookup"/);
  const { searches, bodies } = await traffic();
  t.equal(searches, 0);
  t.equal(bodies.length, 1);
});

for (const stream of [false, true]) {
  t.test(`a turn with a search call and a client call returns the client call, runs no search (${stream ? 'streaming' : 'JSON'})`, async (t) => {
    await reset();
    const lookup = { type: 'function', name: 'lookup', parameters: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] } };
    const a = await responses(s.gw, { model: 'test/mixed', input: 'bus times', tools: [...SEARCH, lookup], stream });
    t.equal(a.status, 200);
    const output = a.body.output as { type: string; name?: string }[];
    t.same(output.map((i) => [i.type, i.name]), [['function_call', 'lookup']], 'only the client\'s call');
    const { bodies, searches } = await traffic();
    t.equal(searches, 0);
    t.equal(bodies.length, 1);
    const { row, expected } = await charged(s.ledger, a.requestId);
    t.equal(row.web_searches, 0);
    t.equal(row.cost, expected);
  });
}

t.test('gateway-auto with web_search as the only tool goes to a webSearch model, which searches', async (t) => {
  await reset();
  const a = await responses(s.gw, { model: 'gateway-auto', input: 'weather in Lyon', tools: SEARCH });
  t.equal(a.status, 200);
  t.equal((a.body.gateway as { routed_model: string }).routed_model, 'test/search-only');
  t.equal((await traffic()).searches, 1);
});

t.test('a reasoning Responses request on an Anthropic upstream: round 2 replays the signed thinking', async (t) => {
  await reset();
  const a = await responses(s.gw, { model: 'test/messages', input: 'star charts', tools: SEARCH, reasoning: { effort: 'medium' } });
  t.equal(a.status, 200);
  t.match(answerText(a), /Result 1 for star charts covers it\./);
  const { bodies } = await traffic();
  const assistant = (bodies[1]!.messages as { role: string; content: { type: string; signature?: string }[] }[]).find((m) => m.role === 'assistant')!;
  t.same(assistant.content.map((b) => b.type), ['thinking', 'tool_use'], 'thinking, then the search call');
  t.ok(assistant.content[0]!.signature, 'signed as the model signed it');
});
