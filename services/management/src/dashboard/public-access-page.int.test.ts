// The Settings → Public Access page in real headless Chromium (Debian's, driven by playwright-core)
// against a real management server on PostgreSQL and Redis. Every action is made the way a user
// makes it (labels, roles, the keyboard) and then checked through the API itself: what the page
// shows is what the API holds. The member token stays in the tab's sessionStorage and in the
// Authorization header, never in a URL, localStorage or a cookie.
import { PUBLIC_ROUTES } from '@lattice/http';
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import {
  isFocused,
  readClipboard,
  signIn as signInAs,
  TOKEN_STORAGE_KEY,
  useChromiumTabs,
} from '../../../../test/support/dashboard-tabs.ts';
import type { publicKeyView } from '../routes/key-views.ts';
import { startTestManagement, type TestManagement } from '../testing/test-management.ts';
import { DASHBOARD_PAGE_PATH } from './dashboard-routes.ts';

type KeyJson = ReturnType<typeof publicKeyView>;
type CreatedJson = KeyJson & { key: string };
interface ErrorJson {
  error: { code: string; message: string; fields?: Array<{ path: string; message: string }> };
}

const KEYS = '/organization/public-keys';
const EMAIL_SEND = { kind: 'route', toolkit: 'mail', method: 'POST', path: '/emails' } as const;

describe('dashboard: Settings → Public Access in Chromium', function () {
  this.timeout(60_000);
  let t: TestManagement;

  before(async () => {
    t = await startTestManagement();
  });
  after(async () => {
    await t?.close();
  });
  const tabs = useChromiumTabs();

  const pageUrl = () => `${t.server.url}${DASHBOARD_PAGE_PATH}`;
  const openPage = () => tabs.open(pageUrl());
  const signIn = (page: Page, token: string) => signInAs(page, token, 'Keys');

  const row = (page: Page, name: string) =>
    page.getByRole('row').filter({ has: page.getByRole('rowheader', { name, exact: false }) });

  const createKey = async (token: string, name: string, scope: unknown = EMAIL_SEND) => {
    const r = await t.call<CreatedJson>('POST', KEYS, token, { name, scope });
    expect(r.status, r.text).to.equal(201);
    return r.json;
  };
  const keyById = async (token: string, id: string) => {
    const list = await t.call<{ data: KeyJson[] }>('GET', `${KEYS}?limit=100`, token);
    return list.json.data.find((k) => k.id === id);
  };

  it('is served without a credential, under a tight Content-Security-Policy with no inline script', async () => {
    const res = await fetch(pageUrl());
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.match(/^text\/html/);
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp).to.include("default-src 'self'");
    expect(csp).to.include("script-src 'self'");
    expect(csp).to.include("form-action 'none'");
    expect(csp).to.include("frame-ancestors 'none'");
    expect(csp).to.not.include('unsafe-inline');
    const html = await res.text();
    // Scripts only by src; no inline handlers or style attributes the CSP would refuse.
    for (const tag of html.match(/<script\b[^>]*>/g) ?? []) expect(tag).to.match(/\ssrc="\/dashboard\//);
    expect(html).to.not.match(/<script\b[^>]*>\s*[^<\s]/);
    expect(html).to.not.match(/\son[a-z]+="/i);
    expect(html).to.not.match(/\sstyle="/i);
    for (const [path, type] of [
      ['/dashboard/assets/public-access.js', /^text\/javascript/],
      ['/dashboard/assets/dashboard.css', /^text\/css/],
    ] as const) {
      const asset = await fetch(`${t.server.url}${path}`);
      expect(asset.status, path).to.equal(200);
      expect(asset.headers.get('content-type'), path).to.match(type);
    }
    // And in the browser the page starts at its sign-in form, with no CSP complaint (afterEach).
    const { page } = await openPage();
    await page.getByLabel('Member token').waitFor();
    expect(await page.getByLabel('Member token').getAttribute('type')).to.equal('password');
  });

  it('signs in with an owner token: the product, the role and the key list; the token only in sessionStorage and the Authorization header', async () => {
    const p = await t.newProduct('dash-signin');
    const existing = await createKey(p.owner_token, 'billing backend');
    const o = await openPage();
    const { page } = o;
    await signIn(page, p.owner_token);

    await page.getByText(p.name, { exact: true }).waitFor();
    await page.getByRole('banner').getByText('owner', { exact: true }).waitFor();
    const billing = row(page, 'billing backend');
    await billing.waitFor();
    const cells = await billing.getByRole('cell').allInnerTexts();
    expect(cells.slice(0, 5)).to.deep.equal([
      `lpk_${existing.visible}…`,
      'mail\nPOST /emails',
      'production',
      cells[3]!, // the creation date, in the browser's locale
      'Active',
    ]);
    expect(await billing.locator('time').first().getAttribute('datetime')).to.equal(existing.created_at);

    const storage = await page.evaluate(
      (key) => ({ session: sessionStorage.getItem(key), localCount: localStorage.length }),
      TOKEN_STORAGE_KEY,
    );
    expect(storage).to.deep.equal({ session: p.owner_token, localCount: 0 });
    expect(page.url()).to.equal(pageUrl());
    expect(await o.context.cookies()).to.deep.equal([]);

    // A reload in the same tab resumes the session from sessionStorage.
    await page.reload();
    await row(page, 'billing backend').waitFor();

    // Sign out forgets the token.
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('Member token').waitFor();
    expect(await page.evaluate((key) => sessionStorage.getItem(key), TOKEN_STORAGE_KEY)).to.equal(null);
    expect(await page.getByRole('heading', { name: 'Keys', exact: true }).isVisible()).to.equal(false);

    expect(o.urls.filter((u) => u.includes(p.owner_token))).to.deep.equal([]);
    expect(o.authorizations.length).to.be.greaterThan(0);
    expect(new Set(o.authorizations)).to.deep.equal(new Set([`Bearer ${p.owner_token}`]));
  });

  it('refuses a bad token with the API’s 401 message and stays signed out', async () => {
    const bad = `lmt_${'0'.repeat(32)}`;
    const answer = await t.call<ErrorJson>('GET', '/organization/product', bad);
    expect(answer.status).to.equal(401);
    const o = await openPage();
    const { page } = o;
    await page.getByLabel('Member token').fill(bad);
    await page.getByRole('button', { name: 'Sign in' }).click();

    await page.getByRole('alert').filter({ hasText: answer.json.error.message }).waitFor();
    expect(await page.getByLabel('Member token').isVisible()).to.equal(true);
    expect(await page.getByRole('heading', { name: 'Keys', exact: true }).isVisible()).to.equal(false);
    expect(await page.evaluate((key) => sessionStorage.getItem(key), TOKEN_STORAGE_KEY)).to.equal(null);
    expect(o.urls.filter((u) => u.includes(bad))).to.deep.equal([]);
  });

  it('creates a key from a name alone (one route preselected), shows it once, then lists only its eight characters', async () => {
    const p = await t.newProduct('dash-create');
    const { page } = await openPage();
    await signIn(page, p.owner_token);

    // The narrowest kind is chosen and a route is already selected: a name is all it takes.
    const form = page.getByRole('region', { name: 'Create key' });
    expect(await form.getByLabel('One route').isChecked()).to.equal(true);
    const routeSelect = form.getByLabel('Route', { exact: true });
    const keyed = PUBLIC_ROUTES.filter((r) => r.keyed).map((r) => `${r.toolkit} ${r.method} ${r.path}`);
    // The options are the public route table's keyed routes, no more and no fewer.
    const offered = await Promise.all(
      (await routeSelect.locator('option').all()).map((o) => o.getAttribute('value')),
    );
    expect(offered).to.deep.equal(keyed);
    expect(await routeSelect.inputValue()).to.equal(keyed[0]);
    expect(await form.getByLabel('Toolkit', { exact: true }).isDisabled()).to.equal(true);

    await form.getByLabel('Name').fill('ci deployer');
    await form.getByRole('button', { name: 'Create key' }).click();

    const shown = page.getByLabel('New key', { exact: true });
    await page.getByRole('heading', { name: 'Copy the new key now' }).waitFor();
    const key = await shown.inputValue();
    expect(key).to.match(/^lpk_[0-9a-f]{32}$/);
    for (const advice of ['server-side only', 'One key per system', 'narrowest scope']) {
      await page.getByRole('region', { name: 'Copy the new key now' }).getByText(advice).waitFor();
    }
    await page.getByRole('button', { name: 'Copy' }).click();
    await page.getByRole('status').filter({ hasText: 'copied' }).waitFor();
    expect(await readClipboard(page)).to.equal(key);

    // The API holds it, with the preselected route as its scope.
    const list = await t.call<{ data: KeyJson[] }>('GET', KEYS, p.owner_token);
    expect(list.json.data.map((k) => [k.name, k.scope, k.environment, k.status, k.visible])).to.deep.equal([
      ['ci deployer', EMAIL_SEND, 'production', 'active', key.slice(4, 12)],
    ]);
    await row(page, 'ci deployer')
      .getByText(`lpk_${key.slice(4, 12)}…`)
      .waitFor();

    // After a reload the full key is gone; the list shows its first eight characters.
    await page.reload();
    await row(page, 'ci deployer')
      .getByText(`lpk_${key.slice(4, 12)}…`)
      .waitFor();
    expect(await page.content()).to.not.include(key.slice(12));
    expect(await page.getByLabel('New key', { exact: true }).isVisible()).to.equal(false);
  });

  it('creates a development key for a whole toolkit', async () => {
    const p = await t.newProduct('dash-create-toolkit');
    const { page } = await openPage();
    await signIn(page, p.owner_token);
    const form = page.getByRole('region', { name: 'Create key' });
    await form.getByLabel('Name').fill('staging realtime');
    await form.getByLabel('Environment').selectOption('development');
    await form.getByLabel('One toolkit').check();
    await form.getByLabel('Toolkit', { exact: true }).selectOption('realtime');
    await form.getByRole('button', { name: 'Create key' }).click();
    await row(page, 'staging realtime').getByText('every realtime route').waitFor();
    const list = await t.call<{ data: KeyJson[] }>('GET', KEYS, p.owner_token);
    expect(list.json.data.map((k) => [k.name, k.scope, k.environment])).to.deep.equal([
      ['staging realtime', { kind: 'toolkit', toolkit: 'realtime' }, 'development'],
    ]);
  });

  it('shows a validation error as the API words it, with its fields', async () => {
    const p = await t.newProduct('dash-invalid');
    const answer = await t.call<ErrorJson>('POST', KEYS, p.owner_token, { name: '   ', scope: EMAIL_SEND });
    expect(answer.status).to.equal(400);
    const field = answer.json.error.fields![0]!;
    const { page } = await openPage();
    await signIn(page, p.owner_token);
    const form = page.getByRole('region', { name: 'Create key' });
    await form.getByLabel('Name').fill('   ');
    await form.getByRole('button', { name: 'Create key' }).click();
    const alert = form.getByRole('alert');
    await alert.filter({ hasText: answer.json.error.message }).waitFor();
    await alert.getByText(field.message).waitFor();
    expect(await alert.textContent()).to.include(field.path);
    expect((await t.call<{ data: KeyJson[] }>('GET', KEYS, p.owner_token)).json.data).to.deep.equal([]);
  });

  it('edits a key’s scope in a dialog', async () => {
    const p = await t.newProduct('dash-scope');
    const created = await createKey(p.owner_token, 'notifier');
    const { page } = await openPage();
    await signIn(page, p.owner_token);

    await row(page, 'notifier').getByRole('button', { name: 'Edit scope of notifier' }).click();
    const dialog = page.getByRole('dialog', { name: 'Edit scope of “notifier”' });
    await dialog.waitFor();
    // It opens at the key's current scope.
    expect(await dialog.getByLabel('One route').isChecked()).to.equal(true);
    expect(await dialog.getByLabel('Route', { exact: true }).inputValue()).to.equal('mail POST /emails');
    await dialog.getByLabel('Route', { exact: true }).selectOption('realtime POST /messages');
    await dialog.getByRole('button', { name: 'Save scope' }).click();
    await dialog.waitFor({ state: 'hidden' });
    await row(page, 'notifier').getByText('POST /messages').waitFor();
    expect((await keyById(p.owner_token, created.id))?.scope).to.deep.equal({
      kind: 'route',
      toolkit: 'realtime',
      method: 'POST',
      path: '/messages',
    });

    await row(page, 'notifier').getByRole('button', { name: 'Edit scope of notifier' }).click();
    await dialog.getByLabel('Whole product').check();
    await dialog.getByRole('button', { name: 'Save scope' }).click();
    await row(page, 'notifier').getByText('every route, including later ones').waitFor();
    expect((await keyById(p.owner_token, created.id))?.scope).to.deep.equal({ kind: 'product' });
    await row(page, 'notifier')
      .getByRole('cell')
      .nth(1)
      .getByText('mail + realtime', { exact: true })
      .waitFor();
  });

  it('revokes a key only after a confirmation that says it is permanent and the edge may accept it ~30 s more', async () => {
    const p = await t.newProduct('dash-revoke');
    const created = await createKey(p.owner_token, 'old backend');
    const { page } = await openPage();
    await signIn(page, p.owner_token);

    const revoke = row(page, 'old backend').getByRole('button', { name: 'Revoke old backend' });
    // With the keyboard: the dialog opens on Cancel, and Escape closes it with nothing revoked.
    await revoke.focus();
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', { name: 'Revoke “old backend”?' });
    await dialog.waitFor();
    const text = await dialog.textContent();
    expect(text).to.match(/permanent/i);
    expect(text).to.match(/30 seconds/);
    expect(await isFocused(dialog.getByRole('button', { name: 'Cancel' }))).to.equal(true);
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
    expect(await isFocused(revoke)).to.equal(true);
    expect((await keyById(p.owner_token, created.id))?.status).to.equal('active');

    await revoke.click();
    await dialog.getByRole('button', { name: 'Revoke key' }).click();
    await dialog.waitFor({ state: 'hidden' });
    await row(page, 'old backend').getByText('Revoked').waitFor();
    expect(await row(page, 'old backend').getByRole('button').count()).to.equal(0);
    const revoked = await keyById(p.owner_token, created.id);
    expect(revoked?.status).to.equal('revoked');
    expect(revoked?.revoked_at).to.be.a('string');
  });

  it('shows a member the list without Create, Edit scope, Revoke or Import', async () => {
    const p = await t.newProduct('dash-member');
    await createKey(p.owner_token, 'shared key');
    const member = await t.newMember(p.product_id, 'member');
    const { page } = await openPage();
    await signIn(page, member.token);

    await row(page, 'shared key').waitFor();
    await page.getByRole('banner').getByText('member', { exact: true }).waitFor();
    await page.getByText('You are signed in as a member').waitFor();
    expect(await page.getByRole('main').getByRole('button').allInnerTexts()).to.deep.equal([]);
    expect(await page.getByRole('columnheader', { name: 'Actions' }).count()).to.equal(0);
    expect(await page.getByRole('region', { name: 'Create key' }).count()).to.equal(0);
    expect(await page.getByRole('region', { name: 'Import toolkit keys' }).count()).to.equal(0);
    // The header keeps Sign out.
    await page.getByRole('button', { name: 'Sign out' }).waitFor();
  });

  it('imports the mail keys, shown with the Imported badge', async () => {
    const p = await t.newProduct('dash-import');
    const mailKey = await t.call<{ visible: string }>('POST', '/mail/api-keys', p.owner_token, {
      name: 'legacy sender',
      scope: 'sending_access',
    });
    expect(mailKey.status).to.equal(201);
    const { page } = await openPage();
    await signIn(page, p.owner_token);
    await page.getByRole('button', { name: 'Import mail keys' }).click();
    await page.getByRole('status').filter({ hasText: 'Imported 1 mail key.' }).waitFor();
    const imported = row(page, 'legacy sender');
    await imported.getByText('Imported', { exact: true }).waitFor();
    await imported.getByText(`lmk_${mailKey.json.visible}…`).waitFor();
    await imported.getByText('every mail route').waitFor();

    await page.getByRole('button', { name: 'Import mail keys' }).click();
    await page.getByRole('status').filter({ hasText: 'No mail keys to import' }).waitFor();
  });

  it('pages through a long list with Load more', async () => {
    const p = await t.newProduct('dash-pages');
    // One more than a page (the API's maximum, 100).
    for (let batch = 0; batch < 101; batch += 20) {
      await Promise.all(
        Array.from({ length: Math.min(20, 101 - batch) }, (_, i) =>
          createKey(p.owner_token, `key ${String(batch + i).padStart(3, '0')}`),
        ),
      );
    }
    const { page } = await openPage();
    await signIn(page, p.owner_token);
    const rows = page.getByRole('table').getByRole('rowheader');
    await page.getByRole('button', { name: 'Load more keys' }).waitFor();
    expect(await rows.count()).to.equal(100);
    await page.getByRole('button', { name: 'Load more keys' }).click();
    await page.getByRole('button', { name: 'Load more keys' }).waitFor({ state: 'hidden' });
    const names = await rows.allInnerTexts();
    expect(names).to.have.length(101);
    expect(new Set(names).size).to.equal(101);
  });

  it('signs out when the token stops working, saying why', async () => {
    const p = await t.newProduct('dash-expired');
    const admin = await t.newMember(p.product_id, 'admin');
    const { page } = await openPage();
    await signIn(page, admin.token);
    await page.getByRole('banner').getByText('admin', { exact: true }).waitFor();
    await t.db('member_tokens').where({ member_id: admin.memberId }).update({ revoked_at: t.db.fn.now() });
    const answer = await t.call<ErrorJson>('GET', KEYS, admin.token);
    expect(answer.status).to.equal(401);

    const form = page.getByRole('region', { name: 'Create key' });
    await form.getByLabel('Name').fill('too late');
    await form.getByRole('button', { name: 'Create key' }).click();
    await page.getByLabel('Member token').waitFor();
    await page
      .getByRole('main')
      .getByRole('alert')
      .first()
      .filter({ hasText: answer.json.error.message })
      .waitFor();
    expect(await page.evaluate((key) => sessionStorage.getItem(key), TOKEN_STORAGE_KEY)).to.equal(null);
  });
});
