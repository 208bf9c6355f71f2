import { expect } from 'chai';
import { attemptResult, decideRecord, suppressedAtSend } from './sender-logic.ts';
import { providerMessageIdOf, smtpOutcomeOf } from './smtp-outcome.ts';

const ctx = (attempt: number) => ({
  emailId: 'e1',
  productId: 'p1',
  recipient: 'bob@example.net',
  attempt,
  retryDelaysMs: [60_000, 300_000, 1_800_000],
  nowMs: 1_000,
  newEventId: () => 'ev',
});

describe('mail sender logic', () => {
  describe('which record to act on', () => {
    it('acts on the next attempt, and repeats the attempt a dead process left unfinished', () => {
      expect(decideRecord({ sendState: 'pending', attempts: 0 }, 1)).to.deep.equal({
        act: 'attempt',
        attempt: 1,
        repeat: false,
      });
      expect(decideRecord({ sendState: 'requeued', attempts: 1 }, 2)).to.deep.equal({
        act: 'attempt',
        attempt: 2,
        repeat: false,
      });
      // The retry job produced it but died before marking the email requeued.
      expect(decideRecord({ sendState: 'deferred', attempts: 2 }, 3)).to.include({
        act: 'attempt',
        attempt: 3,
      });
      expect(decideRecord({ sendState: 'sending', attempts: 2 }, 2)).to.deep.equal({
        act: 'attempt',
        attempt: 2,
        repeat: true,
      });
    });

    it('skips stale copies and anything after the end', () => {
      expect(decideRecord({ sendState: 'done', attempts: 1 }, 1)).to.deep.equal({ act: 'skip' });
      expect(decideRecord({ sendState: 'done', attempts: 1 }, 2)).to.deep.equal({ act: 'skip' });
      // An orphan-sweep copy of the first record after the first attempt was made.
      expect(decideRecord({ sendState: 'deferred', attempts: 1 }, 1)).to.deep.equal({ act: 'skip' });
      expect(decideRecord({ sendState: 'sending', attempts: 2 }, 3)).to.deep.equal({ act: 'skip' });
      expect(decideRecord({ sendState: 'pending', attempts: 0 }, 2)).to.deep.equal({ act: 'skip' });
    });
  });

  describe('what an attempt makes of the email', () => {
    it('2xx: delivered with the queue id as providerMessageId', () => {
      const r = attemptResult(ctx(1), smtpOutcomeOf({ response: '250 2.0.0 Ok: queued as 4XyZ12' }));
      expect(r).to.deep.include({ sendState: 'done', providerMessageId: '4XyZ12' });
      expect(r.sendState === 'done' && r.event).to.include({
        type: 'delivered',
        provider_message_id: '4XyZ12',
        bounce_kind: null,
        recipient: 'bob@example.net',
      });
    });

    it('5xx to RCPT or DATA: a hard bounce with the reply as reason, on any attempt', () => {
      const rcpt = smtpOutcomeOf({
        error: {
          code: 'EENVELOPE',
          command: 'RCPT TO',
          responseCode: 550,
          response: '550 5.1.1 No such user',
        },
      });
      const r = attemptResult(ctx(1), rcpt);
      expect(r.sendState === 'done' && r.event).to.include({
        type: 'bounced',
        bounce_kind: 'hard',
        reason: '550 5.1.1 No such user',
      });
      const data = smtpOutcomeOf({
        error: { code: 'EMESSAGE', command: 'DATA', responseCode: 554, response: '554 5.7.1 Spam' },
      });
      expect(attemptResult(ctx(4), data)).to.deep.nested.include({ 'event.bounce_kind': 'hard' });
    });

    it('4xx: deferred by the delay of its attempt, three times, then a soft bounce', () => {
      const busy = smtpOutcomeOf({
        error: {
          code: 'EENVELOPE',
          command: 'RCPT TO',
          responseCode: 452,
          response: '452 4.2.2 Mailbox full',
        },
      });
      expect(attemptResult(ctx(1), busy)).to.deep.include({ sendState: 'deferred', nextAttemptAtMs: 61_000 });
      expect(attemptResult(ctx(2), busy)).to.deep.include({
        sendState: 'deferred',
        nextAttemptAtMs: 301_000,
      });
      expect(attemptResult(ctx(3), busy)).to.deep.include({
        sendState: 'deferred',
        nextAttemptAtMs: 1_801_000,
      });
      const last = attemptResult(ctx(4), busy);
      expect(last.sendState === 'done' && last.event).to.include({ type: 'bounced', bounce_kind: 'soft' });
    });

    it('a failure that is not the recipient’s answer is retried and ends undetermined', () => {
      for (const error of [
        { code: 'ECONNECTION', command: 'CONN', message: 'connect ECONNREFUSED' },
        { code: 'ETIMEDOUT', command: 'CONN', message: 'Timeout' },
        { code: 'EENVELOPE', command: 'RCPT TO', responseCode: 421, response: '421 4.3.2 Shutting down' },
        { code: 'EENVELOPE', command: 'MAIL FROM', responseCode: 550, response: '550 Sender rejected' },
        { code: 'EAUTH', command: 'AUTH PLAIN', responseCode: 535, response: '535 Authentication failed' },
      ]) {
        const outcome = smtpOutcomeOf({ error });
        expect(outcome.kind, JSON.stringify(error)).to.equal('failed');
        expect(attemptResult(ctx(1), outcome).sendState).to.equal('deferred');
        const last = attemptResult(ctx(4), outcome);
        expect(last.sendState === 'done' && last.event.bounce_kind).to.equal('undetermined');
      }
    });

    it('no retry delays configured: the first 4xx is the soft bounce', () => {
      const busy = smtpOutcomeOf({
        error: { command: 'DATA', responseCode: 451, response: '451 try later' },
      });
      const r = attemptResult({ ...ctx(1), retryDelaysMs: [] }, busy);
      expect(r.sendState === 'done' && r.event.bounce_kind).to.equal('soft');
    });

    it('suppressed at send time: email.suppressed, nothing handed over', () => {
      const r = suppressedAtSend(ctx(2));
      expect(r).to.deep.include({ sendState: 'done', providerMessageId: null });
      expect(r.sendState === 'done' && r.event).to.include({ type: 'suppressed', provider_message_id: null });
    });
  });

  it('takes the queue id of the smart host’s reply, else the reply’s text', () => {
    expect(providerMessageIdOf('250 2.0.0 Ok: queued as 4XyZ12')).to.equal('4XyZ12');
    expect(providerMessageIdOf('250 OK id=1tBx-0003 queued as ABC;')).to.equal('ABC');
    expect(providerMessageIdOf('250 Accepted ')).to.equal('250 Accepted');
  });
});
