// The endpoint loops on manual time with the memory store and a scripted poster: order per
// endpoint, later deliveries held back while the oldest waits, due times, fencing, disabled
// endpoints, auto-disable, database failures, ownership.
import { parseSecretKeys, sealSecret } from '@lattice/core';
import { captureLogs, ManualScheduler } from '@lattice/core/testing';
import { expect } from 'chai';
import { Registry } from 'prom-client';
import type { AttemptAnswer } from './delivery-logic.ts';
import { deliveryMetrics } from './delivery-metrics.ts';
import { createMemoryDeliveryStore, type MemoryDelivery } from './delivery-store.memory.ts';
import { createEndpointWorkers, type WebhookPoster } from './endpoint-workers.ts';
import { mintWebhookSecret, WEBHOOK_SECRET_PURPOSE } from './webhook-signature.ts';

const keyring = parseSecretKeys(`k1:${Buffer.alloc(32, 7).toString('base64url')}`);
const DELAYS = [1_000, 2_000, 3_000, 4_000];

interface Sent {
  url: string;
  id: string;
  timestamp: string;
  body: string;
  atMs: number;
}

function setup(answers: (sent: Sent) => AttemptAnswer | Promise<AttemptAnswer>) {
  const scheduler = new ManualScheduler(1_000_000);
  const store = createMemoryDeliveryStore();
  const sent: Sent[] = [];
  const poster: WebhookPoster = {
    async post(url, headers, body) {
      const s = {
        url,
        id: headers['webhook-id']!,
        timestamp: headers['webhook-timestamp']!,
        body,
        atMs: scheduler.nowMs(),
      };
      sent.push(s);
      return answers(s);
    },
  };
  const registry = new Registry();
  const metrics = deliveryMetrics(registry);
  const workers = createEndpointWorkers({
    store,
    poster,
    keyring,
    schedule: { retryDelaysMs: DELAYS },
    scheduler,
    logger: captureLogs().logger,
    metrics,
    random: () => 0,
    storeRetryMs: 500,
  });
  workers.own([0, 1]);
  let seq = 0;
  function endpoint(id: string, over: Partial<{ enabled: boolean; deleted: boolean }> = {}) {
    store.endpoints.set(id, {
      id,
      productId: 'p1',
      url: `https://receiver.test/${id}`,
      enabled: true,
      deleted: false,
      secretSealed: sealSecret(keyring, WEBHOOK_SECRET_PURPOSE, mintWebhookSecret()),
      consecutiveFailures: 0,
      ...over,
    });
  }
  function delivery(endpointId: string, name: string): MemoryDelivery {
    const d: MemoryDelivery = {
      id: name,
      seq: ++seq,
      endpointId,
      eventType: 'email.delivered',
      payload: JSON.stringify({ name }),
      status: 'pending',
      attempts: 0,
      maxAttempts: 5,
      nextAttemptAtMs: scheduler.nowMs(),
      lastAttemptAtMs: null,
      responseStatus: null,
      lastError: null,
    };
    store.deliveries.push(d);
    return d;
  }
  return { scheduler, store, sent, workers, endpoint, delivery, registry };
}

const ok: AttemptAnswer = { ok: true, responseStatus: 200, error: null, retryAfterMs: null };
const err500: AttemptAnswer = { ok: false, responseStatus: 500, error: 'HTTP 500', retryAfterMs: null };

describe('webhook endpoint loops', () => {
  it('sends an endpoint’s deliveries one at a time in seq order', async () => {
    const t = setup(() => ok);
    t.endpoint('e1');
    for (const n of ['a', 'b', 'c']) t.delivery('e1', n);
    t.workers.wake('e1', 0);
    await t.scheduler.advanceAsync(0);
    expect(t.sent.map((s) => s.id)).to.deep.equal(['a', 'b', 'c']);
    expect(t.store.deliveries.map((d) => [d.status, d.attempts, d.lastError])).to.deep.equal([
      ['succeeded', 1, null],
      ['succeeded', 1, null],
      ['succeeded', 1, null],
    ]);
    expect(t.workers.active()).to.equal(0);
  });

  it('holds later deliveries back while the oldest waits for its retry, then keeps order', async () => {
    let failFirst = 2;
    const t = setup((s) => (s.id === 'a' && failFirst-- > 0 ? err500 : ok));
    t.endpoint('e1');
    const a = t.delivery('e1', 'a');
    t.delivery('e1', 'b');
    t.workers.wake('e1', 0);
    await t.scheduler.advanceAsync(0);
    expect(t.sent.map((s) => s.id)).to.deep.equal(['a']);
    expect(a).to.include({ status: 'pending', attempts: 1, responseStatus: 500, lastError: 'HTTP 500' });
    expect(a.nextAttemptAtMs).to.equal(1_000_000 + 1_000);
    // A wake (a new record) before the due time sends nothing: b stays behind a.
    t.workers.wake('e1', 0);
    await t.scheduler.advanceAsync(999);
    expect(t.sent.map((s) => s.id)).to.deep.equal(['a']);
    await t.scheduler.advanceAsync(1);
    expect(t.sent.map((s) => s.id)).to.deep.equal(['a', 'a']);
    await t.scheduler.advanceAsync(2_000);
    expect(t.sent.map((s) => [s.id, s.atMs - 1_000_000])).to.deep.equal([
      ['a', 0],
      ['a', 1_000],
      ['a', 3_000],
      ['b', 3_000],
    ]);
    // Same webhook-id each attempt, a fresh timestamp each time.
    expect(new Set(t.sent.filter((s) => s.id === 'a').map((s) => s.timestamp)).size).to.equal(3);
  });

  it('fails a delivery after its fifth attempt, then sends the next one', async () => {
    const t = setup((s) => (s.id === 'a' ? err500 : ok));
    t.endpoint('e1');
    const a = t.delivery('e1', 'a');
    const b = t.delivery('e1', 'b');
    t.workers.wake('e1', 0);
    await t.scheduler.advanceAsync(1_000 + 2_000 + 3_000 + 4_000);
    expect(a).to.include({ status: 'failed', attempts: 5, nextAttemptAtMs: null });
    expect(b).to.include({ status: 'succeeded', attempts: 1 });
    expect(t.sent.map((s) => s.atMs - 1_000_000)).to.deep.equal([0, 1_000, 3_000, 6_000, 10_000, 10_000]);
  });

  it('disables the endpoint after 3 deliveries failed for good in a row; the rest fail without a request', async () => {
    const t = setup(() => err500);
    t.endpoint('e1');
    for (const n of ['a', 'b', 'c', 'd', 'e']) t.delivery('e1', n);
    t.workers.wake('e1', 0);
    await t.scheduler.advanceAsync(3 * 10_000);
    expect(t.store.endpoints.get('e1')).to.include({ enabled: false, consecutiveFailures: 3 });
    expect(t.store.deliveries.map((d) => [d.id, d.status, d.attempts])).to.deep.equal([
      ['a', 'failed', 5],
      ['b', 'failed', 5],
      ['c', 'failed', 5],
      ['d', 'failed', 0],
      ['e', 'failed', 0],
    ]);
    expect(t.store.deliveries[3]!.lastError).to.equal('endpoint disabled');
    expect(t.sent).to.have.length(15);
  });

  it('a success resets the count of failures in a row', async () => {
    const t = setup((s) => (s.id === 'ok' ? ok : err500));
    t.endpoint('e1');
    for (const n of ['a', 'b', 'ok', 'c', 'd']) t.delivery('e1', n);
    t.workers.wake('e1', 0);
    await t.scheduler.advanceAsync(4 * 10_000);
    expect(t.store.endpoints.get('e1')).to.include({ enabled: true, consecutiveFailures: 2 });
  });

  it('a 410 disables the endpoint at once', async () => {
    const t = setup(() => ({ ok: false, responseStatus: 410, error: 'HTTP 410', retryAfterMs: null }));
    t.endpoint('e1');
    t.delivery('e1', 'a');
    t.delivery('e1', 'b');
    t.workers.wake('e1', 0);
    await t.scheduler.advanceAsync(0);
    expect(t.store.endpoints.get('e1')!.enabled).to.equal(false);
    expect(t.store.deliveries.map((d) => [d.status, d.attempts, d.responseStatus])).to.deep.equal([
      ['failed', 1, 410],
      ['failed', 0, null],
    ]);
  });

  it('a disabled or deleted endpoint’s due deliveries fail without a request', async () => {
    const t = setup(() => ok);
    t.endpoint('off', { enabled: false });
    t.endpoint('gone', { deleted: true });
    t.delivery('off', 'a');
    t.delivery('gone', 'b');
    t.workers.wake('off', 0);
    t.workers.wake('gone', 1);
    await t.scheduler.advanceAsync(0);
    expect(t.sent).to.deep.equal([]);
    expect(t.store.deliveries.map((d) => [d.status, d.lastError])).to.deep.equal([
      ['failed', 'endpoint disabled'],
      ['failed', 'endpoint deleted'],
    ]);
  });

  it('a disable while the oldest waits for its retry fails nothing until it is due; a re-enable in between keeps all', async () => {
    const t = setup((s) => (s.id === 'a' && t.sent.length === 1 ? err500 : ok));
    t.endpoint('e1');
    const a = t.delivery('e1', 'a');
    t.delivery('e1', 'b');
    t.workers.wake('e1', 0);
    await t.scheduler.advanceAsync(0);
    expect(a.nextAttemptAtMs).to.equal(1_000_000 + 1_000);
    t.store.endpoints.get('e1')!.enabled = false;
    t.workers.wake('e1', 0);
    await t.scheduler.advanceAsync(500);
    expect(t.store.deliveries.map((d) => d.status)).to.deep.equal(['pending', 'pending']);
    t.store.endpoints.get('e1')!.enabled = true;
    await t.scheduler.advanceAsync(500);
    expect(t.store.deliveries.map((d) => [d.status, d.attempts])).to.deep.equal([
      ['succeeded', 2],
      ['succeeded', 1],
    ]);
  });

  it('keeps one timer per endpoint however often it is woken while waiting', async () => {
    const t = setup(() => err500);
    t.endpoint('e1');
    t.delivery('e1', 'a');
    t.delivery('e1', 'b');
    t.workers.wake('e1', 0);
    for (let i = 0; i < 5; i++) {
      await t.scheduler.advanceAsync(100);
      t.workers.wake('e1', 0);
      await t.scheduler.advanceAsync(0);
      expect(t.scheduler.pendingTimers()).to.equal(1);
    }
    t.workers.own([]);
    expect(t.scheduler.pendingTimers()).to.equal(0);
  });

  it('a slow endpoint does not hold up another endpoint', async () => {
    let release: (a: AttemptAnswer) => void = () => {};
    const t = setup((s) => (s.url.endsWith('/slow') ? new Promise((r) => (release = r)) : ok));
    t.endpoint('slow');
    t.endpoint('fast');
    t.delivery('slow', 's1');
    t.delivery('fast', 'f1');
    t.delivery('fast', 'f2');
    t.workers.wake('slow', 0);
    t.workers.wake('fast', 1);
    await t.scheduler.advanceAsync(0);
    expect(t.sent.map((s) => s.id)).to.deep.equal(['s1', 'f1', 'f2']);
    release(ok);
    await t.scheduler.advanceAsync(0);
    expect(t.store.deliveries.every((d) => d.status === 'succeeded')).to.equal(true);
  });

  it('an attempt recorded by another owner first is not counted twice', async () => {
    const t = setup(() => {
      // Another host stored this attempt while ours was in flight.
      const a = t.store.deliveries[0]!;
      a.attempts = 1;
      a.status = 'succeeded';
      return ok;
    });
    t.endpoint('e1');
    t.delivery('e1', 'a');
    t.workers.wake('e1', 0);
    await t.scheduler.advanceAsync(0);
    expect(t.store.deliveries[0]!.attempts).to.equal(1);
    const overtaken = await t.registry.getSingleMetricAsString(
      'lattice_mail_webhook_attempts_overtaken_total',
    );
    expect(overtaken).to.match(/ 1$/m);
  });

  it('retries storing an outcome through a database outage without a second request', async () => {
    const t = setup(() => {
      t.store.failNext(2);
      return ok;
    });
    t.endpoint('e1');
    t.delivery('e1', 'a');
    t.workers.wake('e1', 0);
    await t.scheduler.advanceAsync(10_000);
    expect(t.sent).to.have.length(1);
    expect(t.store.deliveries[0]).to.include({ status: 'succeeded', attempts: 1 });
  });

  it('a failed head read is tried again later', async () => {
    const t = setup(() => ok);
    t.endpoint('e1');
    t.delivery('e1', 'a');
    t.store.failNext(1);
    t.workers.wake('e1', 0);
    await t.scheduler.advanceAsync(499);
    expect(t.sent).to.have.length(0);
    await t.scheduler.advanceAsync(1);
    expect(t.sent).to.have.length(1);
  });

  it('ignores wakes for partitions it does not own and stops loops of partitions it lost', async () => {
    const t = setup((s) => (s.id === 'a' ? err500 : ok));
    t.endpoint('e1');
    t.endpoint('e2');
    t.delivery('e1', 'a');
    t.delivery('e2', 'x');
    t.workers.wake('e2', 7);
    t.workers.wake('e1', 0);
    await t.scheduler.advanceAsync(0);
    expect(t.sent.map((s) => s.id)).to.deep.equal(['a']);
    t.workers.own([1]);
    await t.scheduler.advanceAsync(10_000);
    // The retry of `a` belongs to partition 0's new owner now.
    expect(t.sent.map((s) => s.id)).to.deep.equal(['a']);
    expect(t.workers.active()).to.equal(0);
  });

  it('follows a switched placement: a moved endpoint’s loop stops, and wakes naming its old partition are ignored', async () => {
    const t = setup((s) => (s.id === 'a' ? err500 : ok));
    t.endpoint('e1');
    t.endpoint('e2');
    t.delivery('e1', 'a');
    t.delivery('e2', 'x');
    t.workers.wake('e1', 0);
    await t.scheduler.advanceAsync(0);
    expect(t.sent.map((s) => s.id)).to.deep.equal(['a']);
    // The topic switched to more partitions: e1 is now on partition 5 (another host's), e2 on 1.
    t.workers.placeBy((id) => (id === 'e1' ? 5 : 1));
    await t.scheduler.advanceAsync(10_000);
    // e1's retry is its new owner's now; this host neither retries nor restarts it.
    t.workers.wake('e1', 0);
    await t.scheduler.advanceAsync(10_000);
    expect(t.sent.map((s) => s.id)).to.deep.equal(['a']);
    // e2 is still this host's (partition 1), and its loop runs where the placement says.
    t.workers.wake('e2', 0);
    await t.scheduler.advanceAsync(0);
    expect(t.sent.map((s) => s.id)).to.deep.equal(['a']);
    t.workers.wake('e2', 1);
    await t.scheduler.advanceAsync(0);
    expect(t.sent.map((s) => s.id)).to.deep.equal(['a', 'x']);
  });
});
