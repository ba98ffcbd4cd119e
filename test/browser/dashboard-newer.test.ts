// The dashboard's recent requests kept up to date with the admin API's forward cursor, in headless
// Chromium against bin/gateway: after more requests than a page (25) came in, "Load newer" puts
// every one of them on top, newest first, none skipped and none shown twice; with "Follow" on, new
// requests appear by themselves within a few seconds, and later polls repeat none. Run by
// `npm run test:browser` (GATEWAY_BROWSER_TIER=1).
import t from 'tap';
import type { Page } from 'playwright-core';
import { ADMIN_KEY, askMessages, startAdminGateway, type AdminGateway } from '../helpers/admin.js';
import { sleep } from '../helpers/billing.js';
import { openBrowser } from '../helpers/browser.js';
import { TEST_KEY } from '../helpers/gateway.js';
import { eventually } from '../helpers/messages.js';

const tier = process.env.GATEWAY_BROWSER_TIER === '1';

/** Serves `n` requests; every request id, newest first, once the admin API lists all `total`. */
async function serve(a: AdminGateway, n: number, total: number): Promise<string[]> {
  for (let i = 0; i < n; i++) if ((await askMessages(a.gw.url, TEST_KEY)) !== 200) throw new Error('request failed');
  for (const deadline = Date.now() + 5000; Date.now() < deadline; await sleep(20)) {
    const page = (await a.call('GET', '/requests?limit=500')).body;
    if (page.data.length === total) return (page.data as { requestId: string }[]).map((r) => r.requestId);
  }
  throw new Error(`fewer than ${total} rows listed after 5 s`);
}

const shownIds = (page: Page): Promise<string[]> => page.locator('#requests-rows tr[data-request-id]').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-request-id')!));

t.test('the dashboard: newer requests on top, each once (Load newer, Follow)', { skip: tier ? false : 'the browser tier runs with `npm run test:browser`' }, async (t) => {
  const a = await startAdminGateway();
  t.teardown(() => a.gw.stop());
  const b = await openBrowser('dashboard-newer', a.gw.url);
  t.teardown(() => b.close());
  const { page } = b;

  await serve(a, 2, 2);
  await page.goto(`${a.gw.url}/dashboard/`);
  await page.getByLabel('Admin key').fill(ADMIN_KEY);
  await page.getByRole('button', { name: 'Sign in' }).click();
  t.ok(await eventually(async () => (await shownIds(page)).length === 2, 5000, 50), 'the two requests listed');

  const all = await serve(a, 30, 32);
  await page.getByRole('button', { name: 'Load newer' }).click();
  await page.getByText('30 newer requests.').waitFor();
  t.same(await shownIds(page), all, 'all 30 on top of the two, newest first, none twice');
  await page.getByRole('button', { name: 'Load newer' }).click();
  await page.getByText('No newer requests.').waitFor();
  t.same(await shownIds(page), all, 'asked again: nothing repeated');
  await b.shot('newer');

  await page.getByLabel('Follow').check();
  const followed = await serve(a, 2, 34);
  t.ok(await eventually(async () => (await shownIds(page)).length >= 34, 8000, 100), 'Follow: new requests appear by themselves');
  await sleep(3500); // another poll
  t.same(await shownIds(page), followed, 'each once, in order');
  t.same(b.problems, [], 'no request off loopback, no console error, no page error');
});
