import { expect } from 'chai';
import { kafkajsRequestQueue, stopIdleRequestQueuePolling } from './request-queue-fix.ts';

interface Queue {
  pending: unknown[];
  inflight: Map<number, unknown>;
  throttledUntil: number;
  throttleCheckTimeoutId: NodeJS.Timeout | null;
  fulfillRequest(r: { correlationId: number; payload: Buffer | null; size: number }): void;
  maybeThrottle(ms: number): void;
  scheduleCheckPendingRequests(): void;
}

const silent = { debug() {}, info() {}, warn() {}, error() {} };

function queue(): Queue {
  const RequestQueue = kafkajsRequestQueue() as unknown as new (opts: object) => Queue;
  return new RequestQueue({
    maxInFlightRequests: 1,
    requestTimeout: 30_000,
    enforceRequestTimeout: true,
    clientId: 'test',
    broker: 'localhost:9092',
    logger: silent,
  });
}

describe('kafkajs request queue fix (no 1 ms polling per connection)', () => {
  before(() => stopIdleRequestQueuePolling());

  it('arms no timer after a response when no request waits and nothing throttles', () => {
    const q = queue();
    q.fulfillRequest({ correlationId: 1, payload: null, size: 0 });
    expect(q.throttleCheckTimeoutId).to.equal(null);
  });

  it('still arms the check while a request waits or the connection is throttled', () => {
    const waiting = queue();
    waiting.pending.push({});
    waiting.scheduleCheckPendingRequests();
    expect(waiting.throttleCheckTimeoutId).to.not.equal(null);
    clearTimeout(waiting.throttleCheckTimeoutId!);

    const throttled = queue();
    throttled.maybeThrottle(50);
    throttled.scheduleCheckPendingRequests();
    expect(throttled.throttleCheckTimeoutId).to.not.equal(null);
    clearTimeout(throttled.throttleCheckTimeoutId!);
  });

  it('is applied once however often it is called', () => {
    const before = kafkajsRequestQueue().prototype.scheduleCheckPendingRequests;
    stopIdleRequestQueuePolling();
    expect(kafkajsRequestQueue().prototype.scheduleCheckPendingRequests).to.equal(before);
  });
});
