// The Settings → Members page in real headless Chromium (Debian's, driven by playwright-core)
// against a real management server on PostgreSQL and Redis. Every action is made the way a user
// makes it (labels, roles, buttons) and then checked through the API itself: a token the page
// showed works against the API, a role the page changed is the role the API holds, a removed
// member's token is refused, and the audit log the page lists is the one the API answers.
import { ApiError } from '@lattice/core';
import { captureLogs } from '@lattice/core/testing';
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import {
  isFocused,
  readClipboard,
  signIn as signInAs,
  TOKEN_STORAGE_KEY,
  useChromiumTabs,
} from '../../../../test/support/dashboard-tabs.ts';
import { startTestManagement, type TestManagement } from '../testing/test-management.ts';
import { readDashboardFiles } from './dashboard-files.ts';
import {
  DASHBOARD_PAGE_PATH,
  DASHBOARD_SCRIPT_PATH,
  dashboardRoutes,
  MEMBERS_PAGE_PATH,
  MEMBERS_SCRIPT_PATH,
} from './dashboard-routes.ts';

interface MemberJson {
  id: string;
  name: string;
  role: 'owner' | 'admin' | 'member';
  created_at: string;
}
interface TokenJson {
  id: string;
  name: string;
  member_id: string;
  visible: string;
  status: 'active' | 'revoked';
}
interface AuditJson {
  id: string;
  operation: string;
  actor: { credential_kind: string; member_id: string | null };
  target: { type: string; id: string | null };
  changes: string[];
}
interface PageJson<T> {
  data: T[];
  next_cursor: string | null;
}
interface ErrorJson {
  error: { code: string; message: string };
}

describe('dashboard: Settings → Members in Chromium', function () {
  this.timeout(60_000);
  let t: TestManagement;

  before(async () => {
    t = await startTestManagement();
  });
  after(async () => {
    await t?.close();
  });
  const tabs = useChromiumTabs();

  const pageUrl = () => `${t.server.url}${MEMBERS_PAGE_PATH}`;
  const openPage = () => tabs.open(pageUrl());
  const signIn = (page: Page, token: string) => signInAs(page, token, 'People');

  /** The row whose name is exactly `name` (a row header also holds badges: "you", "this page"). */
  const row = (page: Page, name: string) =>
    page.getByRole('row').filter({ has: page.getByRole('rowheader').getByText(name, { exact: true }) });
  const auditTable = (page: Page) => page.getByRole('table', { name: 'Audit log, newest first' });
  const auditRows = (page: Page) => auditTable(page).locator('tbody').getByRole('row');

  const members = async (token: string) =>
    (await t.call<PageJson<MemberJson>>('GET', '/organization/members?limit=100', token)).json.data;
  /** Every audit entry of the caller's product, newest first, through the API's own paging. */
  async function auditLog(token: string): Promise<AuditJson[]> {
    const entries: AuditJson[] = [];
    let cursor: string | null = null;
    do {
      const query: string = cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`;
      const r = await t.call<PageJson<AuditJson>>('GET', `/organization/audit-log?limit=100${query}`, token);
      expect(r.status, r.text).to.equal(200);
      entries.push(...r.json.data);
      cursor = r.json.next_cursor;
    } while (cursor !== null);
    return entries;
  }
  const ownerOf = async (token: string) => {
    const product = await t.call<{ caller: { member_id: string } }>('GET', '/organization/product', token);
    return product.json.caller.member_id;
  };

  it('is served without a credential, under the dashboard’s CSP, linked with Public Access both ways', async () => {
    const res = await fetch(pageUrl());
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.match(/^text\/html/);
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp).to.include("script-src 'self'");
    expect(csp).to.include("form-action 'none'");
    expect(csp).to.not.include('unsafe-inline');
    const html = await res.text();
    for (const tag of html.match(/<script\b[^>]*>/g) ?? []) expect(tag).to.match(/\ssrc="\/dashboard\//);
    expect(html).to.include(`src="${MEMBERS_SCRIPT_PATH}"`);
    expect(html).to.not.match(/\son[a-z]+="/i);
    expect(html).to.not.match(/\sstyle="/i);
    const script = await fetch(`${t.server.url}${MEMBERS_SCRIPT_PATH}`);
    expect(script.status).to.equal(200);
    expect(script.headers.get('content-type')).to.match(/^text\/javascript/);
    expect(await script.text()).to.not.match(/\bfrom\s*["']/);

    // One settings page leads to the other, and back.
    const { page } = await openPage();
    await page
      .getByRole('navigation', { name: 'Settings pages' })
      .getByRole('link', { name: 'Public Access' })
      .click();
    await page.waitForURL(`${t.server.url}${DASHBOARD_PAGE_PATH}`);
    await page.getByRole('heading', { name: 'Public Access', level: 1 }).waitFor();
    await page
      .getByRole('navigation', { name: 'Settings pages' })
      .getByRole('link', { name: 'Members' })
      .click();
    await page.waitForURL(pageUrl());
    await page.getByRole('heading', { name: 'Members', level: 1 }).waitFor();
    await page.getByLabel('Member token').waitFor();
  });

  it('answers 503 dashboard_unavailable for each page’s script while the bundles cannot be built', async () => {
    const logs = captureLogs();
    const routes = dashboardRoutes({
      ...readDashboardFiles(),
      scripts: () => Promise.reject(new Error('esbuild is missing')),
      logger: logs.logger,
    });
    for (const path of [DASHBOARD_SCRIPT_PATH, MEMBERS_SCRIPT_PATH]) {
      const route = routes.find((r) => r.path === path);
      const failure = await Promise.resolve()
        .then(() => route!.handler({} as never))
        .then(
          () => undefined,
          (err: unknown) => err,
        );
      expect(failure, path).to.be.instanceOf(ApiError);
      expect([(failure as ApiError).status, (failure as ApiError).code]).to.deep.equal([
        503,
        'dashboard_unavailable',
      ]);
    }
    // Each page is still served: only its script is missing.
    const served = await routes.find((r) => r.path === MEMBERS_PAGE_PATH)!.handler({} as never);
    expect(served.status).to.equal(200);
    expect(String(served.body)).to.include(`src="${MEMBERS_SCRIPT_PATH}"`);
  });

  it('lets an owner add a member, hand over its token, change its role and remove it; the audit log lists each change', async () => {
    const p = await t.newProduct('members-owner');
    const ownerId = await ownerOf(p.owner_token);
    const o = await openPage();
    const { page } = o;
    await signIn(page, p.owner_token);
    await page.getByRole('banner').getByText('owner', { exact: true }).waitFor();
    await row(page, 'owner').getByText('you', { exact: true }).waitFor();

    // Add: the role choices are every role, `member` preselected.
    const form = page.getByRole('region', { name: 'Add member' });
    const roleSelect = form.getByLabel('Role', { exact: true });
    const offered = await roleSelect
      .locator('option')
      .evaluateAll((os) => os.map((x) => x.getAttribute('value')));
    expect(offered).to.deep.equal(['owner', 'admin', 'member']);
    expect(await roleSelect.inputValue()).to.equal('member');
    await form.getByLabel('Name').fill('Grace Hopper');
    await form.getByRole('button', { name: 'Add member' }).click();

    // Its token, shown once, copied, works against the API.
    const panel = page.getByRole('region', { name: 'Copy the new member’s token now' });
    await panel.waitFor();
    const token = await panel.getByLabel('New member’s token').inputValue();
    expect(token).to.match(/^lmt_[0-9a-f]{32}$/);
    await panel.getByRole('button', { name: 'Copy' }).click();
    await page.getByRole('status').filter({ hasText: 'copied' }).waitFor();
    expect(await readClipboard(page)).to.equal(token);
    const asGrace = await t.call<PageJson<MemberJson>>('GET', '/organization/members', token);
    expect(asGrace.status, asGrace.text).to.equal(200);
    const grace = asGrace.json.data.find((m) => m.name === 'Grace Hopper');
    expect(grace?.role).to.equal('member');
    const graceId = grace!.id;
    await row(page, 'Grace Hopper').waitFor();

    // Change the role: Save stays disabled until another role is chosen.
    const graceRole = row(page, 'Grace Hopper').getByRole('combobox', { name: 'Role of Grace Hopper' });
    const save = row(page, 'Grace Hopper').getByRole('button', { name: 'Save role of Grace Hopper' });
    expect(await graceRole.inputValue()).to.equal('member');
    expect(await save.isDisabled()).to.equal(true);
    await graceRole.selectOption('admin');
    await save.click();
    await page.getByRole('status').filter({ hasText: 'Grace Hopper is now admin.' }).waitFor();
    expect((await members(p.owner_token)).find((m) => m.id === graceId)?.role).to.equal('admin');
    expect(await row(page, 'Grace Hopper').getByRole('combobox').inputValue()).to.equal('admin');
    // The audit log was read again: the change is on top, its target named while Grace is listed.
    const latest = auditRows(page).first();
    await latest.getByText('organization_members_update-role', { exact: true }).waitFor();
    expect((await latest.getByRole('cell').allInnerTexts())[3]).to.equal(`member Grace Hopper\n${graceId}`);

    // Remove, behind a confirmation that says the tokens stop at once; Cancel has the focus.
    await row(page, 'Grace Hopper').getByRole('button', { name: 'Remove Grace Hopper' }).click();
    const dialog = page.getByRole('dialog', { name: 'Remove “Grace Hopper”?' });
    await dialog.waitFor();
    expect(await dialog.textContent()).to.match(/stops working at once/);
    expect(await isFocused(dialog.getByRole('button', { name: 'Cancel' }))).to.equal(true);
    await dialog.getByRole('button', { name: 'Remove member' }).click();
    await dialog.waitFor({ state: 'hidden' });
    await row(page, 'Grace Hopper').waitFor({ state: 'detached' });
    expect((await members(p.owner_token)).map((m) => m.id)).to.not.include(graceId);
    const refused = await t.call<ErrorJson>('GET', '/organization/members', token);
    expect(refused.status).to.equal(401);

    // The audit log, reread after each change: the page shows what the API holds, newest first,
    // with the three changes made here by the owner's token on Grace.
    const entries = await auditLog(p.owner_token);
    const ops = [
      'organization_members_remove',
      'organization_members_update-role',
      'organization_members_create',
    ];
    expect(entries.slice(0, 3).map((e) => [e.operation, e.target.id, e.actor.member_id])).to.deep.equal(
      ops.map((op) => [op, graceId, ownerId]),
    );
    await auditRows(page)
      .nth(entries.length - 1)
      .waitFor();
    expect(await auditRows(page).count()).to.equal(entries.length);
    const shown = await auditRows(page).evaluateAll((rows) =>
      rows.map((r) => r.getAttribute('data-audit-id')),
    );
    expect(shown).to.deep.equal(entries.map((e) => e.id));
    for (const [i, op] of ops.entries()) {
      const cells = await auditRows(page).nth(i).getByRole('cell').allInnerTexts();
      expect(cells[1], 'who').to.equal('owner\nmember token');
      expect(cells[2], 'operation').to.equal(op);
      expect(cells[3], 'target').to.equal(`member\n${graceId}`);
    }
    expect(
      await auditRows(page).nth(1).getByRole('cell').nth(4).getByRole('listitem').allTextContents(),
    ).to.deep.equal(['role']);

    // Signed in here means signed in on Public Access too (the same tab's session).
    await page.getByRole('link', { name: 'Public Access' }).click();
    await page.getByRole('heading', { name: 'Keys', exact: true }).waitFor();
    expect(o.urls.filter((u) => u.includes(p.owner_token) || u.includes(token))).to.deep.equal([]);
  });

  it('shows the API’s words when the last owner would be demoted or removed', async () => {
    const p = await t.newProduct('members-last-owner');
    const ownerId = await ownerOf(p.owner_token);
    const demote = await t.call<ErrorJson>('PUT', `/organization/members/${ownerId}/role`, p.owner_token, {
      role: 'admin',
    });
    expect(demote.status, demote.text).to.equal(409);
    expect(demote.json.error.code).to.equal('last_owner');
    const { page } = await openPage();
    await signIn(page, p.owner_token);

    const own = row(page, 'owner');
    await own.getByRole('combobox', { name: 'Role of owner' }).selectOption('admin');
    await own.getByRole('button', { name: 'Save role of owner' }).click();
    await page.getByRole('main').getByRole('alert').filter({ hasText: demote.json.error.message }).waitFor();
    // The row shows the role the member still has.
    expect(await own.getByRole('combobox').inputValue()).to.equal('owner');

    await own.getByRole('button', { name: 'Remove owner' }).click();
    const dialog = page.getByRole('dialog', { name: 'Remove “owner”?' });
    await dialog.getByText('This is you').waitFor();
    await dialog.getByRole('button', { name: 'Remove member' }).click();
    await dialog.getByRole('alert').filter({ hasText: 'last_owner' }).waitFor();
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    expect((await members(p.owner_token)).map((m) => [m.id, m.role])).to.deep.equal([[ownerId, 'owner']]);
    // Failed requests write nothing.
    const ops = (await auditLog(p.owner_token)).map((e) => e.operation);
    expect(ops).to.not.include('organization_members_update-role');
    expect(ops).to.not.include('organization_members_remove');
  });

  it('offers an admin only admin and member, and no action on an owner', async () => {
    const p = await t.newProduct('members-admin');
    const admin = await t.newMember(p.product_id, 'admin');
    const member = await t.newMember(p.product_id, 'member');
    const names = new Map((await members(p.owner_token)).map((m) => [m.id, m.name]));
    const memberName = names.get(member.memberId)!;
    const { page } = await openPage();
    await signIn(page, admin.token);
    await page.getByRole('banner').getByText('admin', { exact: true }).waitFor();

    const form = page.getByRole('region', { name: 'Add member' });
    const offered = await form
      .getByLabel('Role', { exact: true })
      .locator('option')
      .evaluateAll((os) => os.map((x) => x.getAttribute('value')));
    expect(offered).to.deep.equal(['admin', 'member']);

    const ownerRow = row(page, 'owner');
    await ownerRow.waitFor();
    expect(await ownerRow.getByRole('combobox').count()).to.equal(0);
    expect(await ownerRow.getByRole('button').count()).to.equal(0);
    const memberRow = row(page, memberName);
    const options = await memberRow
      .getByRole('combobox', { name: `Role of ${memberName}` })
      .locator('option')
      .evaluateAll((os) => os.map((x) => x.getAttribute('value')));
    expect(options).to.deep.equal(['admin', 'member']);
    await memberRow.getByRole('button', { name: `Remove ${memberName}` }).waitFor();
    await auditTable(page).waitFor();
  });

  it('shows a member the list and its own tokens, with no member actions and no audit log', async () => {
    const p = await t.newProduct('members-member');
    await t.newMember(p.product_id, 'admin');
    const member = await t.newMember(p.product_id, 'member');
    const o = await openPage();
    const { page } = o;
    await signIn(page, member.token);
    await page.getByRole('banner').getByText('member', { exact: true }).waitFor();
    await page.getByText('You are signed in as a member').waitFor();

    // Every member is listed, with roles as text only.
    const listed = await members(p.owner_token);
    const rowHeaders = page
      .getByRole('table', { name: 'Members of the product, oldest first' })
      .getByRole('rowheader');
    await rowHeaders.nth(listed.length - 1).waitFor();
    expect(await rowHeaders.count()).to.equal(listed.length);
    const main = page.getByRole('main');
    expect(await main.getByRole('combobox').count()).to.equal(0);
    expect(await main.getByRole('button', { name: /^Remove / }).count()).to.equal(0);
    expect(await main.getByRole('button', { name: /^Save role/ }).count()).to.equal(0);
    expect(await page.getByRole('region', { name: 'Add member' }).count()).to.equal(0);
    expect(await page.getByRole('heading', { name: 'Audit log' }).count()).to.equal(0);
    expect(await page.getByRole('columnheader', { name: 'Actions' }).count()).to.equal(1); // the tokens table's
    expect(o.urls.filter((u) => u.includes('/organization/audit-log'))).to.deep.equal([]);

    // Its own tokens: create one, shown once, copied, working; then revoke it.
    const tokens = page.getByRole('region', { name: 'Your tokens' });
    await row(page, 'bootstrap token').getByText('this page').waitFor();
    await tokens.getByLabel('Token name').fill('deploy script');
    await tokens.getByRole('button', { name: 'Create token' }).click();
    const panel = page.getByRole('region', { name: 'Copy your new token now' });
    const value = await panel.getByLabel('New token').inputValue();
    expect(value).to.match(/^lmt_[0-9a-f]{32}$/);
    await panel.getByRole('button', { name: 'Copy' }).click();
    await page.getByRole('status').filter({ hasText: 'copied' }).waitFor();
    expect(await readClipboard(page)).to.equal(value);
    expect((await t.call('GET', '/organization/member-tokens', value)).status).to.equal(200);
    await row(page, 'deploy script')
      .getByText(`lmt_${value.slice(4, 12)}…`)
      .waitFor();

    await row(page, 'deploy script').getByRole('button', { name: 'Revoke token deploy script' }).click();
    const dialog = page.getByRole('dialog', { name: 'Revoke “deploy script”?' });
    await dialog.getByRole('button', { name: 'Revoke token' }).click();
    await dialog.waitFor({ state: 'hidden' });
    await row(page, 'deploy script').getByText('Revoked').waitFor();
    expect((await t.call('GET', '/organization/member-tokens', value)).status).to.equal(401);
    const own = await t.call<PageJson<TokenJson>>('GET', '/organization/member-tokens', member.token);
    expect(own.json.data.map((k) => [k.name, k.status])).to.deep.equal([
      ['deploy script', 'revoked'],
      ['bootstrap token', 'active'],
    ]);
    // Listed as the API lists them, newest first.
    const tokenTable = page.getByRole('table', { name: 'Your member tokens, newest first' });
    expect(
      await tokenTable
        .locator('tbody tr')
        .evaluateAll((rows) => rows.map((r) => r.getAttribute('data-token-id'))),
    ).to.deep.equal(own.json.data.map((k) => k.id));

    // Revoking the token the page signed in with signs the page out.
    await row(page, 'bootstrap token').getByRole('button', { name: 'Revoke token bootstrap token' }).click();
    const self = page.getByRole('dialog', { name: 'Revoke “bootstrap token”?' });
    await self.getByText('signs the page out').waitFor();
    await self.getByRole('button', { name: 'Revoke token' }).click();
    await page.getByLabel('Member token').waitFor();
    await page.getByRole('status').filter({ hasText: 'signed out' }).waitFor();
    expect(await page.evaluate((key) => sessionStorage.getItem(key), TOKEN_STORAGE_KEY)).to.equal(null);
    expect((await t.call('GET', '/organization/members', member.token)).status).to.equal(401);
  });

  it('pages through the audit log with Load more entries', async () => {
    const p = await t.newProduct('members-audit-pages');
    // More entries than the page asks for at once (50): each token created is one entry.
    for (let batch = 0; batch < 55; batch += 11) {
      await Promise.all(
        Array.from({ length: 11 }, (_, i) =>
          t.call('POST', '/organization/member-tokens', p.owner_token, { name: `ci ${batch + i}` }),
        ),
      );
    }
    const entries = await auditLog(p.owner_token);
    expect(entries.length).to.be.greaterThan(50);
    const { page } = await openPage();
    await signIn(page, p.owner_token);

    const more = page.getByRole('button', { name: 'Load more entries' });
    await more.waitFor();
    expect(await auditRows(page).count()).to.equal(50);
    await more.click();
    await more.waitFor({ state: 'hidden' });
    const shown = await auditRows(page).evaluateAll((rows) =>
      rows.map((r) => r.getAttribute('data-audit-id')),
    );
    expect(shown).to.deep.equal(entries.map((e) => e.id));
  });
});
