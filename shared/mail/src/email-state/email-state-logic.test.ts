// The email-state rules (spec "Mail webhook events" 1-3, decisions.md "Mail (interfaces)") on the
// pure logic: status moves, suppression, once-only opens and clicks, dedupe and ordering.
import { newId } from '@lattice/core';
import { expect } from 'chai';
import type { BounceKind, MailEventRecord, MailEventType } from '../events/mail-event.ts';
import type { EmailState, EmailStatus } from './email-state.ts';
import { applyMailEvent, mailEventProblem } from './email-state-logic.ts';

const PRODUCT = '0b8f7a52-6a0e-4d36-9d49-9a6d1c1f0001';
const EMAIL = '5d1c9a3e-0c55-4b39-8f0e-3f2b8f9a0002';
const T0 = 1_790_000_000_000;

function state(over: Partial<EmailState> = {}): EmailState {
  return {
    emailId: EMAIL,
    productId: PRODUCT,
    recipient: 'ann@example.org',
    status: 'queued',
    lastEvent: null,
    opened: false,
    clickedLinks: new Set(),
    recordedEventIds: new Set(),
    ...over,
  };
}

function event(type: MailEventType, over: Partial<MailEventRecord> = {}): MailEventRecord {
  return {
    event_id: newId(),
    product_id: PRODUCT,
    email_id: EMAIL,
    type,
    recipient: 'Ann@Example.org',
    bounce_kind: null,
    reason: null,
    provider_message_id: null,
    link: null,
    occurred_at_ms: T0,
    ...over,
  };
}
const bounce = (kind: BounceKind, over: Partial<MailEventRecord> = {}) =>
  event('bounced', { bounce_kind: kind, reason: `${kind} reason`, ...over });
const click = (link: string, over: Partial<MailEventRecord> = {}) => event('clicked', { link, ...over });

/** Applies events in order; returns the final state and every effect. */
function run(start: EmailState, events: MailEventRecord[]) {
  let s = start;
  const effects = [];
  for (const e of events) {
    const d = applyMailEvent(s, e);
    s = d.state;
    effects.push(...d.effects);
  }
  return { state: s, effects };
}

describe('email-state logic', () => {
  describe('status', () => {
    // Every status against every kind of event: a status never goes back.
    const cases: Array<[string, () => MailEventRecord, Record<EmailStatus, EmailStatus>]> = [
      [
        'delivered',
        () => event('delivered'),
        { queued: 'delivered', delivered: 'delivered', bounced: 'bounced', suppressed: 'suppressed' },
      ],
      [
        'hard bounce',
        () => bounce('hard'),
        { queued: 'bounced', delivered: 'bounced', bounced: 'bounced', suppressed: 'suppressed' },
      ],
      [
        'soft bounce',
        () => bounce('soft'),
        { queued: 'queued', delivered: 'delivered', bounced: 'bounced', suppressed: 'suppressed' },
      ],
      [
        'undetermined bounce',
        () => bounce('undetermined'),
        { queued: 'queued', delivered: 'delivered', bounced: 'bounced', suppressed: 'suppressed' },
      ],
      [
        'complaint',
        () => event('complained'),
        { queued: 'queued', delivered: 'delivered', bounced: 'bounced', suppressed: 'suppressed' },
      ],
      [
        'suppressed',
        () => event('suppressed'),
        { queued: 'suppressed', delivered: 'delivered', bounced: 'bounced', suppressed: 'suppressed' },
      ],
      [
        'open',
        () => event('opened'),
        { queued: 'queued', delivered: 'delivered', bounced: 'bounced', suppressed: 'suppressed' },
      ],
      [
        'click',
        () => click('https://example.org/a'),
        { queued: 'queued', delivered: 'delivered', bounced: 'bounced', suppressed: 'suppressed' },
      ],
    ];
    for (const [name, make, expected] of cases) {
      it(`${name}: ${JSON.stringify(expected)}`, () => {
        for (const from of Object.keys(expected) as EmailStatus[]) {
          const e = make();
          const d = applyMailEvent(state({ status: from }), e);
          expect(d.state.status, `from ${from}`).to.equal(expected[from]);
          // Whatever the status does, the event is recorded and becomes the last event.
          expect(d.effects[0], `from ${from}`).to.deep.equal({ type: 'record_event', event: e });
          expect(d.state.lastEvent?.type).to.equal(e.type);
        }
      });
    }

    it('ends bounced whether the DSN hard bounce arrives before or after the sender’s delivered', () => {
      const delivered = event('delivered', { occurred_at_ms: T0 });
      const dsn = bounce('hard', { occurred_at_ms: T0 + 60_000 });
      expect(run(state(), [delivered, dsn]).state.status).to.equal('bounced');
      const late = run(state(), [dsn, delivered]).state;
      expect(late.status).to.equal('bounced');
      expect(late.lastEvent?.type, 'the bounce is still the newest event').to.equal('bounced');
    });
  });

  describe('suppression', () => {
    it('suppresses the email’s own recipient on a hard bounce, also after delivered', () => {
      for (const from of ['queued', 'delivered'] as const) {
        const d = applyMailEvent(state({ status: from }), bounce('hard'));
        expect(d.effects.filter((e) => e.type === 'suppress')).to.deep.equal([
          { type: 'suppress', address: 'ann@example.org', reason: 'hard_bounce', emailId: EMAIL },
        ]);
      }
    });

    it('suppresses on a complaint (reason complaint) and leaves the status', () => {
      const d = applyMailEvent(state({ status: 'delivered' }), event('complained', { reason: 'abuse' }));
      expect(d.state.status).to.equal('delivered');
      expect(d.effects.slice(1)).to.deep.equal([
        { type: 'suppress', address: 'ann@example.org', reason: 'complaint', emailId: EMAIL },
      ]);
    });

    it('suppresses nothing on soft or undetermined bounces and on every other event', () => {
      for (const e of [
        bounce('soft'),
        bounce('undetermined'),
        event('delivered'),
        event('suppressed'),
        event('opened'),
        click('https://example.org/'),
      ]) {
        const d = applyMailEvent(state({ status: 'delivered' }), e);
        expect(
          d.effects.map((x) => x.type),
          `${e.type} ${e.bounce_kind}`,
        ).to.deep.equal(['record_event']);
      }
    });
  });

  describe('opens and clicks', () => {
    it('records the first open only; a later open is dropped and changes nothing', () => {
      const first = applyMailEvent(state({ status: 'delivered' }), event('opened'));
      expect(first.state.opened).to.equal(true);
      const again = event('opened', { occurred_at_ms: T0 + 1000 });
      const second = applyMailEvent(first.state, again);
      expect(second.state).to.equal(first.state);
      expect(second.effects).to.deep.equal([
        { type: 'drop', eventId: again.event_id, reason: 'repeat_open' },
      ]);
    });

    it('records one click per distinct link: the same link twice is one, two links are two', () => {
      const a1 = click('https://example.org/a');
      const a2 = click('https://example.org/a', { occurred_at_ms: T0 + 1 });
      const b = click('https://example.org/b', { occurred_at_ms: T0 + 2 });
      const { state: s, effects } = run(state({ status: 'delivered' }), [a1, a2, b]);
      expect(effects).to.deep.equal([
        { type: 'record_event', event: a1 },
        { type: 'drop', eventId: a2.event_id, reason: 'repeat_click' },
        { type: 'record_event', event: b },
      ]);
      expect([...s.clickedLinks]).to.deep.equal(['https://example.org/a', 'https://example.org/b']);
    });
  });

  describe('dedupe and ordering', () => {
    it('drops an event id recorded already, whatever its type, and keeps the state object', () => {
      const e = event('delivered');
      const once = applyMailEvent(state(), e);
      for (const replay of [e, { ...e, type: 'bounced' as const, bounce_kind: 'hard' as const }]) {
        const twice = applyMailEvent(once.state, replay);
        expect(twice.state).to.equal(once.state);
        expect(twice.effects).to.deep.equal([
          { type: 'drop', eventId: e.event_id, reason: 'duplicate_event' },
        ]);
      }
    });

    it('drops an event of another product', () => {
      const e = event('bounced', { bounce_kind: 'hard', product_id: newId() });
      const s = state();
      const d = applyMailEvent(s, e);
      expect(d.state).to.equal(s);
      expect(d.effects).to.deep.equal([{ type: 'drop', eventId: e.event_id, reason: 'other_product' }]);
    });

    it('keeps the newest event by occurred_at as last_event; an older late one is still recorded', () => {
      const newest = event('opened', { occurred_at_ms: T0 + 5_000 });
      const older = bounce('soft', { occurred_at_ms: T0 + 1_000, reason: '452 mailbox full' });
      const { state: s, effects } = run(state({ status: 'delivered' }), [newest, older]);
      expect(effects.map((e) => e.type)).to.deep.equal(['record_event', 'record_event']);
      expect(s.lastEvent).to.deep.equal({
        type: 'opened',
        occurredAtMs: T0 + 5_000,
        bounceKind: null,
        reason: null,
      });
      expect(s.recordedEventIds).to.have.keys(newest.event_id, older.event_id);
      // One millisecond later than the newest does replace it; the same instant does too.
      const later = run(s, [bounce('soft', { occurred_at_ms: T0 + 5_001, reason: 'later' })]).state;
      expect(later.lastEvent).to.include({ type: 'bounced', bounceKind: 'soft', reason: 'later' });
      const tie = run(s, [event('complained', { occurred_at_ms: T0 + 5_000 })]).state;
      expect(tie.lastEvent?.type).to.equal('complained');
    });

    it('shows bounce_kind on a bounce only', () => {
      const s = run(state(), [event('delivered', { bounce_kind: 'hard', reason: '250 ok' })]).state;
      expect(s.lastEvent).to.deep.equal({
        type: 'delivered',
        occurredAtMs: T0,
        bounceKind: null,
        reason: '250 ok',
      });
      const b = run(state(), [bounce('undetermined')]).state;
      expect(b.lastEvent?.bounceKind).to.equal('undetermined');
    });

    it('never changes the state it was given', () => {
      const s = state();
      const copy = {
        ...s,
        clickedLinks: new Set(s.clickedLinks),
        recordedEventIds: new Set(s.recordedEventIds),
      };
      run(s, [event('delivered'), click('https://example.org/x'), event('opened'), bounce('hard')]);
      expect(s).to.deep.equal(copy);
    });
  });

  describe('mailEventProblem', () => {
    it('accepts well-formed events of every type', () => {
      for (const e of [
        event('delivered'),
        bounce('hard'),
        bounce('soft'),
        event('complained'),
        event('suppressed'),
        event('opened'),
        click('https://example.org/'),
        event('delivered', { occurred_at_ms: 0 }),
        event('delivered', { occurred_at_ms: 8.64e15 }),
      ]) {
        expect(mailEventProblem(e), e.type).to.equal(null);
      }
    });

    it('names what makes an event impossible to apply', () => {
      const bad: Array<[Partial<MailEventRecord> & { type?: MailEventType }, string]> = [
        [{ event_id: 'e-1' }, 'event_id is not a uuid'],
        [{ product_id: 'p' }, 'product_id is not a uuid'],
        [{ email_id: 'x' }, 'email_id is not a uuid'],
        [{ occurred_at_ms: 8.64e15 + 1 }, 'occurred_at_ms is not a time'],
        [{ occurred_at_ms: 1.5 }, 'occurred_at_ms is not a time'],
        [{ type: 'bounced' }, 'a bounce without bounce_kind'],
        [{ type: 'clicked' }, 'a click without link'],
        [{ type: 'clicked', link: '' }, 'a click without link'],
      ];
      for (const [over, problem] of bad) {
        expect(mailEventProblem(event(over.type ?? 'delivered', over)), JSON.stringify(over)).to.equal(
          problem,
        );
      }
    });
  });
});
