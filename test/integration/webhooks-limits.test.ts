// The 10-second attempt limit (spec "Delivery semantics", WEBHOOK_TIMEOUT_MS at its default) from
// both sides, and its corollary: an endpoint that answers after 9 s, on the same partition as
// another endpoint, does not delay that endpoint's deliveries.
import { partitionOfKey, TOPIC_CATALOG, topicName } from '@lattice/kafka';
import { expect } from 'chai';
import { type HttpsReceiver, startHttpsReceiver } from '../support/https-receiver.ts';
import { startWebhookPlatform, type WebhookPlatform } from './webhooks/webhook-platform.ts';

describe('mail webhooks: the 10-second limit and slow endpoints', function () {
  this.timeout(120_000);
  let p: WebhookPlatform;
  let slow: HttpsReceiver;
  let fast: HttpsReceiver;

  before(async () => {
    p = await startWebhookPlatform({
      label: 'webhook-limits',
      // The default limit; retries far enough away not to happen during the test.
      webhooks: { timeoutMs: 10_000, retryDelaysMs: [600_000, 600_000, 600_000, 600_000] },
    });
    slow = await startHttpsReceiver({
      handler: (q) => ({ status: 200, delayMs: q.path === '/nine' ? 9_000 : 10_500 }),
    });
    fast = await startHttpsReceiver();
  });
  after(async () => {
    await slow?.close();
    await fast?.close();
    await p?.close();
  });

  it('an answer after 9 s succeeds, one after 10.5 s fails with no response status; neither delays a fast endpoint', async () => {
    const topic = topicName(p.config.kafkaTopicPrefix, TOPIC_CATALOG.webhookDeliveries.name);
    const partitionOf = (id: string) => partitionOfKey(topic, id, p.config.kafkaPartitions);
    const nine = await p.endpoint(slow.url('/nine'));
    const late = await p.endpoint(slow.url('/late'));
    // A fast endpoint on the slow one's partition: its actor host is the same one.
    let quick = await p.endpoint(fast.url('/quick'));
    while (partitionOf(quick.id) !== partitionOf(nine.id)) {
      await p.call('DELETE', `/mail/webhooks/${quick.id}`, p.product.ownerToken);
      quick = await p.endpoint(fast.url('/quick'));
    }

    await p.publish('delivered');
    await slow.waitFor(2, 5_000);
    await fast.waitFor(1, 5_000);
    // While both slow attempts are in flight, five more events reach the fast endpoint.
    for (let i = 0; i < 5; i++) {
      const before = fast.requests.length;
      await p.publish('delivered');
      await fast.waitFor(before + 1, 8_000);
    }
    // Evidence by state, not by timing: the slow endpoint's first attempt has not ended yet...
    const inFlight = await p.deliveries(nine.id);
    expect(inFlight.at(-1)!.attempts, 'the 9 s answer is still awaited').to.equal(0);
    // ...and every fast delivery arrived before the slow receiver answered.
    const answeredAt = slow.requests.find((q) => q.path === '/nine')!.receivedAtMs + 9_000;
    expect(fast.requests.every((q) => q.receivedAtMs < answeredAt)).to.equal(true);
    expect(fast.requests).to.have.length(6);

    const [okDelivery] = await p
      .waitForDeliveries(nine.id, (d) => d.at(-1)?.status === 'succeeded', 20_000)
      .then((d) => [d.at(-1)]);
    expect(okDelivery).to.include({ attempts: 1, response_status: 200, last_error: null });
    const lateLog = await p.waitForDeliveries(late.id, (d) => d.at(-1)?.attempts === 1, 20_000);
    expect(lateLog.at(-1)).to.include({ status: 'pending', response_status: null });
    expect(lateLog.at(-1)!.last_error).to.equal('no answer within 10000 ms');
  });
});
