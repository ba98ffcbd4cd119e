// The dashboard in real headless Chromium (Debian's /usr/bin/chromium, playwright-core) against
// the real bin/gateway with an admin key and the simulated providers: a wrong admin key is refused
// with the API's message; the operator signs in, adds credits (a correction below zero refused,
// naming the field), sees a bad cap refused likewise, creates a key (its secret shown once and
// copied); the test spends with that key on /v1/messages, /v1/chat/completions and /v1/responses
// (and gateway-auto); the requests, their costs (what Chat and Responses told the client; Messages
// at the model's price for the tokens it reported), the routing decision and the spend totals
// appear; the operator revokes the key behind a confirmation, and the API refuses it within a
// second; the audit log shows both changes. No request leaves loopback, no console error (a CSP
// violation would be one). Screenshots: .artifacts/dashboard/. Run by `npm run test:browser`
// (GATEWAY_BROWSER_TIER=1).
import t from 'tap';
import type { Page } from 'playwright-core';
import { UNITS_PER_USD } from '../../lib/store/types.js';
import { expectedCost, localRequestId } from '../helpers/billing.js';
import { openBrowser, type BrowserSession } from '../helpers/browser.js';
import { baseConfig, startGateway, type RunningGateway } from '../helpers/gateway.js';
import { eventually } from '../helpers/messages.js';

const tier = process.env.GATEWAY_BROWSER_TIER === '1';
const ADMIN = 'sk-admin-dashboard-test-0001';
const SONNET = { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 };

/** USD as the dashboard shows it: nine decimals (the ledger's nano-dollars), trailing zeros trimmed to two (dashboard/src/dom.ts). */
function usd(n: number): string {
  return `$${n.toFixed(9).replace(/0{1,7}$/, '')}`;
}

/** Click Refresh until `check` holds (the ledger settles in batches), or give up after 5 s. */
async function refreshUntil(page: Page, check: () => Promise<boolean>): Promise<boolean> {
  return Boolean(
    await eventually(async () => {
      await page.getByRole('button', { name: 'Refresh' }).click();
      await page.locator('#busy').waitFor({ state: 'hidden' });
      return check();
    }, 5000, 200),
  );
}

interface Spent {
  requestId: string;
  usd: number;
}

async function apiCall(gw: RunningGateway, path: string, key: string, body: unknown): Promise<{ status: number; headers: Headers; body: any }> {
  const anthropic = path === '/v1/messages';
  const headers: Record<string, string> = anthropic
    ? { 'content-type': 'application/json', 'anthropic-version': '2023-06-01', 'x-api-key': key }
    : { 'content-type': 'application/json', authorization: `Bearer ${key}` };
  const res = await fetch(`${gw.url}${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
  return { status: res.status, headers: res.headers, body: await res.json() };
}

t.test('the dashboard: sign-in, a key created, its spend seen, revoked', { skip: tier ? false : 'the browser tier runs with `npm run test:browser`' }, async (t) => {
  const started = Date.now();
  const gw = await startGateway(baseConfig({ admin: { keys: [ADMIN] } }));
  t.teardown(() => gw.stop());
  const b: BrowserSession = await openBrowser('dashboard', gw.url);
  t.teardown(() => b.close());
  const { page } = b;

  await page.goto(`${gw.url}/dashboard`);
  t.equal(new URL(page.url()).pathname, '/dashboard/', 'redirected to the page');
  await page.getByLabel('Admin key').waitFor();
  await b.shot('sign-in');

  // a wrong admin key: the API's message, and nothing kept
  await page.getByLabel('Admin key').fill('sk-admin-wrong-key-00000');
  await page.getByRole('button', { name: 'Sign in' }).click();
  const refused = page.locator('#sign-in-error');
  await refused.waitFor();
  t.match(await refused.innerText(), /Error 401: .*admin key/i, 'the refusal, in words');
  t.equal(await page.evaluate('sessionStorage.length'), 0, 'a wrong key is not kept');
  t.ok(await page.locator('#console').isHidden(), 'no data shown');
  await b.shot('wrong-admin-key');

  await page.getByLabel('Admin key').fill(ADMIN);
  await page.getByRole('button', { name: 'Sign in' }).click();
  const acme = page.locator('#orgs-rows tr[data-org="acme"]');
  await acme.waitFor();
  t.match(await acme.innerText(), /acme\s+\$100\.00/, 'the balance of acme');
  t.ok(await page.locator('#sign-in').isHidden());
  await b.shot('signed-in');

  // credits: a top-up moves the balance; a correction below zero is refused, naming the field
  const credits = page.locator('#credits-form');
  await credits.getByLabel('USD').fill('5');
  await credits.getByLabel('Reason').fill('browser test top-up');
  await credits.getByRole('button', { name: 'Add credits' }).click();
  await page.getByText('acme: $5.00 added; the balance is $105.00.').waitFor();
  t.ok(await refreshUntil(page, async () => /\$105\.00/.test(await acme.locator('[data-col="balance"]').innerText())), 'the balance shows the top-up');
  await credits.getByLabel('USD').fill('-1000');
  await credits.getByLabel('Reason').fill('too much');
  await credits.getByRole('button', { name: 'Add credits' }).click();
  const creditsError = page.locator('#credits-error');
  await creditsError.waitFor();
  t.match(await creditsError.innerText(), /Error 400: .*\(field: usd\)/, 'a correction below zero: message and field');
  t.equal(await acme.locator('[data-col="balance"]').innerText(), '$105.00', 'nothing changed');

  // a bad cap: the API's error names the field, and the field is marked
  const form = page.locator('#key-form');
  await form.getByLabel('Organisation').selectOption('acme');
  await form.getByLabel('Spend cap (USD)').fill('-1');
  await form.getByRole('button', { name: 'Create key' }).click();
  const keyError = page.locator('#key-error');
  await keyError.waitFor();
  t.match(await keyError.innerText(), /Error 400: .*\(field: spendCap\)/, 'message and field');
  t.equal(await form.getByLabel('Spend cap (USD)').getAttribute('aria-invalid'), 'true', 'the field is marked');
  await b.shot('create-key-error');

  await form.getByLabel('Project').selectOption('web');
  await form.getByLabel('Name').fill('browser test');
  await form.getByLabel('Spend cap (USD)').fill('5');
  await form.getByRole('button', { name: 'Create key' }).click();
  const created = page.locator('#key-created');
  await created.waitFor();
  t.ok(await keyError.isHidden(), 'the error is gone');
  const secret = (await page.locator('#key-secret').innerText()).trim();
  const keyId = (await page.locator('#key-created-id').innerText()).trim();
  t.ok(secret.length >= 16 && keyId.length > 0, 'the secret and the id are shown');
  await page.getByRole('button', { name: 'Copy' }).click();
  await page.getByText('Copied.').waitFor();
  t.equal(await page.evaluate('navigator.clipboard.readText()'), secret, 'Copy puts the secret on the clipboard');
  const keyRow = page.locator(`#keys-rows tr[data-key="${keyId}"]`);
  await keyRow.waitFor();
  t.match(await keyRow.innerText(), new RegExp(`browser test[\\s\\S]*acme / web[\\s\\S]*${secret.slice(-4)}[\\s\\S]*\\$5\\.00`), 'listed with its name, place, hint and cap');
  t.notMatch(await page.locator('#keys-rows').innerText(), secret, 'the list never shows a secret');
  await b.shot('key-created');
  await page.getByRole('button', { name: 'Done' }).click();
  t.equal(await page.locator('#key-secret').innerText(), '', 'the secret is gone from the page once dismissed');

  // spend with the new key
  const spent: Spent[] = [];
  const m = await apiCall(gw, '/v1/messages', secret, { model: 'sonnet', max_tokens: 64, messages: [{ role: 'user', content: 'hello from the dashboard test' }] });
  t.equal(m.status, 200, JSON.stringify(m.body));
  const mUsage = m.body.usage;
  const mCost = expectedCost(SONNET, { input: mUsage.input_tokens, output: mUsage.output_tokens, cacheRead: mUsage.cache_read_input_tokens ?? 0, cacheWrite: mUsage.cache_creation_input_tokens ?? 0 }) / UNITS_PER_USD;
  spent.push({ requestId: localRequestId(m.headers)!, usd: mCost });
  const c = await apiCall(gw, '/v1/chat/completions', secret, { model: 'gpt-5', messages: [{ role: 'user', content: 'hello again' }] });
  t.equal(c.status, 200, JSON.stringify(c.body));
  spent.push({ requestId: localRequestId(c.headers)!, usd: c.body.usage.cost });
  const r = await apiCall(gw, '/v1/responses', secret, { model: 'gpt-5', input: 'and once more' });
  t.equal(r.status, 200, JSON.stringify(r.body));
  spent.push({ requestId: localRequestId(r.headers)!, usd: r.body.gateway.cost });
  const auto = await apiCall(gw, '/v1/messages', secret, { model: 'gateway-auto', max_tokens: 64, messages: [{ role: 'user', content: 'Explain how a B-tree stays balanced.' }] });
  t.equal(auto.status, 200, JSON.stringify(auto.body));
  const autoId = localRequestId(auto.headers)!;
  for (const s of spent) t.ok(s.usd > 0 && s.requestId, `${s.requestId} cost ${s.usd}`);

  const rowOf = (id: string) => page.locator(`#requests-rows tr[data-request-id="${id}"]`);
  t.ok(await refreshUntil(page, async () => (await rowOf(autoId).count()) === 1 && (await rowOf(spent[0]!.requestId).count()) === 1), 'the requests appear');
  for (const s of spent) {
    const row = rowOf(s.requestId);
    t.equal(await row.count(), 1, `${s.requestId} listed`);
    t.equal(await row.locator('[data-col="usd"]').innerText(), usd(s.usd), `${s.requestId}: the cost the client was told`);
    t.match(await row.innerText(), new RegExp(`200[\\s\\S]*${keyId}`), 'status and key');
  }
  const autoRow = rowOf(autoId);
  t.match(await autoRow.innerText(), /gateway-auto\s*→\s*anthropic\/claude-/, 'requested → served model');
  await autoRow.locator('summary').click();
  t.match(await autoRow.locator('ol.candidates').innerText(), /anthropic\/claude-[\s\S]*quality 0\.\d{3}, expected \$/, 'the top candidates of the decision');
  await b.shot('requests');

  const total = spent.reduce((sum, s) => sum + s.usd, 0);
  await page.locator('#spend-by').selectOption('key');
  const spendRow = page.locator(`#spend-rows tr[data-group="${keyId}"]`);
  await spendRow.waitFor();
  const autoUsd = Number((await autoRow.locator('[data-col="usd"]').innerText()).replace('$', ''));
  t.equal(await spendRow.locator('[data-col="usd"]').innerText(), usd(total + autoUsd), 'the key\'s spend over the range is the sum of its requests');
  t.match(await spendRow.innerText(), new RegExp(`^${keyId}\\s+4\\b`), 'four requests');
  t.ok(await page.locator('#spend-chart svg rect.bar').count() > 0, 'the chart has bars');
  t.equal(await page.locator(`#keys-rows tr[data-key="${keyId}"] [data-col="spent"]`).innerText(), usd(total + autoUsd), 'the key list shows the same spend');
  await b.shot('spend-by-key');
  await page.locator('#spend-by').selectOption('model');
  await page.locator('#spend-rows tr[data-group="openai/gpt-5"]').waitFor();
  // gateway-auto's choice is the router's: sonnet today, perhaps another model after retraining
  const legendItems = await page.locator('#spend-chart ul.legend li').allInnerTexts();
  t.ok(legendItems.includes('anthropic/claude-sonnet-5') && legendItems.includes('openai/gpt-5'), `a series a model: ${legendItems.join(', ')}`);
  t.equal(await page.locator('#spend-total [data-col="usd"]').innerText(), usd(total + autoUsd), 'the same total by model');
  await b.shot('spend-by-model');

  // revoke, behind a confirmation; the API refuses the key within a second
  await page.getByRole('button', { name: `Revoke key ${keyId}` }).click();
  const dialog = page.getByRole('dialog');
  await dialog.waitFor();
  t.match(await dialog.innerText(), new RegExp(`Revoke key ${keyId}\\?`));
  await b.shot('revoke-confirm', { viewport: true });
  await dialog.getByRole('button', { name: 'Revoke key' }).click();
  await dialog.waitFor({ state: 'hidden' });
  await page.locator(`#keys-rows tr[data-key="${keyId}"] [data-col="status"]`).getByText(/revoked/).waitFor();
  const revokedAt = Date.now();
  await b.shot('revoked');
  const refusedAfter = await eventually(async () => {
    const again = await apiCall(gw, '/v1/messages', secret, { model: 'sonnet', max_tokens: 16, messages: [{ role: 'user', content: 'still there?' }] });
    return again.status === 401 ? again : null;
  }, 1000, 50);
  t.ok(refusedAfter, `the revoked key is refused within a second (${Date.now() - revokedAt} ms)`);

  const audit = await page.locator('#audit-rows').innerText();
  t.match(audit, new RegExp(`key\\.revoke\\s+key:${keyId}[\\s\\S]*key\\.create\\s+key:${keyId}`), 'the audit log: created, then revoked, newest first');
  t.notMatch(audit, secret, 'the audit log never holds the secret');
  t.notMatch(audit, ADMIN, 'nor the admin key');

  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.getByLabel('Admin key').waitFor();
  t.equal(await page.evaluate('sessionStorage.length'), 0, 'signing out forgets the admin key');
  t.same(b.problems, [], 'no request off loopback, no console error, no page error');
  t.comment(`browser tier: ${Date.now() - started} ms`);
});
