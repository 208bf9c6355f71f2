// The browser side of the dashboard's Chromium tests (services/management/src/dashboard/*.int.test.ts)
// and of `npm run docs:screenshots`: fresh tabs that record what the page requested and fail the
// test on any console error (a CSP violation among them) or uncaught exception, and the sign-in
// the way a user makes it.
import { expect } from 'chai';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { launchChromium } from './chromium.ts';

/** Where the pages keep the member token (services/management/dashboard/session-token.ts). */
export const TOKEN_STORAGE_KEY = 'lattice.dashboard.member-token';

/** The browser's globals the tests read (test code is type-checked without the DOM library). */
export interface BrowserGlobals {
  document: { activeElement: unknown };
  navigator: { clipboard: { readText(): Promise<string> } };
}

// These functions run in the page (serialized by playwright), so they name nothing of this file.
export const isFocused = (locator: Locator) =>
  locator.evaluate((el) => el === (globalThis as unknown as BrowserGlobals).document.activeElement);
export const readClipboard = (page: Page) =>
  page.evaluate(() => (globalThis as unknown as BrowserGlobals).navigator.clipboard.readText());

export interface OpenTab {
  page: Page;
  context: BrowserContext;
  /** Every URL the page requested (the document, its assets, every API call). */
  urls: string[];
  /** Authorization headers of the page's API calls. */
  authorizations: string[];
  /** Console errors (CSP violations among them) and uncaught exceptions. */
  problems: string[];
}

/**
 * Headless Chromium for the tests of one describe block: launched before them; after each test,
 * every tab it opened is closed, and the test fails if one of them logged an error or threw.
 */
export function useChromiumTabs(): { open(url: string): Promise<OpenTab> } {
  let browser: Browser | undefined;
  const opened: OpenTab[] = [];

  before(async () => {
    browser = await launchChromium();
  });
  afterEach(async () => {
    // Whatever a test did, the page never broke its CSP or threw.
    const problems = opened.flatMap((o) => o.problems);
    for (const o of opened.splice(0)) await o.context.close();
    expect(problems, 'console errors and page errors').to.deep.equal([]);
  });
  after(async () => {
    await browser?.close();
  });

  return {
    /** `url` in a fresh tab of a fresh context (its own sessionStorage, localStorage and cookies). */
    async open(url) {
      const context = await browser!.newContext();
      await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(url).origin });
      const page = await context.newPage();
      const o: OpenTab = { page, context, urls: [], authorizations: [], problems: [] };
      page.on('request', (r) => {
        o.urls.push(r.url());
        const auth = r.headers().authorization;
        if (auth !== undefined) o.authorizations.push(auth);
      });
      page.on('pageerror', (e) => o.problems.push(`page error: ${e.message}`));
      page.on('console', (m) => {
        // A refused API call is logged by Chromium itself ("Failed to load resource: 401"); the
        // tests that cause one check what the page said about it.
        if (m.type() === 'error' && !m.text().startsWith('Failed to load resource'))
          o.problems.push(`console: ${m.text()}`);
      });
      opened.push(o);
      await page.goto(url);
      return o;
    },
  };
}

/** Signs in as a user does, and waits for the page's first list, headed `heading`. */
export async function signIn(page: Page, token: string, heading: string): Promise<void> {
  await page.getByLabel('Member token').fill(token);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: heading, exact: true }).waitFor();
}
