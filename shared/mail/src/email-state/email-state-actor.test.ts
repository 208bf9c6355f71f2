// The email-state actor adapter on the memory store: one commit per batch, replays and re-produced
// events applied once, the state rehydrated after a reload, records that apply to nothing counted
// and acknowledged, malformed ones refused for the dead-letter topic, a stale owner fenced.
import { createLogger, newId, RetryableError, TerminalError } from '@lattice/core';
import type { ActorRecord } from '@lattice/kafka';
import { expect } from 'chai';
import type { MailEventRecord, MailEventType } from '../events/mail-event.ts';
import { mailEventKey } from '../events/mail-event.ts';
import { emailStateActorKind } from './email-state-actor.ts';
import { memoryEmailStateMetrics } from './email-state-metrics.ts';
import { createMemoryEmailStateStore } from './email-state-store.memory.ts';

const PRODUCT = '0b8f7a52-6a0e-4d36-9d49-9a6d1c1f0001';
const T0 = 1_790_000_000_000;
const logger = createLogger({ name: 'email-state-actor-test', level: 'silent' });

function setup() {
  const store = createMemoryEmailStateStore();
  const metrics = memoryEmailStateMetrics();
  const kind = emailStateActorKind({ store, logger, metrics });
  const emailId = newId();
  store.insertEmail({ id: emailId, productId: PRODUCT, toAddress: 'Ann@Example.org' });
  let offset = 0n;
  const rec = (value: MailEventRecord, at?: bigint): ActorRecord<MailEventRecord> => {
    offset = at ?? offset + 1n;
    return { topic: 't', partition: 2, offset, key: mailEventKey(value), value, timestampMs: 0 };
  };
  const event = (type: MailEventType, over: Partial<MailEventRecord> = {}): MailEventRecord => ({
    event_id: newId(),
    product_id: PRODUCT,
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
  return { store, metrics, kind, emailId, rec, event };
}

describe('email-state actor (memory store)', () => {
  it('applies a batch in one commit: status, last event, recorded events and the suppression', async () => {
    const { store, kind, emailId, rec, event } = setup();
    const actor = await kind.load(emailId, 2);
    expect(actor.applied()).to.equal(null);
    const batch = [
      rec(event('delivered', { occurred_at_ms: T0 })),
      rec(
        event('bounced', { bounce_kind: 'hard', reason: '550 5.1.1 no such user', occurred_at_ms: T0 + 9 }),
      ),
    ];
    await actor.handle(batch);
    expect(store.commits()).to.equal(1);
    expect(actor.applied()).to.deep.equal({ partition: 2, offset: batch[1]!.offset });
    const stored = (await store.load(emailId))!;
    expect(stored.state.status).to.equal('bounced');
    expect(stored.state.lastEvent).to.deep.equal({
      type: 'bounced',
      occurredAtMs: T0 + 9,
      bounceKind: 'hard',
      reason: '550 5.1.1 no such user',
    });
    expect(stored.applied).to.deep.equal(actor.applied());
    expect(store.events(emailId).map((e) => e.type)).to.deep.equal(['delivered', 'bounced']);
    expect(store.suppressions(PRODUCT)).to.deep.equal([
      { address: 'ann@example.org', reason: 'hard_bounce', emailId },
    ]);
  });

  it('skips replayed records by position and drops a re-produced event id, each once', async () => {
    const { store, metrics, kind, emailId, rec, event } = setup();
    const delivered = event('delivered');
    const first = rec(delivered);
    await (await kind.load(emailId, 2)).handle([first]);

    // After a crash: a new owner reloads the stored position; the host skips records up to it.
    const reloaded = await kind.load(emailId, 2);
    expect(reloaded.applied()).to.deep.equal({ partition: 2, offset: first.offset });

    // The same event produced again at a later offset: recorded once, nothing written.
    await reloaded.handle([rec(delivered)]);
    expect(store.commits()).to.equal(1);
    expect(store.events(emailId)).to.have.length(1);
    expect(metrics.counts).to.deep.equal({ duplicate_event: 1 });
  });

  it('rehydrates opens and clicked links: after a reload a repeat is still dropped', async () => {
    const { store, metrics, kind, emailId, rec, event } = setup();
    await (await kind.load(emailId, 2)).handle([
      rec(event('delivered')),
      rec(event('opened', { occurred_at_ms: T0 + 1 })),
      rec(event('clicked', { link: 'https://example.org/a', occurred_at_ms: T0 + 2 })),
    ]);
    const again = await kind.load(emailId, 2);
    await again.handle([
      rec(event('opened', { occurred_at_ms: T0 + 3 })),
      rec(event('clicked', { link: 'https://example.org/a', occurred_at_ms: T0 + 4 })),
    ]);
    expect(store.commits(), 'records that change nothing write nothing').to.equal(1);
    expect(metrics.counts).to.deep.equal({ repeat_open: 1, repeat_click: 1 });
    // The actor moved on in memory; the stored position stays at the last write.
    expect(again.applied()!.offset).to.equal(5n);
    expect((await store.load(emailId))!.applied!.offset).to.equal(3n);

    await again.handle([rec(event('clicked', { link: 'https://example.org/b', occurred_at_ms: T0 + 5 }))]);
    expect(store.events(emailId).map((e) => e.link)).to.deep.equal([
      null,
      null,
      'https://example.org/a',
      'https://example.org/b',
    ]);
    expect((await store.load(emailId))!.applied!.offset).to.equal(6n);
  });

  it('counts and acknowledges events matched to no email, and events of an email with no row', async () => {
    const { store, metrics, kind, rec, event } = setup();
    const unmatched = event('bounced', { email_id: null, bounce_kind: 'hard', recipient: 'bob@example.org' });
    const r = rec(unmatched);
    expect(r.key).to.equal('recipient:bob@example.org');
    const inert = await kind.load(r.key, 2);
    await inert.handle([r, rec(unmatched)]);
    expect(inert.applied()).to.equal(null);

    const missing = newId();
    const orphan = await kind.load(missing, 2);
    await orphan.handle([rec(event('delivered', { email_id: missing }))]);
    expect(metrics.counts).to.deep.equal({ unmatched: 2, unknown_email: 1 });
    expect(store.commits()).to.equal(0);
    expect(store.suppressions(PRODUCT), 'an unmatched hard bounce suppresses nothing here').to.deep.equal([]);
  });

  it('drops and counts an event of another product', async () => {
    const { store, metrics, kind, emailId, rec, event } = setup();
    await (await kind.load(emailId, 2)).handle([
      rec(event('bounced', { bounce_kind: 'hard', product_id: newId() })),
    ]);
    expect(store.commits()).to.equal(0);
    expect(metrics.counts).to.deep.equal({ other_product: 1 });
    expect((await store.load(emailId))!.state.status).to.equal('queued');
  });

  it('refuses, for the dead-letter topic, a key that is not an email id and malformed records', async () => {
    const { store, kind, emailId, rec, event } = setup();
    let err = await kind.load('not-a-uuid', 2).catch((e: unknown) => e);
    expect(err).to.be.instanceOf(TerminalError);

    const actor = await kind.load(emailId, 2);
    for (const bad of [
      event('delivered', { email_id: newId() }),
      event('clicked', { link: null }),
      event('bounced', { bounce_kind: null }),
      event('delivered', { event_id: 'not-a-uuid' }),
    ]) {
      // Malformed after a good record in the same batch: the batch writes nothing.
      err = await actor
        .handle([rec(event('delivered')), { ...rec(bad), key: emailId }])
        .catch((e: unknown) => e);
      expect(err, JSON.stringify(bad)).to.be.instanceOf(TerminalError);
    }
    expect(store.commits()).to.equal(0);
    expect(actor.applied()).to.equal(null);
  });

  it('fences a stale owner: its commit writes nothing and asks the host to reload', async () => {
    const { store, kind, emailId, rec, event } = setup();
    const stale = await kind.load(emailId, 2);
    const owner = await kind.load(emailId, 2);
    await owner.handle([rec(event('delivered'))]);
    const err = await stale.handle([rec(event('bounced', { bounce_kind: 'hard' }))]).catch((e: unknown) => e);
    expect(err).to.be.instanceOf(RetryableError);
    expect(store.events(emailId).map((e) => e.type)).to.deep.equal(['delivered']);
    expect(store.suppressions(PRODUCT)).to.deep.equal([]);
    expect((await store.load(emailId))!.state.status).to.equal('delivered');
  });
});
