// What both webhook measurements of the platform set up and check: endpoint rows inserted
// straight into PostgreSQL (the management routes are not this benchmark's subject), the mail
// events published onto `mail.events`, the webhook-ids their deliveries will carry, and the
// delivery rows read back once the receiver has every request.
import { nameBasedUuid, newId, type SecretKeyring, sealSecret } from '@lattice/core';
import {
  type MailEventPublisher,
  type MailEventRecord,
  mintWebhookSecret,
  WEBHOOK_SECRET_PURPOSE,
} from '@lattice/mail';
import type { Db } from '@lattice/store';
import type { Arrivals, Servers } from './processes.ts';

/** What a measurement needs of the run. */
export interface Bench {
  db: Db;
  servers: Servers;
  arrivals: Arrivals;
  publisher: MailEventPublisher;
  keyring: SecretKeyring;
  productId: string;
  log(line: string): void;
}

export interface BenchEndpoint {
  id: string;
  /** The path of its URL at the receiver: the delivery tag the receiver reports. */
  path: string;
}

/** `count` enabled endpoints of the product subscribed to `email.delivered`, at `/w/<tag>/<i>`. */
export async function insertEndpoints(b: Bench, tag: string, count: number): Promise<BenchEndpoint[]> {
  const endpoints = Array.from({ length: count }, (_, i) => ({ id: newId(), path: `/w/${tag}/${i}` }));
  await b.db('mail_webhook_endpoints').insert(
    endpoints.map((e) => ({
      id: e.id,
      product_id: b.productId,
      url: `${b.servers.receiver.url}${e.path}`,
      events: ['email.delivered'],
      description: `bench ${e.path}`,
      secret_sealed: sealSecret(b.keyring, WEBHOOK_SECRET_PURPOSE, mintWebhookSecret()),
    })),
  );
  return endpoints;
}

/** Removes a measurement's endpoints and their deliveries, so the next fans out to its own only. */
export async function deleteEndpoints(b: Bench, endpoints: readonly BenchEndpoint[]): Promise<void> {
  const ids = endpoints.map((e) => e.id);
  // Deliveries first: they have no foreign key to cascade by (see migration 0008).
  await b.db('mail_webhook_deliveries').whereIn('endpoint_id', ids).delete();
  await b.db('mail_webhook_endpoints').whereIn('id', ids).delete();
}

/**
 * An `email.delivered` of an email of the product, as the mail sender publishes it (the smart
 * host's queue id as provider message id). Its email has no row, so the email-state actor drops
 * it after one lookup; the fan-out does not look at emails.
 */
export function benchEvent(productId: string, i: number): MailEventRecord {
  return {
    event_id: newId(),
    product_id: productId,
    email_id: newId(),
    type: 'delivered',
    recipient: `reader-${i}@example.net`,
    bounce_kind: null,
    reason: null,
    provider_message_id: `4F${(0x1000000000 + i).toString(16).toUpperCase()}`,
    link: null,
    occurred_at_ms: Date.now(),
  };
}

/** The webhook-id of every delivery of `events` to `endpoints` (the fan-out's name-based id) → its path. */
export function expectedDeliveries(
  events: readonly MailEventRecord[],
  endpoints: readonly BenchEndpoint[],
): Map<string, string> {
  const expected = new Map<string, string>();
  for (const e of events) for (const ep of endpoints) expected.set(nameBasedUuid(e.event_id, ep.id), ep.path);
  return expected;
}

/**
 * Every delivery of the measurement is a row that `succeeded` at its first attempt: the count of
 * rows, and of those that did not. Waits (10 s at most) for the last outcomes to be stored.
 */
export async function checkDeliveryRows(
  b: Bench,
  label: string,
  endpoints: readonly BenchEndpoint[],
  expected: number,
): Promise<void> {
  const ids = endpoints.map((e) => e.id);
  const deadline = Date.now() + 10_000;
  for (;;) {
    const [row] = (await b
      .db('mail_webhook_deliveries')
      .whereIn('endpoint_id', ids)
      .select(
        b.db.raw('count(*)::int as rows'),
        b.db.raw(`count(*) filter (where status = 'succeeded' and attempts = 1)::int as first_time`),
      )) as Array<{ rows: number; first_time: number }>;
    if (row && row.rows === expected && row.first_time === expected) return;
    if (Date.now() > deadline)
      throw new Error(
        `${label}: ${row?.rows} delivery rows for ${expected} expected, ${row?.first_time} succeeded at the first attempt`,
      );
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** When the fan-out recorded each delivery of the endpoints (its row's created_at), epoch ms. */
export async function recordedAtMs(
  b: Bench,
  endpoints: readonly BenchEndpoint[],
): Promise<Map<string, number>> {
  const rows = (await b
    .db('mail_webhook_deliveries')
    .whereIn(
      'endpoint_id',
      endpoints.map((e) => e.id),
    )
    .select('id', b.db.raw('extract(epoch from created_at) * 1000 as at_ms'))) as Array<{
    id: string;
    at_ms: string;
  }>;
  return new Map(rows.map((r) => [r.id, Number(r.at_ms)]));
}

/**
 * The local PostgreSQL runs without autovacuum (its CI configuration): every delivery leaves a
 * row version behind (its insert, then the outcome's update), and each measurement's deleted
 * endpoints the rest.
 */
export async function vacuum(db: Db): Promise<void> {
  await db.raw('vacuum (analyze) mail_webhook_deliveries, mail_webhook_endpoints');
}
