// Refusals before any provider work, through the real bin/gateway: insufficient credits and a
// blocking spend cap at each level (key, environment, project, organization) are 402 `billing_error`
// on Messages and 402 `insufficient_credits` / `spend_cap_exceeded` (naming the level) on Chat
// Completions; the provider is never called and nothing is held or charged. And a model without a
// price is a configuration error at start.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import t from 'tap';
import { startGateway } from '../helpers/gateway.js';
import { eventually } from '../helpers/messages.js';
import { ROOT } from '../helpers/paths.js';
import { billModel, chatHeaders, fileStoreConfig, headersFor, LedgerView, localRequestId, TEST_KEY } from '../helpers/billing.js';

const MODELS = [
  billModel('bill/demo', 'claude-bill'),
  // answers after 2.5 s (below the provider's 3 s header timeout)
  billModel('bill/late', 'fault:slow;ms=2500'),
];
// one bill/demo request with max_tokens 64 reserves about $0.00075; these caps are below that
const SMALL = 0.0001;

const KEYS = {
  broke: 'sk-billing-broke-0001',
  tiny: 'sk-billing-tiny-0001',
  key: 'sk-billing-capkey-0001',
  keyAfterSpend: 'sk-billing-capspent-0001',
  environment: 'sk-billing-capenv-0001',
  project: 'sk-billing-capproj-0001',
  organization: 'sk-billing-caporg-0001',
};

const store = fileStoreConfig(MODELS, {
  orgs: [
    { id: 'acme', credits: 100, projects: [{ id: 'web', environments: [{ id: 'production' }] }] },
    { id: 'broke', credits: 0 },
    { id: 'tiny', credits: SMALL },
    {
      id: 'capped',
      credits: 100,
      projects: [
        { id: 'p-env', environments: [{ id: 'e-capped', spendCap: SMALL }] },
        { id: 'p-capped', spendCap: SMALL, environments: [{ id: 'e-free' }] },
        { id: 'p-free', environments: [{ id: 'e-free' }] },
      ],
    },
    { id: 'capped-org', credits: 100, spendCap: SMALL },
  ],
  keys: [
    { id: 'full', key: TEST_KEY, org: 'acme', project: 'web', environment: 'production' },
    { id: 'k-broke', key: KEYS.broke, org: 'broke' },
    { id: 'k-tiny', key: KEYS.tiny, org: 'tiny' },
    { id: 'k-capkey', key: KEYS.key, org: 'capped', project: 'p-free', environment: 'e-free', spendCap: SMALL },
    { id: 'k-capspent', key: KEYS.keyAfterSpend, org: 'capped', project: 'p-free', environment: 'e-free', spendCap: 0.002 },
    { id: 'k-capenv', key: KEYS.environment, org: 'capped', project: 'p-env', environment: 'e-capped' },
    { id: 'k-capproj', key: KEYS.project, org: 'capped', project: 'p-capped', environment: 'e-free' },
    { id: 'k-caporg', key: KEYS.organization, org: 'capped-org' },
  ],
});

const BODY = { model: 'bill/demo', max_tokens: 64, messages: [{ role: 'user', content: 'hello' }] };
/** 100 words echoed back: about 105 output tokens ($0.0011) against a reservation of about $0.0015 */
const WORDY = { model: 'bill/demo', max_tokens: 128, messages: [{ role: 'user', content: Array.from({ length: 100 }, () => 'a').join(' ') }] };

async function messages(url: string, key: string, body: unknown = BODY): Promise<{ status: number; headers: Headers; json: { type?: string; error: { type?: string; code?: string; message: string; param?: string }; request_id?: string } }> {
  const res = await fetch(`${url}/v1/messages`, { method: 'POST', headers: headersFor(key), body: JSON.stringify(body) });
  return { status: res.status, headers: res.headers, json: (await res.json()) as never };
}

async function chat(url: string, key: string): Promise<{ status: number; json: { error: { code: string; message: string; param?: string } } }> {
  const res = await fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: chatHeaders(key),
    body: JSON.stringify({ model: 'openai/gpt-5', max_tokens: 64, messages: [{ role: 'user', content: 'hello' }] }),
  });
  return { status: res.status, json: (await res.json()) as never };
}

t.test('402 refusals on Messages and Chat Completions; no provider call, nothing held or charged', async (t) => {
  const gw = await startGateway(store.config);
  t.teardown(() => gw.stop('SIGKILL'));
  const view = new LedgerView(store.db);
  t.teardown(() => view.close());

  t.test('insufficient credits', async (t) => {
    for (const key of [KEYS.broke, KEYS.tiny]) {
      const m = await messages(gw.url, key);
      t.equal(m.status, 402);
      t.match(m.json, { type: 'error', error: { type: 'billing_error', message: /Insufficient credits/ } });
      t.equal(m.headers.get('request-id'), m.json.request_id, 'the request-id header is the body request_id');
      t.equal(m.headers.get('x-should-retry'), 'false', 'not to be retried blindly');
      const c = await chat(gw.url, key);
      t.equal(c.status, 402);
      t.match(c.json, { error: { code: 'insufficient_credits', message: /Insufficient credits/ } });
    }
  });

  t.test('a spend cap at each level, named in the message', async (t) => {
    const cases: [keyof typeof KEYS, RegExp][] = [
      ['key', /Spend cap of the key k-capkey reached/],
      ['environment', /Spend cap of the environment e-capped of project p-env reached/],
      ['project', /Spend cap of the project p-capped reached/],
      ['organization', /Spend cap of the organization capped-org reached/],
    ];
    for (const [level, message] of cases) {
      const m = await messages(gw.url, KEYS[level]);
      t.equal(m.status, 402, `${level}: Messages 402`);
      t.match(m.json, { type: 'error', error: { type: 'billing_error', message } }, `${level}: billing_error naming the level`);
      const c = await chat(gw.url, KEYS[level]);
      t.equal(c.status, 402, `${level}: Chat 402`);
      t.match(c.json, { error: { code: 'spend_cap_exceeded', message, param: level } }, `${level}: spend_cap_exceeded naming the level`);
    }
  });

  t.test('refusals never reach the provider', async (t) => {
    t.same(
      (await gw.simRequests()).filter((r) => r.path.startsWith('/v1/')),
      [],
      'the simulated provider received nothing',
    );
    t.same(view.reservations(), [], 'nothing held');
    for (const org of ['broke', 'tiny', 'capped', 'capped-org']) t.same(view.usage(org), [], `${org}: no usage recorded`);
    t.match(view.org('capped'), { balance: 100_000_000_000, reserved: 0, spent: 0 });
  });

  t.test('a key cap reached by spending: the first request is served, the next refused', async (t) => {
    const first = await messages(gw.url, KEYS.keyAfterSpend, WORDY);
    t.equal(first.status, 200, 'served while under the cap');
    const row = await view.row('capped', localRequestId(first.headers));
    t.ok(row && row.cost > 0, 'charged');
    // the $0.002 cap minus the first cost leaves less than one more reservation
    const second = await messages(gw.url, KEYS.keyAfterSpend, WORDY);
    t.equal(second.status, 402);
    t.match(second.json.error, { type: 'billing_error', message: /Spend cap of the key k-capspent reached \(cap \$0\.002, spent \$0\.00/ });
    t.equal((await gw.simRequests()).filter((r) => r.path === '/v1/messages').length, 1, 'one provider call: the refused request made none');
    t.same(view.reservations(), []);
  });

  t.test('a client that leaves before the answer: the hold is released, nothing charged', async (t) => {
    const ac = new AbortController();
    const pending = fetch(`${gw.url}/v1/messages`, { method: 'POST', headers: headersFor(TEST_KEY), body: JSON.stringify({ ...BODY, model: 'bill/late' }), signal: ac.signal }).catch((e: Error) => e.name);
    // wait until the provider has the request (the hold was taken before the call)
    const called = await eventually(async () => (await gw.simRequests()).some((r) => (r.body as { model?: string }).model === 'fault:slow;ms=2500'));
    t.ok(called, 'the provider was called');
    t.equal(view.reservations().length, 1, 'held while waiting for the answer');
    const spentBefore = view.org('acme').spent;
    ac.abort();
    t.equal(await pending, 'AbortError');
    const released = await eventually(async () => view.reservations().length === 0);
    t.ok(released, 'the hold ended when the client left');
    const row = view.usage('acme').find((r) => r.model_served === 'bill/late');
    t.match(row, { cost: 0, error_code: 'GW_ERR_CLIENT_CLOSED' }, 'recorded, not charged: no answer, no usage');
    t.equal(view.org('acme').spent, spentBefore, 'nothing spent');
  });
});

t.test('a model without a price is a configuration error at start, naming the path', async (t) => {
  const gateway = join(ROOT, 'dist/bin/gateway.js');
  const cases: [Record<string, unknown>, RegExp][] = [
    [billModel('bill/free', 'claude-bill', { pricing: undefined }), /models\[\d+\]\.pricing: model "bill\/free" has no price/],
    [billModel('bill/half', 'claude-bill', { pricing: { input: 1 } }), /models\[\d+\]\.pricing: model "bill\/half" has no price/],
  ];
  const runs = cases.map(([model]) => {
    const bad = fileStoreConfig([model]);
    return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      const child = spawn(process.execPath, [gateway, '--config', bad.file, '--port', '0'], { cwd: bad.dir, stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
      child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
      const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
      child.once('close', (code) => {
        clearTimeout(timer);
        resolve({ code, stdout, stderr });
      });
    });
  });
  for (const [i, r] of (await Promise.all(runs)).entries()) {
    t.equal(r.code, 1, 'exit 1');
    t.match(r.stderr, cases[i]![1]);
    t.notMatch(r.stdout, /listening/, 'never listened');
  }
});
