// The suppression list through the management API on real PostgreSQL: create (201, then 200
// unchanged), bare addresses only, delete (204, then 404), paging at both sides of the limit
// bounds, one product's list only, and which credentials reach it.
import { createPostgresSuppressionStore } from '@lattice/mail';
import { expect } from 'chai';
import { startTestManagement, type TestManagement } from '../testing/test-management.ts';
import type { suppressionView } from './mail-suppression-routes.ts';

type Entry = ReturnType<typeof suppressionView>;
interface ListJson {
  data: Entry[];
  next_cursor: string | null;
}

const PATH = '/mail/suppressions';
const at = (address: string) => `${PATH}/${encodeURIComponent(address)}`;

describe('mail suppression routes (management API, real PostgreSQL)', () => {
  let t: TestManagement;

  before(async () => {
    t = await startTestManagement();
  });
  after(() => t.close());

  const create = (token: string, body: unknown) => t.call<Entry>('POST', PATH, token, body);
  const list = (token: string, query = '') => t.call<ListJson>('GET', `${PATH}${query}`, token);

  it('adds a manual entry (201), answers 200 with the entry unchanged when listed, and lower-cases', async () => {
    const p = await t.newProduct('sup-create');
    const first = await create(p.owner_token, { address: 'Ann.B@Example.ORG' });
    expect(first.status).to.equal(201);
    expect(first.json).to.deep.equal({
      address: 'ann.b@example.org',
      reason: 'manual',
      created_at: first.json.created_at,
      email_id: null,
    });
    expect(Date.parse(first.json.created_at)).to.be.a('number').and.not.NaN;
    const again = await create(p.owner_token, { address: 'ann.b@example.org' });
    expect(again.status).to.equal(200);
    expect(again.json).to.deep.equal(first.json);

    // Listed by a hard bounce first: a manual create keeps that reason.
    const emailId = '9f1f7c1e-2b7d-4c5e-8f3a-1d2e3f4a5b6c';
    await createPostgresSuppressionStore(t.db).add(p.product_id, {
      address: 'bounced@example.org',
      reason: 'hard_bounce',
      emailId,
    });
    const kept = await create(p.owner_token, { address: 'BOUNCED@example.org' });
    expect(kept.status).to.equal(200);
    expect(kept.json).to.deep.include({
      address: 'bounced@example.org',
      reason: 'hard_bounce',
      email_id: emailId,
    });
  });

  it('takes one bare address only: no display name, no angle brackets, no list', async () => {
    const p = await t.newProduct('sup-bad');
    const local = 'l'.repeat(64);
    const domain = `${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(61)}`;
    const longest = `${local}@${domain}`;
    expect(longest).to.have.length(254);
    const ok = await create(p.owner_token, { address: longest });
    expect(ok.status).to.equal(201);
    expect(ok.json.address).to.equal(longest);

    const refusedByRule = [
      'Ann <ann@example.org>',
      '<ann@example.org>',
      'ann@example.org, bob@example.org',
      ' ann@example.org',
      'ann',
      'ann@localhost',
      'ann@@example.org',
    ];
    for (const address of refusedByRule) {
      const r = await t.call('POST', PATH, p.owner_token, { address });
      expect(r.status, address).to.equal(400);
      expect(r.json.error, address).to.deep.include({
        code: 'validation_error',
        step: 'validation',
        fields: [
          { path: 'body.address', message: 'must be one bare email address, such as ann@example.org' },
        ],
      });
    }
    for (const body of [
      { address: `${local}x@${domain}` },
      { address: '' },
      {},
      { address: 5 },
      { address: 'a@b.co', x: 1 },
    ]) {
      const r = await t.call('POST', PATH, p.owner_token, body);
      expect(r.status, JSON.stringify(body).slice(0, 80)).to.equal(400);
      expect(r.json.error.code).to.equal('validation_error');
    }
    expect((await list(p.owner_token)).json.data.map((e) => e.address)).to.deep.equal([longest]);
  });

  it('deletes a listed address (204), URL-encoded and in any case; then 404, and it may be sent to again', async () => {
    const p = await t.newProduct('sup-delete');
    await create(p.owner_token, { address: 'gone+tag@example.org' });
    const suppressions = createPostgresSuppressionStore(t.db);
    expect(await suppressions.isSuppressed(p.product_id, 'gone+tag@example.org')).to.equal(true);
    const del = await t.call('DELETE', at('Gone+Tag@Example.org'), p.owner_token);
    expect(del.status).to.equal(204);
    expect(del.text).to.equal('');
    expect(await suppressions.isSuppressed(p.product_id, 'gone+tag@example.org')).to.equal(false);
    const again = await t.call('DELETE', at('gone+tag@example.org'), p.owner_token);
    expect(again.status).to.equal(404);
    expect(again.json.error).to.include({ code: 'not_found', step: 'suppressions' });
    expect((await t.call('DELETE', at('never@example.org'), p.owner_token)).status).to.equal(404);
    // Listed again later: a new entry.
    expect((await create(p.owner_token, { address: 'gone+tag@example.org' })).status).to.equal(201);
  });

  it('pages newest first with the last address as cursor, at both sides of the limit bounds', async () => {
    const p = await t.newProduct('sup-page');
    // 101 entries, one a second apart, so the order is known: s100 is the newest.
    const base = Date.UTC(2026, 0, 1);
    const addresses = Array.from({ length: 101 }, (_, i) => `s${String(i).padStart(3, '0')}@example.org`);
    await t.db('mail_suppressions').insert(
      addresses.map((address, i) => ({
        product_id: p.product_id,
        address,
        reason: 'manual',
        created_at: new Date(base + i * 1000),
      })),
    );
    const newestFirst = [...addresses].reverse();

    const one = await list(p.owner_token, '?limit=1');
    expect(one.status).to.equal(200);
    expect(one.json.data.map((e) => e.address)).to.deep.equal([newestFirst[0]]);
    expect(one.json.next_cursor).to.equal(newestFirst[0]);
    const second = await list(p.owner_token, `?limit=1&cursor=${encodeURIComponent(one.json.next_cursor!)}`);
    expect(second.json.data.map((e) => e.address)).to.deep.equal([newestFirst[1]]);

    const byDefault = await list(p.owner_token);
    expect(byDefault.json.data.map((e) => e.address)).to.deep.equal(newestFirst.slice(0, 50));
    expect(byDefault.json.next_cursor).to.equal(newestFirst[49]);

    const hundred = await list(p.owner_token, '?limit=100');
    expect(hundred.json.data.map((e) => e.address)).to.deep.equal(newestFirst.slice(0, 100));
    expect(hundred.json.next_cursor).to.equal(newestFirst[99]);
    const rest = await list(p.owner_token, `?limit=100&cursor=${hundred.json.next_cursor}`);
    expect(rest.json).to.deep.equal({
      data: [
        {
          address: newestFirst[100],
          reason: 'manual',
          created_at: new Date(base).toISOString(),
          email_id: null,
        },
      ],
      next_cursor: null,
    });

    for (const query of [
      '?limit=0',
      '?limit=101',
      '?limit=-1',
      '?limit=x',
      '?cursor=',
      `?cursor=${'a'.repeat(255)}`,
    ]) {
      const r = await t.call('GET', `${PATH}${query}`, p.owner_token);
      expect(r.status, query).to.equal(400);
      expect(r.json.error.code, query).to.equal('validation_error');
    }
    // A cursor no longer listed cannot say where to resume: 400, not an empty "last page".
    await t.call('DELETE', at(newestFirst[0]!), p.owner_token);
    const lost = await t.call('GET', `${PATH}?cursor=${encodeURIComponent(newestFirst[0]!)}`, p.owner_token);
    expect(lost.status).to.equal(400);
    expect(lost.json.error.fields).to.deep.equal([
      { path: 'query.cursor', message: 'is no longer on the suppression list; start from the first page' },
    ]);
  });

  it('shows and removes one product’s entries only', async () => {
    const a = await t.newProduct('sup-a');
    const b = await t.newProduct('sup-b');
    await create(a.owner_token, { address: 'shared@example.org' });
    expect((await list(b.owner_token)).json).to.deep.equal({ data: [], next_cursor: null });
    expect((await t.call('DELETE', at('shared@example.org'), b.owner_token)).status).to.equal(404);
    expect((await create(b.owner_token, { address: 'shared@example.org' })).status).to.equal(201);
    expect((await list(a.owner_token)).json.data).to.have.length(1);
  });

  it('is reached by member tokens and full_access mail keys; sending_access and realtime keys get 401', async () => {
    const p = await t.newProduct('sup-auth');
    const member = await t.newMember(p.product_id, 'member');
    const mailKey = async (scope: string) =>
      (await t.call<{ key: string }>('POST', '/mail/api-keys', p.owner_token, { name: scope, scope })).json
        .key;
    const full = await mailKey('full_access');
    const sending = await mailKey('sending_access');
    const rtk = (await t.call<{ key: string }>('POST', '/realtime/api-keys', p.owner_token, {})).json.key;
    expect(full).to.match(/^lmk_/);
    expect(rtk).to.match(/^rtk_/);

    for (const [who, token] of [
      ['member token', member.token],
      ['full_access lmk_', full],
    ] as const) {
      const address = `${who.replace(/\W/g, '')}@example.org`;
      expect((await create(token, { address })).status, who).to.equal(201);
      expect(
        (await list(token)).json.data.map((e) => e.address),
        who,
      ).to.include(address);
      expect((await t.call('DELETE', at(address), token)).status, who).to.equal(204);
    }

    await create(p.owner_token, { address: 'kept@example.org' });
    for (const [who, token] of [
      ['sending_access lmk_', sending],
      ['rtk_', rtk],
    ] as const) {
      for (const [method, path, body] of [
        ['GET', PATH, undefined],
        ['POST', PATH, { address: 'x@example.org' }],
        ['DELETE', at('kept@example.org'), undefined],
      ] as const) {
        const r = await t.call(method, path, token, body);
        expect(r.status, `${who} ${method}`).to.equal(401);
        expect(r.json.error, `${who} ${method}`).to.include({
          code: 'restricted_api_key',
          step: 'authorization',
        });
      }
    }
    const left = (await list(p.owner_token)).json.data.map((e) => e.address);
    expect(left).to.deep.equal(['kept@example.org']);
    expect((await t.call('GET', PATH)).status, 'no credential').to.equal(401);
  });
});
