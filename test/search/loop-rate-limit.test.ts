// Tokens-per-minute limits and the search loop (decisions §11), through bin/gateway and the simulated
// search backend. Each round of a loop the gateway runs is another upstream call whose tokens the
// key's limit counts: at admission the request counts every round it may make (the bound its
// reservation holds), and when it ends that count is replaced by the tokens every round used. The
// count is read where a client reads it: `x-ratelimit-remaining-tokens` on a key with a full bucket.
import t from 'tap';
import { brave, startSearchGateway, type SearchGateway } from './loop-helpers.js';

/** tokens per minute: one token back per millisecond, so the refill during a test stays small */
const TPM = 60_000;
const MAX_ROUNDS = 3;
const KEYS = { plain: 'sk-test-tpm-plain-0001', search: 'sk-test-tpm-search-0001', messages: 'sk-test-tpm-msgs-0001' } as const;

let s: SearchGateway;
t.before(async () => {
  s = await startSearchGateway(
    { backends: [brave()], maxSearches: 1, maxRounds: MAX_ROUNDS, maxResults: 1, snippetChars: 200 },
    {
      orgs: [{ id: 'acme', credits: 100 }],
      keys: Object.entries(KEYS).map(([id, key]) => ({ id, key, org: 'acme', rateLimit: { tpm: TPM } })),
    },
  );
});
t.teardown(() => s.close());

interface Asked {
  status: number;
  /** the key's tokens left after this request was admitted */
  remaining: number;
  /** tokens the answer reports, every round summed */
  used: number;
  at: number;
}

async function ask(key: string, search: boolean): Promise<Asked> {
  const at = Date.now();
  const body = { model: 'test/chat', input: 'river levels today', max_output_tokens: 200, ...(search ? { tools: [{ type: 'web_search' }] } : {}) };
  const res = await fetch(`${s.gw.url}/v1/responses`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` }, body: JSON.stringify(body) });
  const json = (await res.json()) as { usage?: { input_tokens: number; output_tokens: number }; output?: { type: string }[] };
  if (search && !json.output?.some((i) => i.type === 'web_search_call')) throw new Error(`no search ran: ${JSON.stringify(json)}`);
  return { status: res.status, remaining: Number(res.headers.get('x-ratelimit-remaining-tokens')), used: (json.usage?.input_tokens ?? 0) + (json.usage?.output_tokens ?? 0), at };
}

t.test('a search request counts every round it may make at admission, and the tokens of every round after', async (t) => {
  const plain = await ask(KEYS.plain, false);
  t.equal(plain.status, 200);
  const onePass = TPM - plain.remaining;
  t.ok(onePass > 200, `one upstream call counted: ${onePass} tokens`);

  const searched = await ask(KEYS.search, true);
  t.equal(searched.status, 200);
  const counted = TPM - searched.remaining;
  t.ok(counted >= MAX_ROUNDS * onePass, `the search request counted ${counted} tokens at admission: at least ${MAX_ROUNDS} rounds of ${onePass}`);
  t.ok(searched.used > plain.used, `its answer reports every round's tokens: ${searched.used}, against ${plain.used} for one call`);

  // settled: the count at admission is replaced by the tokens the rounds used
  const next = await ask(KEYS.search, false);
  const expected = TPM - searched.used - onePass;
  const refilled = Date.now() - searched.at + 1;
  t.ok(next.remaining >= expected && next.remaining <= expected + refilled, `after it ended the key has ${next.remaining} tokens left: ${TPM} − ${searched.used} used − ${onePass} counted now (+ up to ${refilled} refilled)`);
});

t.test('Messages with the hosted web search tool on a model the gateway searches for: every round counted too', async (t) => {
  const res = await fetch(`${s.gw.url}/v1/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'anthropic-version': '2023-06-01', 'x-api-key': KEYS.messages },
    body: JSON.stringify({ model: 'test/chat', max_tokens: 200, messages: [{ role: 'user', content: 'river levels today' }], tools: [{ type: 'web_search_20250305', name: 'web_search', max_uses: 1 }] }),
  });
  const json = (await res.json()) as { content?: { type: string }[] };
  t.equal(res.status, 200);
  t.ok(json.content?.some((b) => b.type === 'web_search_tool_result'), 'the gateway ran the search');
  const counted = TPM - Number(res.headers.get('anthropic-ratelimit-tokens-remaining'));
  t.ok(counted >= MAX_ROUNDS * 200, `${counted} tokens counted: at least ${MAX_ROUNDS} rounds of the output ceiling`);
});
