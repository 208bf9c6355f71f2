// Reading an email on real PostgreSQL: the decisions.md shape, the newest event as the email-
// state actor stored it, and one answer (undefined → 404) for unknown, foreign and junk ids.
import { createLogger, newId } from '@lattice/core';
import { testConfig, uniqueName } from '@lattice/core/testing';
import { createSchemaChecker, loadSchemaRegistry } from '@lattice/http';
import { bootstrapProduct, createDb, type Db, migrateLatest } from '@lattice/store';
import { expect } from 'chai';
import { insertTestEmail } from '../testing.ts';
import { readEmail } from './email-reader.ts';

/** The answer schema the edge's `GET /emails/{id}` and `mail_email_get` declare. */
const checkSchema = createSchemaChecker(loadSchemaRegistry());

describe('readEmail (PostgreSQL)', () => {
  const config = testConfig();
  let db: Db;
  let productId: string;
  let otherProductId: string;

  before(async () => {
    db = createDb({ databaseUrl: config.databaseUrl });
    await migrateLatest(db, createLogger({ name: 't', level: 'silent' }));
    productId = (await bootstrapProduct(db, { name: uniqueName('mail-read') })).product_id;
    otherProductId = (await bootstrapProduct(db, { name: uniqueName('mail-read-other') })).product_id;
  });
  after(() => db.destroy());

  it('answers a new email with its headers as sent, status queued and no last event', async () => {
    const id = await insertTestEmail(db, {
      productId,
      from: 'Shop <news@shop.example.test>',
      to: 'Ann B <Ann@Example.org>',
      subject: 'Your order',
    });
    const created = ((await db('mail_emails').where({ id }).first('created_at')) as { created_at: Date })
      .created_at;
    expect(await readEmail(db, productId, id)).to.deep.equal({
      id,
      from: 'Shop <news@shop.example.test>',
      to: 'Ann B <Ann@Example.org>',
      subject: 'Your order',
      status: 'queued',
      created_at: created.toISOString(),
      last_event: null,
    });
    expect(checkSchema('mail-email', await readEmail(db, productId, id))).to.deep.equal([]);
  });

  it('shows the stored last event without the email. prefix', async () => {
    const id = await insertTestEmail(db, { productId, status: 'suppressed' });
    await db('mail_emails')
      .where({ id })
      .update({
        status: 'bounced',
        last_event_type: 'bounced',
        last_event_at: new Date(Date.UTC(2026, 10, 24, 8, 30, 0, 5)),
        last_event_bounce_kind: 'hard',
        last_event_reason: '550 5.1.1 user unknown',
      });
    const view = await readEmail(db, productId, id);
    expect(view?.status).to.equal('bounced');
    expect(view?.last_event).to.deep.equal({
      type: 'bounced',
      occurred_at: '2026-11-24T08:30:00.005Z',
      bounce_kind: 'hard',
      reason: '550 5.1.1 user unknown',
    });
    expect(checkSchema('mail-email', view)).to.deep.equal([]);
    expect(
      checkSchema('mail-email', { ...view, last_event: { ...view!.last_event, type: 'email.bounced' } }),
    ).to.not.deep.equal([]);
  });

  it('answers undefined for an unknown id, another product’s id and ids that are not uuids', async () => {
    const id = await insertTestEmail(db, { productId });
    expect(await readEmail(db, productId, id)).to.not.equal(undefined);
    expect(
      await readEmail(db, productId, id.toUpperCase()),
      'a uuid in capitals is the same id',
    ).to.not.equal(undefined);
    for (const [owner, asked] of [
      [productId, newId()],
      [otherProductId, id],
      [productId, 'abc123'],
      [productId, `${id}x`],
      [productId, "' or 1=1 --"],
      ['not-a-product', id],
    ]) {
      expect(await readEmail(db, owner!, asked!), `${owner} ${asked}`).to.equal(undefined);
    }
  });
});
