// Webhook delivery under a crash (docs/webhooks.md "How it works"): 1 600 deliveries (200 events
// × 8 endpoints) made by two `lattice start actors` processes while every delivery's first
// attempt is answered 503, so deliveries are being retried when one process is SIGKILLed. The
// survivor takes its partitions over: every event reaches every subscribed endpoint at least once
// with a stable webhook-id and body, and no delivery's attempts are counted twice (each counted
// attempt is a request the receiver got; requests left uncounted are at most the attempts in
// flight in the killed process, one per endpoint).
import type { ChildProcess } from 'node:child_process';
import { noteInTestLog } from '@lattice/core/testing';
import { expect } from 'chai';
import { type HttpsReceiver, type ReceivedRequest, startHttpsReceiver } from '../support/https-receiver.ts';
import { stopPlatform } from '../support/lattice-process.ts';
import { waitUntil } from '../support/wait-until.ts';
import { startActorsProcess } from './mail/mail-platform.ts';
import { startWebhookPlatform, type WebhookPlatform } from './webhooks/webhook-platform.ts';

const EVENTS = 200;
const ENDPOINTS = 8;
const PARTITIONS = 4;

describe('mail webhooks: an actors host SIGKILLed while deliveries are retried', function () {
  this.timeout(240_000);
  let p: WebhookPlatform;
  let r: HttpsReceiver;
  const hosts: ChildProcess[] = [];

  before(async () => {
    p = await startWebhookPlatform({
      label: 'webhook-kill',
      actors: false,
      config: { kafkaPartitions: PARTITIONS },
    });
    const seen = new Set<string>();
    // First attempt of each delivery: 503 (retried after 100 ms); later ones: 204 after 5 ms.
    r = await startHttpsReceiver({
      handler: (q) => {
        const id = String(q.headers['webhook-id']);
        if (seen.has(id)) return { status: 204, delayMs: 5 };
        seen.add(id);
        return { status: 503 };
      },
    });
  });
  after(async () => {
    for (const h of hosts) if (h.exitCode === null && h.signalCode === null) await stopPlatform(h);
    await r?.close();
    await p?.close();
  });

  async function startHost(): Promise<ChildProcess> {
    const child = await startActorsProcess(p, {
      WEBHOOK_RETRY_DELAYS_MS: '100,100,100,100',
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
    });
    hosts.push(child);
    return child;
  }

  it('every event reaches every endpoint with a stable webhook-id; no attempt is counted twice', async () => {
    const endpoints = [];
    for (let i = 0; i < ENDPOINTS; i++) endpoints.push(await p.endpoint(r.url(`/e${i}`)));
    const victim = await startHost();
    await startHost();

    const publishing = (async () => {
      for (let i = 0; i < EVENTS; i++) await p.publish('delivered', { recipient: `reader-${i}@example.net` });
    })();
    const total = EVENTS * ENDPOINTS;
    await waitUntil('a fifth of the deliveries made', () => successes(r) >= total / 5, 120_000);
    victim.kill('SIGKILL');
    const atKill = successes(r);
    await publishing;
    expect(atKill, 'killed midway').to.be.lessThan(total / 2);

    const ids = new Set<string>();
    await waitUntil(
      'every delivery succeeded',
      async () =>
        Number(
          (
            (await p
              .db('mail_webhook_deliveries')
              .where({ product_id: p.product.productId, status: 'succeeded' })
              .count({ n: '*' })) as Array<{ n: string }>
          )[0]!.n,
        ) === total,
      180_000,
    );
    const rows = (await p
      .db('mail_webhook_deliveries')
      .where({ product_id: p.product.productId })
      .select('id', 'endpoint_id', 'attempts', 'status')) as Array<{
      id: string;
      endpoint_id: string;
      attempts: number;
      status: string;
    }>;
    expect(rows).to.have.length(total);

    const received = new Map<string, ReceivedRequest[]>();
    for (const q of r.requests) {
      const id = String(q.headers['webhook-id']);
      ids.add(id);
      received.set(id, [...(received.get(id) ?? []), q]);
    }
    const pathOf = new Map(endpoints.map((e, i) => [e.id, `/e${i}`]));
    let uncounted = 0;
    for (const row of rows) {
      const got = received.get(row.id) ?? [];
      expect(got.length, `delivery ${row.id} reached its endpoint`).to.be.at.least(1);
      // The same id to the same endpoint with the same bytes on every attempt.
      expect(new Set(got.map((q) => q.path))).to.deep.equal(new Set([pathOf.get(row.endpoint_id)]));
      expect(new Set(got.map((q) => q.body.toString('hex'))).size).to.equal(1);
      expect(row.attempts, `delivery ${row.id}: attempts counted ≤ requests`).to.be.at.most(got.length);
      uncounted += got.length - row.attempts;
    }
    expect(ids.size).to.equal(total);
    noteInTestLog(
      `webhook-sigkill: ${total} deliveries, ${atKill} succeeded at the kill, ${r.requests.length} requests, ${uncounted} made but not counted (in flight in the killed process)`,
    );
    expect(uncounted).to.be.at.most(ENDPOINTS);
  });
});

function successes(r: HttpsReceiver): number {
  const ids = new Set<string>();
  let n = 0;
  for (const q of r.requests) {
    const id = String(q.headers['webhook-id']);
    if (ids.has(id)) n++;
    else ids.add(id);
  }
  return n;
}
