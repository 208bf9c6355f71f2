// `npm run docs:screenshots`: the pictures of the dashboard sections of docs/management-api.md
// (Public Access) and docs/organization.md (Members), taken in headless Chromium from the real
// pages on a real management server (the test database, like the integration tests; services
// missing are started and stopped again). Writes docs/images/dashboard-{keys,created,revoke,member}.png
// and docs/images/dashboard-members-{owner,added,member}.png.
import { mkdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { createLogger } from '@lattice/core';
import { TEST_DATABASE, testConfig } from '@lattice/core/testing';
import { ensureInfra, stopInfra } from '@lattice/infra';
import { startTestManagement } from '@lattice/management/testing';
import { bootstrapProduct } from '@lattice/store';
import type { Browser, Locator, Page } from 'playwright-core';
import { launchChromium } from '../support/chromium.ts';
import { signIn } from '../support/dashboard-tabs.ts';

const IMAGES_DIR = fileURLToPath(new URL('../../docs/images/', import.meta.url));
const PUBLIC_ACCESS_PATH = '/dashboard/settings/public-access';
const MEMBERS_PATH = '/dashboard/settings/members';
const KEYS = '/organization/public-keys';
const MEMBERS = '/organization/members';

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

/** A fresh tab on the page at `path`, signed in with `token`, once the list headed `heading` is there. */
async function signedIn(token: string, path: string, heading: string): Promise<Page> {
  // Fixed locale, zone and size, so the pictures change only when the page does.
  const context = await browser!.newContext({
    viewport: { width: 1240, height: 900 },
    locale: 'en-US',
    timezoneId: 'UTC',
    colorScheme: 'light',
  });
  const page = await context.newPage();
  await page.goto(`${t.server.url}${path}`);
  await signIn(page, token, heading);
  return page;
}

const imagePath = (name: string) => `${IMAGES_DIR}dashboard-${name}.png`;
/** What the window shows, or the whole page. */
const shot = (page: Page, name: string, fullPage = false) =>
  page.screenshot({ path: imagePath(name), fullPage });

/** The part of the page from the top of `top` to the bottom of `bottom`, with a margin. */
async function shotBetween(page: Page, name: string, top: Locator, bottom: Locator): Promise<void> {
  // Bounding boxes are in viewport coordinates, a full-page clip in page coordinates.
  const from = (await top.boundingBox())!;
  const to = (await bottom.boundingBox())!;
  const scrollY = await page.evaluate(() => (globalThis as unknown as { scrollY: number }).scrollY);
  const margin = 16;
  await page.screenshot({
    path: imagePath(name),
    fullPage: true,
    clip: {
      x: from.x - margin,
      y: from.y + scrollY - margin,
      width: from.width + 2 * margin,
      height: to.y + to.height - from.y + 2 * margin,
    },
  });
}

try {
  await mkdir(IMAGES_DIR, { recursive: true });
  const { owner_token: owner } = await bootstrapProduct(t.db, { name: 'Acme Shop' });

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
  const page = await signedIn(owner, PUBLIC_ACCESS_PATH, 'Keys');
  await shot(page, 'keys');

  // Create: a name and a route, then the key shown once.
  const form = page.getByRole('region', { name: 'Create key' });
  await form.getByLabel('Name').fill('order events publisher');
  await form.getByLabel('Route', { exact: true }).selectOption('realtime POST /messages');
  await form.getByRole('button', { name: 'Create key' }).click();
  const created = page.getByRole('region', { name: 'Copy the new key now' });
  await created.waitFor();
  // The panel with the key and, below it, the form it came from (reset for the next key).
  await shotBetween(page, 'created', created, form);
  await page.getByRole('button', { name: 'I have stored it' }).click();
  await page.getByRole('heading', { name: 'Public Access', level: 1 }).scrollIntoViewIfNeeded();

  await page.getByRole('button', { name: 'Revoke billing backend' }).click();
  await page.getByRole('dialog').waitFor();
  await shot(page, 'revoke');
  await page.getByRole('button', { name: 'Cancel' }).click();

  // A few members, each change in the audit log after the key changes above: an admin, a member
  // (whose token takes the member's views of both pages), a role changed, a token of the owner's.
  await must(t.call('POST', MEMBERS, owner, { name: 'Ada Lovelace', role: 'admin' }), 201);
  const grace = await must<{ token: { token: string } }>(
    t.call('POST', MEMBERS, owner, { name: 'Grace Hopper', role: 'member' }),
    201,
  );
  const alan = await must<{ member: { id: string } }>(
    t.call('POST', MEMBERS, owner, { name: 'Alan Turing', role: 'member' }),
    201,
  );
  await must(t.call('PUT', `${MEMBERS}/${alan.member.id}/role`, owner, { role: 'admin' }), 200);
  await must(t.call('POST', '/organization/member-tokens', owner, { name: 'deploy script' }), 201);
  const member = grace.token.token;
  await shot(await signedIn(member, PUBLIC_ACCESS_PATH, 'Keys'), 'member');

  // Members, as the owner: the people with their roles, your tokens and the audit log.
  const members = await signedIn(owner, MEMBERS_PATH, 'People');
  await members.getByRole('table', { name: 'Audit log, newest first' }).getByRole('row').nth(1).waitFor();
  await shot(members, 'members-owner', true);

  // Add member: the new member's token shown once, above the form it came from.
  const addForm = members.getByRole('region', { name: 'Add member' });
  await addForm.getByLabel('Name').fill('Katherine Johnson');
  await addForm.getByRole('button', { name: 'Add member' }).click();
  const added = members.getByRole('region', { name: 'Copy the new member’s token now' });
  await added.waitFor();
  await shotBetween(members, 'members-added', added, addForm);

  await shot(await signedIn(member, MEMBERS_PATH, 'People'), 'members-member');
  console.log(
    `wrote ${IMAGES_DIR}dashboard-{keys,created,revoke,member}.png and dashboard-members-{owner,added,member}.png`,
  );
} finally {
  await browser?.close();
  await t.close();
  if (started.length > 0) await stopInfra({ logger, only: started });
}
