import { expect } from 'chai';
import { resolveBackoff } from './backoff.ts';
import { planReconnect } from './reconnect-policy.ts';

describe('reconnect policy', () => {
  const backoff = resolveBackoff({ initialMs: 1000, maxMs: 8000 });
  const half = () => 0.5;
  const after = (code: number, more: Partial<Parameters<typeof planReconnect>[0]> = {}) =>
    planReconnect({ code, authenticated: true, attempt: 0, tokenUsable: true, ...more }, backoff, half);

  it('4001: a fresh token and at once', () => {
    expect(after(4001)).to.deep.equal({
      rule: 'fresh_token_at_once',
      delayMs: 0,
      freshToken: true,
      nextAttempt: 0,
    });
  });

  it('4100: at once with the token in hand', () => {
    expect(after(4100)).to.deep.equal({ rule: 'at_once', delayMs: 0, freshToken: false, nextAttempt: 0 });
  });

  it('4200: backoff (the resubscribe recovers through the cursors)', () => {
    expect(after(4200)).to.deep.equal({
      rule: 'backoff_and_recover',
      delayMs: 500,
      freshToken: false,
      nextAttempt: 1,
    });
  });

  it('every other code backs off, growing with the attempt', () => {
    for (const code of [1000, 1001, 1003, 1006, 1009, 1011, 4000]) {
      expect(after(code).rule, String(code)).to.equal('backoff');
      expect(after(code).delayMs, String(code)).to.equal(500);
    }
    expect(after(1006, { authenticated: false, attempt: 2 })).to.deep.equal({
      rule: 'backoff',
      delayMs: 2000,
      freshToken: false,
      nextAttempt: 3,
    });
    expect(after(1006, { authenticated: false, attempt: 9 }).delayMs).to.equal(4000);
  });

  it('backs off on 4001 and 4100 when the connection never authenticated (no tight loop)', () => {
    expect(after(4001, { authenticated: false, attempt: 1 })).to.deep.equal({
      rule: 'fresh_token_at_once',
      delayMs: 1000,
      freshToken: true,
      nextAttempt: 2,
    });
    expect(after(4100, { authenticated: false })).to.include({ delayMs: 500, nextAttempt: 1 });
  });

  it('asks for a fresh token whenever the token in hand is about to expire', () => {
    expect(after(4100, { tokenUsable: false }).freshToken).to.equal(true);
    expect(after(1006, { tokenUsable: false }).freshToken).to.equal(true);
  });
});
