// FanoutStore over PostgreSQL: one statement per chunk of events. It finds each event's
// subscribed live endpoints, inserts their deliveries in event order (so `seq` follows it) and
// returns what is still pending: no read of the endpoints first, so recording costs one round trip.
import type { Knex } from 'knex';
import type { FanoutStore } from './fanout-store.ts';
import { webhookEventName } from './webhook-events.ts';
import type { WebhookDeliveryRecord } from './webhook-wake.ts';

/**
 * The endpoint's creation time is the database's clock and the event's recording time a producer's:
 * an endpoint made up to this long after an event still gets it, so a small skew never drops an
 * event accepted after the endpoint's answer (decisions.md), at the price of rarely delivering one
 * from just before.
 */
const CLOCK_SKEW_MS = 1_000;

interface DeliveryRow {
  id: string;
  endpoint_id: string;
  product_id: string;
  event_type: string;
  seq: string;
  created_at: Date;
}

export function createPostgresFanoutStore(db: Knex): FanoutStore {
  return {
    async record(events) {
      if (events.length === 0) return [];
      // The events travel as one jsonb value: no text of theirs is ever read as SQL or as a knex
      // placeholder, and any number of them fits one statement. A delivery's id is the name-based
      // UUID of event and endpoint (nameBasedUuid in @lattice/core: the first 16 bytes of the
      // SHA-256 of `<event id>\n<endpoint id>`, version 8), computed here from the same text.
      // Rows are inserted in (event, endpoint created_at, id) order, so `seq` follows the events'
      // order; the second part cannot see the first's rows (one snapshot), so together each
      // pending delivery comes once. An endpoint's creation time is compared at the millisecond,
      // as the clocks it is compared with are.
      // The endpoints' rows are locked (in id order, so two fan-outs never wait on each other in
      // a cycle) until the commit: fan-outs of events on different partitions of `mail.events`
      // that record deliveries of one endpoint at once commit in the order of their `seq`.
      // Otherwise a later `seq` could commit first, and the endpoint's loop, woken by it, send it
      // before the earlier one it cannot see yet (decisions.md: deliveries go in recorded order).
      const { rows: pending } = await db.raw<{ rows: DeliveryRow[] }>(
        `with ev as (
           select * from jsonb_to_recordset(?::jsonb)
             as ev(ord int, product_id uuid, event_id text, event_type text, recorded_at_ms bigint, payload text)
         ), e as materialized (
           select id, product_id, events, created_at
             from mail_webhook_endpoints e
            where e.enabled and e.deleted_at is null
              and exists (select from ev where ev.product_id = e.product_id and ev.event_type = any(e.events))
            order by id
              for no key update
         ), r as (
           select ev.ord, e.created_at as endpoint_created_at, e.id as endpoint_id,
                  ev.product_id, ev.event_id, ev.event_type, ev.payload,
                  substring(sha256(convert_to(ev.event_id || E'\\n' || e.id::text, 'UTF8')) from 1 for 16) as h
             from ev
             join e on e.product_id = ev.product_id and ev.event_type = any(e.events)
              and floor(extract(epoch from e.created_at) * 1000) <= ev.recorded_at_ms + ?
         ), d as (
           select encode(set_byte(set_byte(h, 6, (get_byte(h, 6) & 15) | 128), 8, (get_byte(h, 8) & 63) | 128), 'hex')::uuid as id,
                  ord, endpoint_created_at, endpoint_id, product_id, event_id::uuid as event_id, event_type, payload
             from r
         ), ins as (
           insert into mail_webhook_deliveries (id, endpoint_id, product_id, event_id, event_type, payload, next_attempt_at)
           select id, endpoint_id, product_id, event_id, event_type, payload, now()
             from d
            order by ord, endpoint_created_at, endpoint_id
           on conflict (id) do nothing
           returning id, endpoint_id, product_id, event_type, seq, created_at
         )
         select * from ins
         union all
         select id, endpoint_id, product_id, event_type, seq, created_at from mail_webhook_deliveries
          where id in (select id from d) and status = 'pending'
         order by seq`,
        [
          JSON.stringify(
            events.map(({ event, payload, recordedAtMs }, ord) => ({
              ord,
              product_id: event.product_id,
              event_id: event.event_id,
              event_type: webhookEventName(event.type),
              recorded_at_ms: recordedAtMs,
              payload,
            })),
          ),
          CLOCK_SKEW_MS,
        ],
      );
      return pending.map(
        (r): WebhookDeliveryRecord => ({
          delivery_id: r.id,
          endpoint_id: r.endpoint_id,
          product_id: r.product_id,
          event_type: r.event_type,
          seq: Number(r.seq),
          recorded_at_ms: r.created_at.getTime(),
        }),
      );
    },
  };
}
