// The retention benchmark's report: its own section of docs/benchmarks.md (between markers, so the
// other benchmarks' sections stay as they are) and docs/benchmarks-retention.svg beside it
// (plot.ts). Every figure and verdict in it is computed from the run's own rounds, purge runs and
// checks (figures.ts).
import { writeFileSync } from 'node:fs';
import { previewBenchmarkSection, writeBenchmarkSection } from '../support/doc-section.ts';
import { PRODUCTION_LOG_LEVEL } from '../support/platform-log.ts';
import type { ExactnessCheck } from './exactness.ts';
import {
  type BenchResult,
  fixed,
  type Latency,
  percentileOf,
  type Summary,
  TARGET_P99_FACTOR,
} from './figures.ts';
import { svgOf } from './plot.ts';
import { ACTORS_RETENTION_JOBS_OFF } from './processes.ts';

const SVG = new URL('../../../docs/benchmarks-retention.svg', import.meta.url);
const START = '<!-- bench:retention:start -->';
const END = '<!-- bench:retention:end -->';

const n = (v: number) => (Number.isFinite(v) ? Math.round(v).toLocaleString('en') : '—');
const mib = (bytes: number) => `${fixed(bytes / 2 ** 20)} MiB`;
const mb = (bytes: number) => `${fixed(bytes / 1e6)} MB`;
const pct = (share: number) => `${fixed(100 * share, 1)}%`;
const verdict = (met: boolean) => (met ? 'met' : 'missed');
const iso = (ms: number) => new Date(ms).toISOString().replace('T', ' ').replace('Z', ' UTC');
const cells = (l: Latency) => `${fixed(l.p50Ms, 1)} | ${fixed(l.p99Ms, 1)}`;
const keptOlderOf = (check: ExactnessCheck | undefined, table: string) =>
  n(check?.tables.find((t) => t.table === table)?.keptOlder ?? Number.NaN);

function checkRows(before: ExactnessCheck, after: ExactnessCheck): string[] {
  return after.tables.map((t, i) => {
    const b = before.tables[i]!;
    return `| \`${t.table}\` | ${n(b.past + b.kept)} | ${n(b.past)} | ${n(b.kept)} | ${t.table === 'mail_email_events' ? '—' : n(b.keptOlder ?? Number.NaN)} | ${n(t.left)} | ${n(t.lost)} | ${n(t.present)} |`;
  });
}

/** Writes the report (when `write`) and returns the summary lines for the console. */
export function writeReport(r: BenchResult, s: Summary, write: boolean): string[] {
  const st = r.settings;
  const stamp = `${r.at.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
  const withRounds = r.rounds.filter((x) => x.arm === 'with');
  const production = st.logLevel === PRODUCTION_LOG_LEVEL;
  const [hooks, mail] = s.purges as [Summary['purges'][0], Summary['purges'][0]];
  const slices = withRounds.map((x) => fixed(x.clockBehindDays ?? 0, 1)).join(', ');
  const batchGrowth = (p: Summary['purges'][0]) =>
    p.batchMs.map((b) => `${fixed(b.firstMs)} → ${fixed(b.lastMs)}`).join(', ');
  const finalDeleted = (table: string) =>
    r.finalRuns.filter((p) => p.table === table).reduce((a, p) => a + p.deleted, 0);
  const deletedOf = (table: string) =>
    Object.entries({ ...hooks.allDeletedByTable, ...mail.allDeletedByTable }).find(
      ([t]) => t === table,
    )?.[1] ?? 0;
  const pastOf = (table: string) => r.fill.before.tables.find((t) => t.table === table)?.past ?? Number.NaN;
  const tally = r.final.tables.map((t) => ({
    table: t.table,
    reported: deletedOf(t.table),
    past: pastOf(t.table),
  }));
  const generated = (table: string) => {
    const t = r.fill.before.tables.find((x) => x.table === table);
    return t ? t.past + t.kept : Number.NaN;
  };
  const sizes = r.fill.tables
    .map((t) => `\`${t.table}\` ${n(generated(t.table))} rows, ${mib(t.bytes)} with its indexes`)
    .join('; ');
  const f = r.fill.timings;
  const lines = [
    START,
    '## Retention purges: a million rows purged while deliveries and sends run',
    '',
    `Measured ${stamp} by \`npm run bench:retention\` on ${r.machine}. PostgreSQL, Kafka, Redis, the`,
    'platform processes, the receiver, the smart host and the load generator (which runs the purges) share',
    'those cores; each round starts once the machine is quiet.',
    '',
    `- **Fill**: a throwaway database of the run's own, migrated, holding ${n(st.deliveries)} webhook deliveries,`,
    `  ${n(st.emails)} emails with two events each and ${n(st.unmatchedEvents)} events that matched no email, generated in SQL`,
    `  (\`test/bench/retention/fill.ts\`; ${fixed(f.deliveriesMs / 1000)} s, ${fixed(f.emailsMs / 1000)} s and ${fixed(f.eventsMs / 1000)} s) with the mix of the purges' integration test:`,
    '  every tenth delivery pending, every tenth failed without an attempt, the rest succeeded up to two days',
    '  after they were made; every fifth email still being sent, every seventh with an event an hour before',
    `  now, one in fifty suppressed at accept; ${st.htmlBytes} bytes of html per email. Creation times spread over ${st.spreadDays}`,
    `  days before the run's start, rows inserted in creation order; ${st.fillEndpoints} endpoints. After the fill (and a`,
    `  VACUUM ANALYZE): ${sizes}. Then the edge cases at the final cutoff: a row finished 1 ms before`,
    '  it, one finished at it, old rows pending, being sent, or attempted or opened since, and unmatched',
    '  events received 1 ms before and at it.',
    `- **Load**: at fixed rates for ${st.roundSeconds} s a round, through the platform's durable path: ${st.eventRate} \`email.delivered\``,
    `  events a second published onto \`mail.events\` and delivered over HTTPS to ${st.endpoints === 1 ? 'one endpoint' : `${st.endpoints} endpoints`} at the webhook`,
    "  benchmark's receiver, timed from just before the publish call to the first attempt's arrival; and",
    `  ${st.sendRate} sends a second through \`POST /mail/emails\` (management API, owner token) handed to the mail`,
    "  benchmark's smart host by the actors, timed from the 202 answer to the smart host accepting the",
    '  message (accepted → sent). After each round every delivery must have arrived once and succeeded at',
    '  its first attempt, every accepted email arrived once and be `delivered`.',
    `- **Purges**: the real \`createWebhookDeliveryPurge\` and \`createEmailPurge\` over every product, the budget`,
    `  (${st.budgetMs} ms) and batch (${st.batchSize}) of the configuration, retention ${st.webhookDeliveryDays} and ${st.mailDays} days, one after another in one loop of the load`,
    `  generator on a connection pool of its own, a run every ${st.purgeIntervalMs} ms (the next at once when a run takes longer):`,
    '  while behind they run back to back, where production runs one a minute. Each statement is timed, so',
    "  every run is known with its batches. The actors' own retention jobs are held off",
    `  (\`RETENTION_PURGE_INTERVAL_MS=${ACTORS_RETENTION_JOBS_OFF.RETENTION_PURGE_INTERVAL_MS}\`). A backlog this size is eaten in seconds at this`,
    `  cadence, so with-purge round k runs the purges on a clock ${slices} days behind the real one (the`,
    '  same as a longer retention): each round faces a fresh slice of the backlog.',
    `- **Rounds**: ${st.rounds} pairs, one round without purging and one with, alternating (the order flips every pair),`,
    `  after a ${st.warmupSeconds} s warm-up without; each after a VACUUM ANALYZE of the mail tables (the local PostgreSQL runs`,
    '  without autovacuum) and a CHECKPOINT (so the writes of the round before are not written back during it), and',
    '  a quiet-machine check. "During purge work" are the with-purge rounds\' samples in flight while a run',
    `  that deleted ${n(st.batchSize)} rows or more was under way: the latency while the backlog is being eaten.`,
    `- **Exactness**: a manifest of every generated row is taken before any purge runs. After each with-purge`,
    "  round no row the rules keep may be gone (at the latest cutoff the round's runs could use); at the end",
    `  the purges run on a clock stopped at the final instant (the run's start plus ${fixed(st.finalAheadMs / 3_600_000, 1)} h, later than any`,
    '  cutoff of the rounds) until drained; then every generated row past retention at that instant must be gone and',
    '  every other one present, row by row, by rules written in the check itself (deliveries: not pending and',
    '  `greatest(created_at, last_attempt_at)` before the cutoff; emails: `send_state` done or suppressed and',
    '  `greatest(created_at, last_event_at)` before it; events with their email, unmatched ones by receipt).',
    '',
    `Settings: \`RETENTION_PURGE_BUDGET_MS\` ${st.budgetMs}, \`RETENTION_PURGE_BATCH\` ${st.batchSize}, \`WEBHOOK_DELIVERY_RETENTION_DAYS\` ${st.webhookDeliveryDays},`,
    `\`MAIL_RETENTION_DAYS\` ${st.mailDays}; \`MAIL_SEND_RATE_PER_SECOND\` raised to ${n(st.sendRatePerSecond)} for the run; \`KAFKA_PARTITIONS\` ${st.kafkaPartitions}`,
    `(a fresh topic prefix per run); \`WEBHOOK_ALLOW_PRIVATE_TARGETS=true\`; BENCH_ROUND_SECONDS=${st.roundSeconds} BENCH_ROUNDS=${st.rounds}`,
    `BENCH_EVENT_RATE=${st.eventRate} BENCH_SEND_RATE=${st.sendRate} BENCH_PURGE_INTERVAL_MS=${st.purgeIntervalMs}; everything else at its default.`,
    production
      ? `Management and the actors run as \`lattice start\` runs them, at the production log level (\`${st.logLevel}\`), with the actors' other periodic jobs at their intervals over every product.`
      : `**Not production settings**: the platform logged at \`${st.logLevel}\` (production: \`${PRODUCTION_LOG_LEVEL}\`).`,
    '',
    '| path | without p50 ms | p99 ms | with purge p50 ms | p99 ms | during purge work p50 ms | p99 ms | samples during | p99 during ÷ without |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    `| deliveries: event → first attempt | ${cells(s.deliveries.without)} | ${cells(s.deliveries.with)} | ${cells(s.deliveries.during)} | ${n(s.deliveries.during.n)} | ${fixed(s.deliveries.ratio, 2)} |`,
    `| sends: accepted → sent | ${cells(s.sends.without)} | ${cells(s.sends.with)} | ${cells(s.sends.during)} | ${n(s.sends.during.n)} | ${fixed(s.sends.ratio, 2)} |`,
    `| send accept: request → 202 | ${cells(s.accepts.without)} | ${cells(s.accepts.with)} | — | — | — | — |`,
    '',
    `**Delivery p99 during purge work ÷ without: ${fixed(s.deliveries.ratio, 2)}** (goal ≤ ${TARGET_P99_FACTOR}: **${verdict(s.deliveriesMet)}**); over whole`,
    `with-purge rounds ${fixed(s.deliveries.wholeRoundRatio, 2)}, per pair ${s.deliveries.pairRatios.map((x) => fixed(x, 2)).join(', ')}.`,
    `**Send p99 during purge work ÷ without: ${fixed(s.sends.ratio, 2)}** (goal ≤ ${TARGET_P99_FACTOR}: **${verdict(s.sendsMet)}**); over whole rounds`,
    `${fixed(s.sends.wholeRoundRatio, 2)}, per pair ${s.sends.pairRatios.map((x) => fixed(x, 2)).join(', ')}.`,
    `The machine was ${fixed(100 * s.cpu.without.machineBusy)}% busy in the rounds without purging (PostgreSQL ${fixed(s.cpu.without.postgres, 2)} cores, the actors`,
    `${fixed(s.cpu.without.actors, 2)}, other ${fixed(s.cpu.without.other, 2)}), ${fixed(100 * s.cpu.with.machineBusy)}% in those with (PostgreSQL ${fixed(s.cpu.with.postgres, 2)} cores, the actors ${fixed(s.cpu.with.actors, 2)},`,
    `other ${fixed(s.cpu.with.other, 2)}). CPU is read from /proc over each round: "other" is the machine's busy time no process of the run`,
    "(PostgreSQL, Kafka, Redis, the platform's, the receiver's, the smart host's, the load generator's) accounts for:",
    "other work on the machine and the kernel's (page writeback).",
    'During purge work, by how many purges were working (their runs overlapping a sample):',
    '',
    '| path | both purges: samples | p50 ms | p99 ms | one purge: samples | p50 ms | p99 ms |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...(
      [
        ['deliveries', s.deliveries],
        ['sends', s.sends],
      ] as const
    ).map(
      ([name, f]) =>
        `| ${name} | ${n(f.duringBoth.n)} | ${cells(f.duringBoth)} | ${n(f.duringOne.n)} | ${cells(f.duringOne)} |`,
    ),
    '',
    `Purge work (runs that deleted a batch or more) lasted ${s.purgeWork.map((w) => `${fixed(w.seconds, 1)} s`).join(', ')} of the with-purge rounds' ${st.roundSeconds} s; during it`,
    `${s.purgeWork.map((w) => fixed(w.concurrency, 2)).join(', ')} runs were under way at once on average (a run is its batches back to back: a PostgreSQL`,
    'backend busy with one statement after another, with no pause between them).',
    `PostgreSQL wrote ${mb(s.io.without.walBytes)} of WAL a round without purging (${n(s.io.without.walFullPageImages)} full-page images), ${mb(s.io.with.walBytes)} a round with`,
    `(${n(s.io.with.walFullPageImages)} full-page images); some task of the machine was stalled on I/O ${pct(s.io.without.ioSomeShare)} of the time in the rounds without,`,
    `${pct(s.io.with.ioSomeShare)} in those with (/proc/pressure/io). Every round starts right after a checkpoint, and the pages a purge`,
    'deletes from are old ones no write has touched since, so the first change of each is logged as a full-page image, as it is in',
    'production after every checkpoint.',
    '',
    '| purge | runs | stopped on the budget | rows deleted | rows/s while working | longest run ms | longest batch ms | ms a batch, first run → last working run, by round | runs with less than a batch: median ms | longest ms | runs starting a batch after the budget |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- | ---: | ---: | ---: |',
    ...[hooks, mail].map(
      (p) =>
        `| \`${p.table}\` | ${p.runs} | ${p.behind} | ${n(p.deleted)} | ${n(p.rowsPerSecond)} | ${fixed(p.maxWallMs)} | ${fixed(p.maxStatementMs)} | ${batchGrowth(p)} | ${fixed(p.idleMedianMs)} | ${fixed(p.idleMaxMs)} | ${p.lateRuns} |`,
    ),
    '',
    `Rows deleted count every table a purge deletes from: the email purge deletes an email's events with it (in the rounds`,
    `${n(mail.deletedByTable.mail_emails ?? 0)} emails and ${n(mail.deletedByTable.mail_email_events ?? 0)} events). Rows/s while working is over the runs that deleted a batch or more, under the load.`,
    `**Longest run: ${fixed(Math.max(hooks.maxWallMs, mail.maxWallMs))} ms** against a budget of ${st.budgetMs} ms plus one batch (at most ${fixed(Math.max(hooks.maxStatementMs, mail.maxStatementMs))} ms here):`,
    `**${verdict(s.boundMet)}** (${hooks.lateRuns + mail.lateRuns} runs started a batch after their budget, ${hooks.overBound + mail.overBound} ran past the budget plus their longest batch).`,
    ...[hooks, mail].flatMap((p) =>
      p.late.map(
        (x) =>
          `The \`${p.table}\` run in "${x.label}" (${fixed(x.wallMs)} ms, ${x.statements} batches) started a batch ${x.lateStartsMs.map((t) => `${fixed(t)} ms`).join(', ')} into the run.`,
      ),
    ),
    '',
    '| table | generated rows | past retention at the final cutoff | to keep | of which created before the cutoff | past retention left at the end | kept rows gone | present at the end |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...checkRows(r.fill.before, r.final),
    '',
    `Final cutoffs: deliveries ${iso(r.final.cutoffs.deliveries)}, mail ${iso(r.final.cutoffs.mail)}. Rows the purges reported deleting,`,
    `over every run, against the generated rows past retention: ${tally.map((t) => `\`${t.table}\` ${n(t.reported)} of ${n(t.past)}`).join(', ')}`,
    `(the final runs on the stopped clock deleted ${n(finalDeleted('mail_webhook_deliveries'))} and ${n(finalDeleted('mail_emails'))} of them). Generated events left without`,
    `their email: ${n(r.orphanEvents)}. After each with-purge round, kept rows gone: ${withRounds.map((x) => n((x.check?.tables ?? []).reduce((a, t) => a + t.lost, 0))).join(', ')}.`,
    `**Exactly what is past retention removed: ${s.exact && s.roundChecksClean ? 'yes' : 'no'}**.`,
    '',
    'Both purges read pages in the order of their `created_at` index from where the last batch stopped and check',
    'the rest (status, the last attempt or event) on the page, so a pass walks once past the rows created before',
    'the cutoff that the rules keep, not once per batch. Kept rows created before the cutoff at the end of each',
    `with-purge round (deliveries / emails): ${withRounds.map((x) => `${keptOlderOf(x.check, 'mail_webhook_deliveries')} / ${keptOlderOf(x.check, 'mail_emails')}`).join(', ')}; the runs with less than a batch to delete took`,
    `${fixed(hooks.idleMedianMs)} ms (deliveries) and ${fixed(mail.idleMedianMs)} ms (emails) at the median, ${fixed(hooks.idleMaxMs)} and ${fixed(mail.idleMaxMs)} ms at the longest, and the batches`,
    `of the runs that deleted took the times in the purge table above, by round.`,
    '',
    'Every round:',
    '',
    '| round | purge clock behind (days) | deliveries p50 ms | p99 ms | sends p50 ms | p99 ms | accept p99 ms | rows purged | purge runs | machine busy | PostgreSQL cores | actors cores | other cores | WAL MB | full-page images | stalled on I/O |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...r.rounds.map((x) => {
      const l = x.load;
      const ms = (v: number[], p: number) => fixed(percentileOf(v, p), 1);
      return `| ${l.label} | ${x.arm === 'with' ? fixed(x.clockBehindDays ?? 0, 1) : '—'} | ${ms(l.deliveries.ms, 50)} | ${ms(l.deliveries.ms, 99)} | ${ms(l.sends.ms, 50)} | ${ms(l.sends.ms, 99)} | ${ms(l.accepts.ms, 99)} | ${x.arm === 'with' ? n(x.purgeRuns.reduce((a, p) => a + p.deleted, 0)) : '—'} | ${x.arm === 'with' ? x.purgeRuns.length : '—'} | ${fixed(100 * l.cpu.machineBusy)}% | ${fixed(l.cpu.postgres, 2)} | ${fixed(l.cpu.actors, 2)} | ${fixed(l.cpu.other ?? Number.NaN, 2)} | ${fixed((l.io?.walBytes ?? Number.NaN) / 1e6)} | ${n(l.io?.walFullPageImages ?? Number.NaN)} | ${pct(l.io?.ioSomeShare ?? Number.NaN)} |`;
    }),
    '',
    `Load average ${fixed(r.loadAverage.before, 1)} before the run, ${fixed(r.loadAverage.after, 1)} after, on ${r.machine.split(' ')[0]} cores.`,
    '',
    '![latency by path and arm, and every purge run’s duration beside the budget](benchmarks-retention.svg)',
    END,
  ];
  const section = lines.join('\n');
  let preview = '';
  if (write) {
    writeBenchmarkSection(START, END, section);
    writeFileSync(SVG, svgOf(r, s));
  } else preview = previewBenchmarkSection('retention', section);
  return [
    `deliveries p99: without ${fixed(s.deliveries.without.p99Ms, 1)} ms, during purge work ${fixed(s.deliveries.during.p99Ms, 1)} ms (${s.deliveries.during.n} samples): ratio ${fixed(s.deliveries.ratio, 2)} (goal <= ${TARGET_P99_FACTOR}: ${verdict(s.deliveriesMet)}); whole rounds ${fixed(s.deliveries.wholeRoundRatio, 2)}`,
    `sends p99: without ${fixed(s.sends.without.p99Ms, 1)} ms, during purge work ${fixed(s.sends.during.p99Ms, 1)} ms (${s.sends.during.n} samples): ratio ${fixed(s.sends.ratio, 2)} (goal <= ${TARGET_P99_FACTOR}: ${verdict(s.sendsMet)}); whole rounds ${fixed(s.sends.wholeRoundRatio, 2)}`,
    ...[hooks, mail].map(
      (p) =>
        `${p.table} purge: ${p.runs} runs, ${p.behind} stopped on the budget, ${p.deleted} rows, ${fixed(p.rowsPerSecond)} rows/s while working, longest run ${fixed(p.maxWallMs)} ms, longest batch ${fixed(p.maxStatementMs)} ms, ${p.lateRuns} runs started a batch after the budget; ms a batch by round ${batchGrowth(p)}; runs with less than a batch: median ${fixed(p.idleMedianMs)} ms, longest ${fixed(p.idleMaxMs)} ms`,
    ),
    `run duration within budget + one batch: ${verdict(s.boundMet)}`,
    `exactness: ${s.exact && s.roundChecksClean ? 'exact' : 'NOT exact'} (${tally.map((t) => `${t.table} deleted ${t.reported} of ${t.past} past retention`).join('; ')}; orphan events ${r.orphanEvents})`,
    write
      ? 'written to docs/benchmarks.md and docs/benchmarks-retention.svg'
      : `not written (BENCH_WRITE=0); the section is in ${preview}`,
  ];
}
