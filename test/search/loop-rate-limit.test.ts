// Tokens-per-minute limits and the search loop (decisions §11), through bin/gateway and the simulated
// search backend. Each further round of a loop the gateway runs is another upstream call whose tokens
// the key's limit counts: admission counts the first call, each further round is counted as it is
// sent (never refused: the answer has begun), and when the request ends every count is replaced by
// the tokens all the rounds used. Read where a client reads it: `x-ratelimit-remaining-tokens`.
import t from 'tap';
import { sleep } from '../helpers/billing.js';
import { baseConfig } from '../helpers/gateway.js';
import { brave, PRICING, startSearchGateway, type SearchGateway } from './loop-helpers.js';

/** tokens per minute: low, so that what refills during a test (1 token per 30 ms) stays below a round's count */
const TPM = 2000;
const refilledWithin = (ms: number): number => Math.ceil((ms * TPM) / 60_000) + 1;
const KEYS = { plain: 'sk-test-tpm-plain-0001', search: 'sk-test-tpm-search-0001' } as const;

let s: SearchGateway;
t.before(async () => {
  s = await startSearchGateway(
    { backends: [brave()], maxSearches: 1, maxRounds: 3, maxResults: 1, snippetChars: 200 },
    {
      orgs: [{ id: 'acme', credits: 100 }],
      keys: Object.entries(KEYS).map(([id, key]) => ({ id, key, org: 'acme', rateLimit: { tpm: TPM } })),
      // a model whose second round takes 2 s (within the test providers' 3 s timeout)
      models: [
        ...(baseConfig().models as Record<string, unknown>[]),
        { id: 'test/slow-2s', family: 'openai', deployments: [{ provider: 'sim-openai', model: 'fault:slow;ms=2000;after-search', api: 'chat' }], pricing: { ...PRICING }, input: ['text'], maxOutputTokens: 4000 },
      ],
    },
  );
});
t.teardown(() => s.close());

interface Asked {
  status: number;
  /** the key's tokens left once this request was admitted */
  remaining: number;
  /** tokens the answer reports, every round summed */
  used: number;
  searched: boolean;
}

async function ask(key: string, model: string, search: boolean): Promise<Asked> {
  const body = { model, input: 'river levels today', max_output_tokens: 200, ...(search ? { tools: [{ type: 'web_search' }] } : {}) };
  const res = await fetch(`${s.gw.url}/v1/responses`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` }, body: JSON.stringify(body) });
  const json = (await res.json()) as { usage?: { input_tokens: number; output_tokens: number }; output?: { type: string }[] };
  return {
    status: res.status,
    remaining: Number(res.headers.get('x-ratelimit-remaining-tokens')),
    used: (json.usage?.input_tokens ?? 0) + (json.usage?.output_tokens ?? 0),
    searched: json.output?.some((i) => i.type === 'web_search_call') === true,
  };
}

t.test('each further round is counted as it is sent, and every round\'s tokens once the request ends', async (t) => {
  const plain = await ask(KEYS.plain, 'test/chat', false);
  t.equal(plain.status, 200);
  const onePass = TPM - plain.remaining; // what a plain request counts at admission

  // a search whose second round the model takes 2 s to answer
  await s.gw.clearSim();
  const started = Date.now();
  const slow = ask(KEYS.search, 'test/slow-2s', true);
  const rounds = async (): Promise<number> => (await s.gw.simRequests()).filter((r) => JSON.stringify(r.body).includes('fault:slow')).length;
  for (const deadline = Date.now() + 1500; Date.now() < deadline; await sleep(20)) if ((await rounds()) >= 2) break;
  t.equal(await rounds(), 2, 'the second round was sent');
  const during = await ask(KEYS.search, 'test/chat', false);
  const duringAt = Date.now();
  const searched = await slow;
  t.equal(searched.status, 200, `the search answered (${JSON.stringify(searched)})`);
  t.ok(searched.searched, 'the gateway ran the search');
  const admitted = TPM - searched.remaining; // the first round, counted at admission
  const countedBefore = TPM - during.remaining - onePass;
  // the second round reads all the first one did and the results: it counts at least as much
  t.ok(
    countedBefore + refilledWithin(duringAt - started) >= 2 * admitted,
    `while its second round ran, the search request had ${countedBefore} tokens counted: its admission (${admitted}) and the round sent since`,
  );

  // both ended: the counts are replaced by what the rounds and the plain request used
  const after = await ask(KEYS.search, 'test/chat', false);
  const expected = TPM - searched.used - during.used - onePass;
  const slack = refilledWithin(Date.now() - started);
  t.ok(after.remaining >= expected && after.remaining <= expected + slack, `then ${after.remaining} tokens left: ${TPM} − ${searched.used} used by the search − ${during.used} by the other − ${onePass} counted now (+ up to ${slack} refilled)`);
});
