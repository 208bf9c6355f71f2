// Whether the purges removed exactly what is past retention, judged row by row against a manifest
// of the generated rows taken before any purge ran (tables of the throwaway database), with the
// retention rules written here independently of the purges' statements (docs/operations.md
// "Retention"):
//   a webhook delivery   is past retention at cutoff C once it is not pending and
//                        greatest(created_at, last_attempt_at) < C
//   an email             once it is sent or suppressed (send_state 'done' or status 'suppressed')
//                        and greatest(created_at, last_event_at) < C
//   an event             with its email; one that matched no email once recorded_at < C
// A check at C counts, per table, the generated rows past retention still present ("left") and
// those not past retention that are gone ("lost": a purge deleted what it must keep).
import type { Db } from '@lattice/store';

export const MANIFEST_TABLES = ['bench_fill_deliveries', 'bench_fill_emails', 'bench_fill_events'] as const;

/** Per table of the generated rows: how many are past retention at C, how many are not, and what the check found. */
export interface TableCheck {
  table: string;
  past: number;
  kept: number;
  /** Past retention at C, still present. */
  left: number;
  /** Not past retention at C, gone. */
  lost: number;
  /** Present now. */
  present: number;
  /**
   * Not past retention at C but created before it: rows a purge finding its rows by creation time
   * walks past (deliveries and emails; 0 for events).
   */
  keptOlder: number;
}

/** The cutoff of each rule, epoch ms: deliveries', and emails' and events'. */
export interface Cutoffs {
  deliveries: number;
  mail: number;
}

export interface ExactnessCheck {
  cutoffs: Cutoffs;
  tables: TableCheck[];
}

/** Records every generated row of `productId` with what its retention depends on. */
export async function takeManifest(db: Db, productId: string): Promise<void> {
  for (const table of MANIFEST_TABLES) await db.raw('drop table if exists ??', [table]);
  await db.raw(
    `create table bench_fill_deliveries as
       select id, created_at, status <> 'pending' as done, greatest(created_at, last_attempt_at) as done_at
       from mail_webhook_deliveries where product_id = ?`,
    [productId],
  );
  await db.raw(
    `create table bench_fill_emails as
       select id, created_at, send_state = 'done' or status = 'suppressed' as done,
              greatest(created_at, last_event_at) as done_at
       from mail_emails where product_id = ?`,
    [productId],
  );
  await db.raw(
    `create table bench_fill_events as
       select event_id, email_id, recorded_at from mail_email_events where product_id = ?`,
    [productId],
  );
  for (const table of MANIFEST_TABLES) await db.raw('analyze ??', [table]);
}

type Counts = { past: string; kept: string; left: string; lost: string; present: string; kept_older: string };

const tally = (table: string, r: Counts): TableCheck => ({
  table,
  past: Number(r.past),
  kept: Number(r.kept),
  left: Number(r.left),
  lost: Number(r.lost),
  present: Number(r.present),
  keptOlder: Number(r.kept_older),
});

const COUNTS = `count(*) filter (where past) as past, count(*) filter (where not past) as kept,
  count(*) filter (where past and present) as left, count(*) filter (where not past and not present) as lost,
  count(*) filter (where present) as present, count(*) filter (where not past and older) as kept_older`;

/** The check at `cutoffs` (every purge run so far used cutoffs at or before them). */
export async function checkExactness(db: Db, cutoffs: Cutoffs): Promise<ExactnessCheck> {
  const d = new Date(cutoffs.deliveries);
  const c = new Date(cutoffs.mail);
  const one = async (table: string, sql: string, params: unknown[]) => {
    const { rows } = (await db.raw(sql, params as never)) as { rows: Counts[] };
    return tally(table, rows[0]!);
  };
  const tables = [
    await one(
      'mail_webhook_deliveries',
      `select ${COUNTS} from (
         select s.done and s.done_at < ? as past, d.id is not null as present, s.created_at < ? as older
         from bench_fill_deliveries s left join mail_webhook_deliveries d on d.id = s.id) x`,
      [d, d],
    ),
    await one(
      'mail_emails',
      `select ${COUNTS} from (
         select s.done and s.done_at < ? as past, m.id is not null as present, s.created_at < ? as older
         from bench_fill_emails s left join mail_emails m on m.id = s.id) x`,
      [c, c],
    ),
    await one(
      'mail_email_events',
      `select ${COUNTS} from (
         select case when s.email_id is null then s.recorded_at < ?
                     else coalesce(m.done and m.done_at < ?, false) end as past,
                e.event_id is not null as present, false as older
         from bench_fill_events s
         left join bench_fill_emails m on m.id = s.email_id
         left join mail_email_events e on e.event_id = s.event_id) x`,
      [c, c],
    ),
  ];
  return { cutoffs, tables };
}

/** Generated events whose email is gone while they stay (none must be: an email's events go with it). */
export async function orphanEvents(db: Db, productId: string): Promise<number> {
  const { rows } = (await db.raw(
    `select count(*) as n from mail_email_events e
     where e.product_id = ? and e.email_id is not null
       and not exists (select 1 from mail_emails m where m.id = e.email_id)`,
    [productId],
  )) as { rows: Array<{ n: string }> };
  return Number(rows[0]?.n ?? 0);
}

/** "ok", or what went wrong, for the console and the report. */
export function describeCheck(check: ExactnessCheck, final: boolean): string {
  const problems = check.tables.flatMap((t) => [
    ...(t.lost ? [`${t.table}: ${t.lost} rows not past retention were deleted`] : []),
    ...(final && t.left ? [`${t.table}: ${t.left} rows past retention were left`] : []),
  ]);
  return problems.length === 0 ? 'ok' : problems.join('; ');
}
