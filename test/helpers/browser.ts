// Real headless Chromium for the browser tier (`npm run test:browser`): Debian's /usr/bin/chromium
// driven by playwright-core (never a downloaded browser). The page may reach the gateway on
// loopback only: any other request is aborted and reported, as are console errors (a CSP
// violation is one) and uncaught exceptions. Screenshots of each step go to .artifacts/<name>/.
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { ROOT } from './paths.js';

/** Debian's chromium package; GATEWAY_CHROMIUM points elsewhere (another distribution's path). */
export const CHROMIUM = process.env.GATEWAY_CHROMIUM ?? '/usr/bin/chromium';

export interface BrowserSession {
  browser: Browser;
  context: BrowserContext;
  page: Page;
  /** console errors, page errors and requests that left loopback, as they happened */
  problems: string[];
  /** save a screenshot (full page unless `viewport`) as .artifacts/<name>/<NN>-<step>.png; answers its path */
  shot(step: string, opts?: { viewport?: boolean }): Promise<string>;
  close(): Promise<void>;
}

const LOOPBACK = /^(https?|wss?):\/\/(127\.0\.0\.1|localhost|\[::1\])(:\d+)?\//;

export async function openBrowser(name: string, origin: string): Promise<BrowserSession> {
  // root (a container, CI) cannot use Chromium's sandbox
  const args = process.getuid?.() === 0 ? ['--no-sandbox'] : [];
  const browser = await chromium.launch({ executablePath: CHROMIUM, args });
  const context = await browser.newContext({ viewport: { width: 1360, height: 900 }, deviceScaleFactor: 1, locale: 'en-US', timezoneId: 'UTC' });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin });
  const problems: string[] = [];
  await context.route('**/*', (route) => {
    const url = route.request().url();
    if (LOOPBACK.test(url) || url.startsWith('data:')) return route.continue();
    problems.push(`request off loopback: ${url}`);
    return route.abort('blockedbyclient');
  });
  const page = await context.newPage();
  // a step that does not happen fails in seconds, not after Playwright's 30 s default
  page.setDefaultTimeout(10_000);
  page.on('console', (m) => {
    // the API's refusals show in the console as failed loads: those the test provokes are expected
    if (m.type() === 'error' && !/status of (4\d\d)/.test(m.text())) problems.push(`console: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  const dir = join(ROOT, '.artifacts', name);
  // this run's screenshots only
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  let n = 0;
  return {
    browser,
    context,
    page,
    problems,
    async shot(step, opts = {}) {
      const path = join(dir, `${String(++n).padStart(2, '0')}-${step}.png`);
      await page.screenshot({ path, fullPage: opts.viewport !== true });
      return path;
    },
    close: () => browser.close(),
  };
}
