// decisions.md "Webhook delivery defaults" on the pure decision: schedule, jitter bounds,
// Retry-After, the fifth attempt, 410, operator rounds.
import { expect } from 'chai';
import { type AttemptAnswer, decideAfterAttempt, retryDelayMs } from './delivery-logic.ts';

const schedule = { retryDelaysMs: [5_000, 300_000, 1_800_000, 7_200_000] };
const fail = (over: Partial<AttemptAnswer> = {}): AttemptAnswer => ({
  ok: false,
  responseStatus: 500,
  error: 'HTTP 500',
  retryAfterMs: null,
  ...over,
});
const ok: AttemptAnswer = { ok: true, responseStatus: 204, error: null, retryAfterMs: null };

describe('webhook delivery logic', () => {
  it('succeeds on a 2xx and resets the endpoint count', () => {
    const d = decideAfterAttempt({ attempts: 3, maxAttempts: 5 }, ok, 1_000, schedule, 0.5);
    expect(d).to.deep.equal({
      status: 'succeeded',
      nextAttemptAtMs: null,
      responseStatus: 204,
      lastError: null,
      endpoint: 'reset',
    });
  });

  it('waits 5 s, 5 min, 30 min, 2 h after failed attempts 1 to 4, counted from the end of the attempt', () => {
    const waits = [0, 1, 2, 3].map(
      (attempts) =>
        decideAfterAttempt({ attempts, maxAttempts: 5 }, fail(), 10_000, schedule, 0).nextAttemptAtMs! -
        10_000,
    );
    expect(waits).to.deep.equal([5_000, 300_000, 1_800_000, 7_200_000]);
  });

  it('fails for good after the fifth attempt and counts it against the endpoint', () => {
    const d = decideAfterAttempt(
      { attempts: 4, maxAttempts: 5 },
      fail({ responseStatus: 401, error: 'HTTP 401' }),
      0,
      schedule,
      0,
    );
    expect(d).to.include({
      status: 'failed',
      nextAttemptAtMs: null,
      responseStatus: 401,
      endpoint: 'failed_for_good',
    });
    const fourth = decideAfterAttempt({ attempts: 3, maxAttempts: 5 }, fail(), 0, schedule, 0);
    expect(fourth).to.include({ status: 'pending', endpoint: 'none' });
  });

  it('jitter lengthens a delay by 0 to 10 % only', () => {
    expect(retryDelayMs(schedule, 1, null, 0)).to.equal(5_000);
    expect(retryDelayMs(schedule, 1, null, 0.999999)).to.equal(5_500);
    expect(retryDelayMs(schedule, 2, null, 0.5)).to.equal(315_000);
  });

  it('a longer Retry-After replaces the delay, capped at the longest; a shorter one is ignored', () => {
    expect(retryDelayMs(schedule, 1, 60_000, 0)).to.equal(60_000);
    expect(retryDelayMs(schedule, 2, 1_000, 0)).to.equal(300_000);
    expect(retryDelayMs(schedule, 1, 86_400_000, 0)).to.equal(7_200_000);
    expect(retryDelayMs(schedule, 1, 60_000, 0.5)).to.equal(63_000);
  });

  it('a 410 fails the delivery at once and disables the endpoint', () => {
    const d = decideAfterAttempt(
      { attempts: 0, maxAttempts: 5 },
      fail({ responseStatus: 410, error: 'HTTP 410' }),
      0,
      schedule,
      0,
    );
    expect(d).to.include({ status: 'failed', endpoint: 'gone', responseStatus: 410 });
  });

  it('an operator round (max_attempts raised by 5) starts the schedule over, attempts counting on', () => {
    // A delivery failed after 5, put back with max 10: attempt 6 fails → the first delay again.
    const d = decideAfterAttempt({ attempts: 5, maxAttempts: 10 }, fail(), 0, schedule, 0);
    expect(d).to.include({ status: 'pending', nextAttemptAtMs: 5_000 });
    const last = decideAfterAttempt({ attempts: 9, maxAttempts: 10 }, fail(), 0, schedule, 0);
    expect(last.status).to.equal('failed');
  });

  it('no answer keeps a null response status with the error', () => {
    const d = decideAfterAttempt(
      { attempts: 0, maxAttempts: 5 },
      fail({ responseStatus: null, error: 'no answer within 10000 ms' }),
      0,
      schedule,
      0,
    );
    expect(d).to.include({ status: 'pending', responseStatus: null, lastError: 'no answer within 10000 ms' });
  });
});
