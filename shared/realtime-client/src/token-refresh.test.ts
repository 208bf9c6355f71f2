import { expect } from 'chai';
import { refreshDelayMs, tokenUsable } from './token-refresh.ts';

describe('token refresh timing', () => {
  const now = Date.parse('2026-03-01T12:00:00.000Z');
  const at = (ms: number) => new Date(now + ms).toISOString();

  it('swaps refreshBeforeExpiryMs before expires_at', () => {
    expect(refreshDelayMs(at(3_600_000), now, 30_000)).to.equal(3_570_000);
    expect(refreshDelayMs(at(60_000), now, 10_000)).to.equal(50_000);
  });

  it('never sooner than half the remaining lifetime (short tokens, repeated tokens)', () => {
    expect(refreshDelayMs(at(40_000), now, 30_000)).to.equal(20_000);
    expect(refreshDelayMs(at(20_000), now, 30_000)).to.equal(10_000);
  });

  it('no swap for a token about to expire or an unreadable expiry', () => {
    expect(refreshDelayMs(at(999), now, 30_000)).to.equal(null);
    expect(refreshDelayMs(at(-5000), now, 30_000)).to.equal(null);
    expect(refreshDelayMs('soon', now, 30_000)).to.equal(null);
  });

  it('reuses a token only while it is outside the refresh margin', () => {
    expect(tokenUsable(now + 60_000, now, 30_000)).to.equal(true);
    expect(tokenUsable(now + 30_000, now, 30_000)).to.equal(false);
    expect(tokenUsable(null, now, 30_000)).to.equal(false);
    expect(tokenUsable(now + 500, now, 0)).to.equal(false);
  });
});
