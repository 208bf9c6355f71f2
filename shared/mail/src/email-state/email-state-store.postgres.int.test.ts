// The email-state store on real PostgreSQL: one transaction (one statement when nothing is
// suppressed) writes the row's status, last event and Kafka position, the events and the
// suppressions; a stale position writes nothing; the table's keys make a replayed event
// harmless; load rehydrates what the logic needs; and the mail sender's columns are never touched.
import { createLogger, newId } from '@lattice/core';
import { testConfig, uniqueName } from '@lattice/core/testing';
import { bootstrapProduct, createDb, type Db, migrateLatest } from '@lattice/store';
import { expect } from 'chai';
import type { MailEventRecord, MailEventType } from '../events/mail-event.ts';
import { createPostgresSuppressionStore } from '../suppression/suppression-store.postgres.ts';
import { insertTestEmail } from '../testing.ts';
import type { EmailState } from './email-state.ts';
import { createPostgresEmailStateStore } from './email-state-store.postgres.ts';
import { type EmailStateCommit, EmailStateFencedError } from './email-state-store.ts';

const T0 = Date.UTC(2026, 10, 24, 12, 0, 0, 123);

describe('email-state store (PostgreSQL)', () => {
  const config = testConfig();
  let db: Db;
  let productId: string;

  before(async () => {
    db = createDb({ databaseUrl: config.databaseUrl });
    await migrateLatest(db, createLogger({ name: 't', level: 'silent' }));
    productId = (await bootstrapProduct(db, { name: uniqueName('mail-state-store') })).product_id;
  });
  after(() => db.destroy());

  const event = (
    emailId: string,
    type: MailEventType,
    over: Partial<MailEventRecord> = {},
  ): MailEventRecord => ({
    event_id: newId(),
    product_id: productId,
    email_id: emailId,
    type,
    recipient: 'ann@example.org',
    bounce_kind: null,
    reason: null,
    provider_message_id: null,
    link: null,
    occurred_at_ms: T0,
    ...over,
  });

  function commitOf(
    base: EmailState,
    over: Partial<EmailState>,
    rest: Partial<EmailStateCommit> & { offset: bigint },
  ): EmailStateCommit {
    return {
      emailId: base.emailId,
      expected: null,
      state: { ...base, ...over },
      applied: { partition: 4, offset: rest.offset },
      events: [],
      suppressions: [],
      ...rest,
    };
  }

  const rowOf = (id: string) => db('mail_emails').where({ id }).first();

  it('loads a new email as queued with nothing applied, and an unknown id as null', async () => {
    const store = createPostgresEmailStateStore(db);
    const id = await insertTestEmail(db, { productId, to: 'Ann <Ann@Example.ORG>' });
    const stored = await store.load(id);
    expect(stored).to.deep.equal({
      state: {
        emailId: id,
        productId,
        recipient: 'ann@example.org',
        status: 'queued',
        lastEvent: null,
        opened: false,
        clickedLinks: new Set(),
        recordedEventIds: new Set(),
      },
      applied: null,
    });
    expect(await store.load(newId())).to.equal(null);
  });

  it('commits status, last event, events, suppression and position together; load gives them back', async () => {
    const store = createPostgresEmailStateStore(db);
    const id = await insertTestEmail(db, { productId });
    const base = (await store.load(id))!.state;
    const events = [
      event(id, 'delivered', { provider_message_id: 'Q1', occurred_at_ms: T0 }),
      event(id, 'opened', { occurred_at_ms: T0 + 1 }),
      event(id, 'clicked', { link: 'https://example.org/a', occurred_at_ms: T0 + 2 }),
      event(id, 'bounced', { bounce_kind: 'hard', reason: '550 5.1.1 unknown', occurred_at_ms: T0 + 3 }),
    ];
    const lastEvent = {
      type: 'bounced' as const,
      occurredAtMs: T0 + 3,
      bounceKind: 'hard' as const,
      reason: '550 5.1.1 unknown',
    };
    await store.commit(
      commitOf(
        base,
        { status: 'bounced', lastEvent },
        {
          offset: 41n,
          events,
          suppressions: [{ address: 'ann@example.org', reason: 'hard_bounce', emailId: id }],
        },
      ),
    );
    const row = await rowOf(id);
    expect(row).to.include({
      status: 'bounced',
      last_event_type: 'bounced',
      last_event_bounce_kind: 'hard',
      last_event_reason: '550 5.1.1 unknown',
      state_partition: 4,
      state_offset: '41',
    });
    expect(row.last_event_at.getTime()).to.equal(T0 + 3);
    const rows = await db('mail_email_events').where({ email_id: id }).orderBy('occurred_at');
    expect(rows.map((r) => [r.event_id, r.type, r.product_id, r.link, r.provider_message_id])).to.deep.equal(
      events.map((e) => [e.event_id, e.type, productId, e.link, e.provider_message_id]),
    );
    const listed = await createPostgresSuppressionStore(db).list(productId, { limit: 10 });
    expect(listed.map((s) => [s.address, s.reason, s.emailId])).to.deep.include([
      'ann@example.org',
      'hard_bounce',
      id,
    ]);

    const loaded = (await store.load(id))!;
    expect(loaded.applied).to.deep.equal({ partition: 4, offset: 41n });
    expect(loaded.state).to.deep.include({ status: 'bounced', lastEvent, opened: true });
    expect([...loaded.state.clickedLinks]).to.deep.equal(['https://example.org/a']);
    expect([...loaded.state.recordedEventIds].sort()).to.deep.equal(events.map((e) => e.event_id).sort());
  });

  it('writes nothing when the stored position is not the expected one', async () => {
    const store = createPostgresEmailStateStore(db);
    const id = await insertTestEmail(db, { productId, to: 'fenced@example.org' });
    const base = (await store.load(id))!.state;
    await store.commit(
      commitOf(base, { status: 'delivered' }, { offset: 5n, events: [event(id, 'delivered')] }),
    );
    for (const expected of [null, { partition: 4, offset: 4n }, { partition: 3, offset: 5n }]) {
      const err = await store
        .commit(
          commitOf(
            base,
            { status: 'bounced' },
            {
              offset: 9n,
              expected,
              events: [event(id, 'bounced', { bounce_kind: 'hard' })],
              suppressions: [{ address: 'fenced@example.org', reason: 'hard_bounce', emailId: id }],
            },
          ),
        )
        .catch((e: unknown) => e);
      expect(err, JSON.stringify(String(expected?.offset))).to.be.instanceOf(EmailStateFencedError);
    }
    expect(await rowOf(id)).to.include({ status: 'delivered', state_offset: '5' });
    expect(await db('mail_email_events').where({ email_id: id })).to.have.length(1);
    expect(await createPostgresSuppressionStore(db).isSuppressed(productId, 'fenced@example.org')).to.equal(
      false,
    );
    // The right position goes through.
    await store.commit(
      commitOf(base, { status: 'bounced' }, { offset: 9n, expected: { partition: 4, offset: 5n } }),
    );
    expect(await rowOf(id)).to.include({ status: 'bounced', state_offset: '9' });
  });

  it('a commit without suppressions (one statement): every field of the event stored, fenced the same way, replays ignored', async () => {
    const store = createPostgresEmailStateStore(db);
    const id = await insertTestEmail(db, { productId, to: 'one@example.org' });
    const base = (await store.load(id))!.state;
    const delivered = event(id, 'delivered', { provider_message_id: 'Q1', reason: '250 ok' });
    await store.commit(commitOf(base, { status: 'delivered' }, { offset: 3n, events: [delivered] }));
    const [stored] = await db('mail_email_events').where({ email_id: id });
    expect(stored).to.include({
      event_id: delivered.event_id,
      product_id: productId,
      email_id: id,
      type: 'delivered',
      recipient: 'ann@example.org',
      bounce_kind: null,
      reason: '250 ok',
      provider_message_id: 'Q1',
      link: null,
    });
    expect(stored.occurred_at.getTime()).to.equal(T0);
    for (const expected of [null, { partition: 4, offset: 2n }]) {
      const err = await store
        .commit(
          commitOf(base, { status: 'bounced' }, { offset: 9n, expected, events: [event(id, 'bounced')] }),
        )
        .catch((e: unknown) => e);
      expect(err).to.be.instanceOf(EmailStateFencedError);
    }
    // Without events it is the fenced UPDATE alone, fenced too.
    const alone = await store
      .commit(commitOf(base, { status: 'bounced' }, { offset: 9n, expected: null }))
      .catch((e: unknown) => e);
    expect(alone).to.be.instanceOf(EmailStateFencedError);
    expect(await rowOf(id)).to.include({ status: 'delivered', state_offset: '3' });
    const open = event(id, 'opened');
    await store.commit(
      commitOf(
        base,
        { status: 'delivered' },
        {
          offset: 4n,
          expected: { partition: 4, offset: 3n },
          events: [
            delivered,
            open,
            event(id, 'opened'),
            event(id, 'clicked', { link: 'https://example.org/a' }),
          ],
        },
      ),
    );
    await store.commit(
      commitOf(
        base,
        { status: 'delivered' },
        {
          offset: 5n,
          expected: { partition: 4, offset: 4n },
          events: [open, event(id, 'clicked', { link: 'https://example.org/a' })],
        },
      ),
    );
    const rows = await db('mail_email_events').where({ email_id: id }).select('type', 'link');
    expect(rows.map((r) => `${r.type} ${r.link}`).sort()).to.deep.equal([
      'clicked https://example.org/a',
      'delivered null',
      'opened null',
    ]);
    const loaded = (await store.load(id))!;
    expect(loaded.applied).to.deep.equal({ partition: 4, offset: 5n });
    expect(loaded.state.opened).to.equal(true);
    expect([...loaded.state.clickedLinks]).to.deep.equal(['https://example.org/a']);
    expect(loaded.state.recordedEventIds.size).to.equal(3);
  });

  it('rolls the whole commit back when a part of it fails', async () => {
    const store = createPostgresEmailStateStore(db);
    const id = await insertTestEmail(db, { productId });
    const base = (await store.load(id))!.state;
    const broken = { ...event(id, 'delivered'), email_id: 'not-a-uuid' };
    const err = await store
      .commit(commitOf(base, { status: 'delivered' }, { offset: 1n, events: [event(id, 'opened'), broken] }))
      .catch((e: unknown) => e);
    expect(err).to.be.instanceOf(Error);
    expect(await rowOf(id)).to.include({ status: 'queued', state_partition: null, state_offset: null });
    expect(await db('mail_email_events').where({ email_id: id })).to.have.length(0);
  });

  it('ignores a replayed event id, a second open and a repeated link; keeps an existing suppression', async () => {
    const store = createPostgresEmailStateStore(db);
    const id = await insertTestEmail(db, { productId, to: 'listed@example.org' });
    await createPostgresSuppressionStore(db).add(productId, {
      address: 'listed@example.org',
      reason: 'manual',
      emailId: null,
    });
    const base = (await store.load(id))!.state;
    const open = event(id, 'opened');
    const click = event(id, 'clicked', { link: 'https://example.org/a' });
    await store.commit(commitOf(base, {}, { offset: 1n, events: [open, click] }));
    await store.commit(
      commitOf(
        base,
        {},
        {
          offset: 2n,
          expected: { partition: 4, offset: 1n },
          events: [
            open,
            event(id, 'opened'),
            event(id, 'clicked', { link: 'https://example.org/a' }),
            event(id, 'clicked', { link: 'https://example.org/b' }),
          ],
          suppressions: [{ address: 'listed@example.org', reason: 'complaint', emailId: id }],
        },
      ),
    );
    const rows = await db('mail_email_events').where({ email_id: id }).select('type', 'link');
    expect(rows.map((r) => `${r.type} ${r.link}`).sort()).to.deep.equal([
      'clicked https://example.org/a',
      'clicked https://example.org/b',
      'opened null',
    ]);
    const entry = await db('mail_suppressions')
      .where({ product_id: productId, address: 'listed@example.org' })
      .first();
    expect(entry).to.include({ reason: 'manual', email_id: null });
  });

  it('never writes the mail sender’s columns', async () => {
    const store = createPostgresEmailStateStore(db);
    const id = await insertTestEmail(db, { productId });
    const sender = {
      send_attempts: 2,
      send_state: 'done',
      provider_message_id: 'QUEUE42',
      send_partition: 7,
      send_offset: '99',
      send_outcome_event: JSON.stringify({ type: 'delivered' }),
    };
    await db('mail_emails').where({ id }).update(sender);
    const before = await rowOf(id);
    const base = (await store.load(id))!.state;
    await store.commit(
      commitOf(base, { status: 'delivered' }, { offset: 3n, events: [event(id, 'delivered')] }),
    );
    const after = await rowOf(id);
    for (const column of Object.keys(before).filter(
      (c) => c.startsWith('send_') || c === 'provider_message_id',
    )) {
      expect(after[column], column).to.deep.equal(before[column]);
    }
    expect(after.status).to.equal('delivered');
  });
});
