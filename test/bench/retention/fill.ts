// The rows the retention benchmark purges, generated in SQL in its throwaway database with the mix
// of shared/mail/src/retention/mail-retention.int.test.ts, scaled up: webhook deliveries (every
// tenth pending, every tenth failed without an attempt, the rest succeeded up to two days after
// they were made), emails with two events each (every fifth still being sent, every seventh with
// an event an hour before now, one in fifty suppressed at accept) and events that matched no
// email, their creation spread over BENCH_FILL_DAYS days before now so that about half is past
// the 30-day retention. Rows are inserted in creation order, as a live table grows. Then the edge
// cases on both sides of the bound of `finalMs` (the instant of the benchmark's last, exact
// check): a row 1 ms past it goes, one at it stays, old rows not done with stay. Pending
// deliveries and deferred emails have their next attempt 60 days ahead or more, so the actors'
// wake and retry sweeps leave them alone: every generated row stays as generated until purged,
// which the exactness checks (exactness.ts) rely on.
import { performance } from 'node:perf_hooks';
import type { Db } from '@lattice/store';

export const DAY_MS = 86_400_000;

export interface FillSettings {
  deliveries: number;
  emails: number;
  unmatchedEvents: number;
  /** Creation times are spread over this many days before `nowMs`. */
  spreadDays: number;
  /** Size of each email's html. */
  htmlBytes: number;
  /** Distinct endpoints the deliveries belong to. */
  endpoints: number;
}

export interface FillTarget {
  productId: string;
  /** "Now" of the generated rows (the run's start). */
  nowMs: number;
  /** The cutoffs the edge cases sit on: the last check's instant less each retention. */
  cutoffs: { deliveries: number; mail: number };
  /** A delivery body as the fan-out records it. */
  payload: string;
}

export interface FillTimings {
  deliveriesMs: number;
  emailsMs: number;
  eventsMs: number;
  vacuumMs: number;
}

const timed = async (f: () => Promise<unknown>) => {
  const t0 = performance.now();
  await f();
  return performance.now() - t0;
};

/** The generated creation time of row `i` of `n`: evenly spaced over `spreadDays` before `now`. */
const tsOf = (spreadDays: number, n: number) =>
  `cast(? as timestamptz) - (i::bigint * ${spreadDays * DAY_MS} / ${n}) * interval '1 millisecond'`;

export async function fillTables(
  db: Db,
  s: FillSettings,
  t: FillTarget,
  log: (line: string) => void,
): Promise<FillTimings> {
  const now = new Date(t.nowMs);
  await db.raw('set synchronous_commit = off');
  log(`filling mail_webhook_deliveries with ${s.deliveries.toLocaleString('en')} rows…`);
  const deliveriesMs = await timed(() =>
    db.raw(
      `insert into mail_webhook_deliveries
         (id, endpoint_id, product_id, event_id, event_type, payload, status, attempts, next_attempt_at,
          last_attempt_at, response_status, created_at)
       select gen_random_uuid(), md5('bench-endpoint-' || (i % ${s.endpoints}))::uuid, ?, gen_random_uuid(),
              'email.delivered', ?,
              case when i % 10 = 0 then 'pending' when i % 10 = 1 then 'failed' else 'succeeded' end,
              case when i % 10 in (0, 1) then 0 else 1 end,
              case when i % 10 = 0 then ts + interval '120 days' end,
              case when i % 10 not in (0, 1) then least(ts + (i % 3) * interval '1 day', ?) end,
              case when i % 10 not in (0, 1) then 204 end,
              ts
       from (select i, ${tsOf(s.spreadDays, s.deliveries)} as ts from generate_series(1, ${s.deliveries}) i) g
       order by ts`,
      [t.productId, t.payload, now, now],
    ),
  );
  log(`  ${(deliveriesMs / 1000).toFixed(1)} s`);
  log(`filling mail_emails with ${s.emails.toLocaleString('en')} rows…`);
  const html = `<html><body>${'<p>Your weekly digest: lorem ipsum dolor sit amet.</p>'.repeat(Math.max(1, Math.round(s.htmlBytes / 52)))}</body></html>`;
  const emailsMs = await timed(() =>
    db.raw(
      `insert into mail_emails
         (id, product_id, environment, from_header, to_header, to_address, subject, html, message_id,
          status, send_state, send_attempts, send_next_attempt_at, provider_message_id,
          last_event_type, last_event_at, created_at)
       select gen_random_uuid(), ?, 'production', 'news@fill.example.test', a, a, 'Your weekly digest #' || i, ?,
              'fill-' || i || '@fill.example.test',
              case when i % 5 = 0 then 'queued' when i % 50 = 1 then 'suppressed' else 'delivered' end,
              case when i % 5 = 0 then 'deferred' when i % 50 = 1 then 'pending' else 'done' end,
              case when i % 50 = 1 then 0 else 1 end,
              case when i % 5 = 0 then ts + interval '120 days' end,
              case when i % 5 <> 0 and i % 50 <> 1 then 'Q' || i end,
              case when i % 5 = 0 then 'deferred' when i % 50 = 1 then 'suppressed' else 'opened' end,
              case when i % 7 = 0 then cast(? as timestamptz) - interval '1 hour' else ts + interval '10 minutes' end,
              ts
       from (select i, 'reader-' || i || '@example.net' as a, ${tsOf(s.spreadDays, s.emails)} as ts
             from generate_series(1, ${s.emails}) i) g
       order by ts`,
      [t.productId, html, now, now],
    ),
  );
  log(`  ${(emailsMs / 1000).toFixed(1)} s`);
  log(
    `filling mail_email_events: two per email, ${s.unmatchedEvents.toLocaleString('en')} that matched no email…`,
  );
  const eventsMs = await timed(async () => {
    await db.raw(
      `insert into mail_email_events (event_id, product_id, email_id, type, recipient, occurred_at, recorded_at)
       select gen_random_uuid(), m.product_id, m.id, e.type, m.to_address, e.at, e.at
       from mail_emails m
       cross join lateral (values
         (case m.send_state when 'deferred' then 'deferred' when 'pending' then 'suppressed' else 'delivered' end,
          m.created_at + interval '10 minutes'),
         (m.last_event_type, m.last_event_at)) e(type, at)
       where m.product_id = ?
       order by e.at`,
      [t.productId],
    );
    await db.raw(
      `insert into mail_email_events (event_id, product_id, email_id, type, recipient, occurred_at, recorded_at)
       select gen_random_uuid(), ?, null, 'complained', 'elsewhere-' || i || '@example.net', ts, ts
       from (select i, ${tsOf(s.spreadDays, s.unmatchedEvents)} as ts from generate_series(1, ${s.unmatchedEvents}) i) g
       order by ts`,
      [t.productId, now],
    );
  });
  log(`  ${(eventsMs / 1000).toFixed(1)} s`);
  await insertEdgeCases(db, t);
  log('vacuum (analyze) of the filled tables…');
  const vacuumMs = await timed(() =>
    db.raw('vacuum (analyze) mail_webhook_deliveries, mail_emails, mail_email_events'),
  );
  log(`  ${(vacuumMs / 1000).toFixed(1)} s`);
  return { deliveriesMs, emailsMs, eventsMs, vacuumMs };
}

/** Rows on both sides of the bounds at `t.cutoffs`, and old rows that are not done with. */
async function insertEdgeCases(db: Db, t: FillTarget): Promise<void> {
  const p = t.productId;
  let c = new Date(t.cutoffs.deliveries);
  // status, created_at, last_attempt_at (expressions of the cutoff `c`).
  const deliveries: Array<[string, string, string | null]> = [
    ['succeeded', "c - interval '1 day'", "c - interval '1 millisecond'"], // goes
    ['succeeded', "c - interval '1 day'", 'c'], // stays: attempted at the bound
    ['failed', "c - interval '1 millisecond'", null], // goes: never attempted, made 1 ms before
    ['failed', 'c', null], // stays
    ['pending', "c - interval '300 days'", null], // stays: not done with
    ['failed', "c - interval '300 days'", "c + interval '1 day'"], // stays: retried since
  ];
  for (const [status, created, attempted] of deliveries)
    await db.raw(
      `insert into mail_webhook_deliveries (id, endpoint_id, product_id, event_id, event_type, payload, status,
         attempts, next_attempt_at, last_attempt_at, created_at)
       select gen_random_uuid(), md5('bench-edge')::uuid, ?, gen_random_uuid(), 'edge', '{}', ?,
              ${attempted ? 1 : 0}, ${status === 'pending' ? "c + interval '400 days'" : 'null'},
              ${attempted ?? 'null'}, ${created}
       from (select cast(? as timestamptz) as c) x`,
      [p, status, c],
    );
  c = new Date(t.cutoffs.mail);
  // status, send_state, created_at, last_event_at; each with two events.
  const emails: Array<[string, string, string, string | null]> = [
    ['delivered', 'done', "c - interval '1 day'", "c - interval '1 millisecond'"], // goes
    ['delivered', 'done', "c - interval '1 day'", 'c'], // stays
    ['delivered', 'done', "c - interval '1 millisecond'", null], // goes: no event, made 1 ms before
    ['delivered', 'done', 'c', null], // stays
    ['suppressed', 'pending', "c - interval '2 days'", "c - interval '1 millisecond'"], // goes: suppressed
    ['queued', 'deferred', "c - interval '300 days'", "c - interval '299 days'"], // stays: still being sent
    ['delivered', 'done', "c - interval '300 days'", "c + interval '1 hour'"], // stays: opened since
  ];
  for (const [status, sendState, created, lastEvent] of emails)
    await db.raw(
      `with m as (
         insert into mail_emails (id, product_id, environment, from_header, to_header, to_address, subject,
           message_id, status, send_state, send_attempts, send_next_attempt_at, last_event_type, last_event_at,
           created_at)
         select gen_random_uuid(), ?, 'production', 'edge@fill.example.test', 'edge@example.net',
                'edge@example.net', 'edge', 'edge-' || gen_random_uuid() || '@fill.example.test', ?, ?,
                ${status === 'suppressed' ? 0 : 1}, ${sendState === 'deferred' ? "c + interval '400 days'" : 'null'},
                ${lastEvent ? "'edge'" : 'null'}, ${lastEvent ?? 'null'}, ${created}
         from (select cast(? as timestamptz) as c) x
         returning id, product_id, created_at, coalesce(last_event_at, created_at) as last_at)
       insert into mail_email_events (event_id, product_id, email_id, type, recipient, occurred_at, recorded_at)
       select gen_random_uuid(), product_id, id, 'edge', 'edge@example.net', at, at
       from m, lateral (values (m.created_at), (m.last_at)) e(at)`,
      [p, status, sendState, c],
    );
  // Events that matched no email: received 1 ms before the bound (goes) and at it (stays).
  await db.raw(
    `insert into mail_email_events (event_id, product_id, email_id, type, recipient, occurred_at, recorded_at)
     select gen_random_uuid(), ?, null, 'edge', 'edge@example.net', at, at
     from (values (cast(? as timestamptz) - interval '1 millisecond'), (cast(? as timestamptz))) v(at)`,
    [p, c, c],
  );
}
