// `npm run docs:screenshots`: the pictures of docs/management-api.md's dashboard section, taken
// in headless Chromium from the real page on a real management server (the test database, like
// the integration tests; services missing are started and stopped again). Writes
// docs/images/dashboard-{keys,created,revoke,member}.png.
import { mkdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { createLogger } from '@lattice/core';
import { TEST_DATABASE, testConfig } from '@lattice/core/testing';
import { ensureInfra, stopInfra } from '@lattice/infra';
import { startTestManagement } from '@lattice/management/testing';
import { bootstrapProduct } from '@lattice/store';
import type { Browser, Page } from 'playwright-core';
import { launchChromium } from '../support/chromium.ts';

const IMAGES_DIR = fileURLToPath(new URL('../../docs/images/', import.meta.url));
const PAGE_PATH = '/dashboard/settings/public-access';
const KEYS = '/organization/public-keys';

const logger = createLogger({ name: 'docs-screenshots', level: 'warn' });
const { started } = await ensureInfra({
  config: testConfig(),
  logger,
  databases: [TEST_DATABASE],
  searchPath: process.env.PATH ?? '',
});
const t = await startTestManagement();
let browser: Browser | undefined;

async function must<T>(
  answer: Promise<{ status: number; json: T; text: string }>,
  status: number,
): Promise<T> {
  const r = await answer;
  if (r.status !== status) throw new Error(`expected ${status}, got ${r.status}: ${r.text}`);
  return r.json;
}

async function signedIn(token: string): Promise<Page> {
  // Fixed locale, zone and size, so the pictures change only when the page does.
  const context = await browser!.newContext({
    viewport: { width: 1240, height: 900 },
    locale: 'en-US',
    timezoneId: 'UTC',
    colorScheme: 'light',
  });
  const page = await context.newPage();
  await page.goto(`${t.server.url}${PAGE_PATH}`);
  await page.getByLabel('Member token').fill(token);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Keys', exact: true }).waitFor();
  return page;
}

const shot = (page: Page, name: string) => page.screenshot({ path: `${IMAGES_DIR}dashboard-${name}.png` });

try {
  await mkdir(IMAGES_DIR, { recursive: true });
  const { product_id: productId, owner_token: owner } = await bootstrapProduct(t.db, { name: 'Acme Shop' });

  // A list with one of everything: an imported mail key, route, toolkit and product scopes, both
  // environments, a revoked key. Created oldest first: the list shows the newest first.
  await must(
    t.call('POST', '/mail/api-keys', owner, { name: 'newsletter sender', scope: 'sending_access' }),
    201,
  );
  await must(t.call('POST', `${KEYS}/import`, owner, { toolkit: 'mail' }), 200);
  const legacy = await must<{ id: string }>(
    t.call('POST', KEYS, owner, { name: 'legacy integration', scope: { kind: 'product' } }),
    201,
  );
  await must(t.call('POST', `${KEYS}/${legacy.id}/revoke`, owner), 200);
  await must(
    t.call('POST', KEYS, owner, {
      name: 'analytics exporter',
      environment: 'development',
      scope: { kind: 'toolkit', toolkit: 'realtime' },
    }),
    201,
  );
  await must(
    t.call('POST', KEYS, owner, {
      name: 'chat backend',
      scope: { kind: 'route', toolkit: 'realtime', method: 'POST', path: '/tokens/issue' },
    }),
    201,
  );
  await must(
    t.call('POST', KEYS, owner, {
      name: 'billing backend',
      scope: { kind: 'route', toolkit: 'mail', method: 'POST', path: '/emails' },
    }),
    201,
  );

  browser = await launchChromium();
  const page = await signedIn(owner);
  await shot(page, 'keys');

  // Create: a name and a route, then the key shown once.
  const form = page.getByRole('region', { name: 'Create key' });
  await form.getByLabel('Name').fill('order events publisher');
  await form.getByLabel('Route', { exact: true }).selectOption('realtime POST /messages');
  await form.getByRole('button', { name: 'Create key' }).click();
  const created = page.getByRole('region', { name: 'Copy the new key now' });
  await created.waitFor();
  // The panel with the key and, below it, the form it came from (reset for the next key).
  // Bounding boxes are in viewport coordinates, a full-page clip in page coordinates.
  const top = (await created.boundingBox())!;
  const bottom = (await form.boundingBox())!;
  const scrollY = await page.evaluate(() => (globalThis as unknown as { scrollY: number }).scrollY);
  const margin = 16;
  await page.screenshot({
    path: `${IMAGES_DIR}dashboard-created.png`,
    fullPage: true,
    clip: {
      x: top.x - margin,
      y: top.y + scrollY - margin,
      width: top.width + 2 * margin,
      height: bottom.y + bottom.height - top.y + 2 * margin,
    },
  });
  await page.getByRole('button', { name: 'I have stored it' }).click();
  await page.getByRole('heading', { name: 'Public Access', level: 1 }).scrollIntoViewIfNeeded();

  await page.getByRole('button', { name: 'Revoke billing backend' }).click();
  await page.getByRole('dialog').waitFor();
  await shot(page, 'revoke');
  await page.getByRole('button', { name: 'Cancel' }).click();

  const member = await t.newMember(productId, 'member');
  await shot(await signedIn(member.token), 'member');
  console.log(`wrote ${IMAGES_DIR}dashboard-{keys,created,revoke,member}.png`);
} finally {
  await browser?.close();
  await t.close();
  if (started.length > 0) await stopInfra({ logger, only: started });
}
