// `npm run bench:retention`: the retention purges over a million generated rows while webhook
// deliveries and email sends run through the platform, written to docs/benchmarks.md (its own
// section) with docs/benchmarks-retention.svg (issue #27 item 3's load figures).
//   fill      a throwaway database of its own (the suite's and the other benchmarks' never hold
//             these rows): BENCH_DELIVERIES webhook deliveries, BENCH_EMAILS emails with two
//             events each and BENCH_UNMATCHED events that matched no email, generated in SQL over
//             BENCH_FILL_DAYS days (fill.ts), and the edge cases on both sides of the final cutoff
//   load      the platform's durable path at fixed rates (load-round.ts): BENCH_EVENT_RATE events
//             a second onto `mail.events`, delivered over HTTPS to BENCH_ENDPOINTS endpoint(s) at
//             the webhook benchmark's receiver, and BENCH_SEND_RATE sends a second through the
//             management API to the mail benchmark's smart host
//   rounds    BENCH_ROUNDS pairs of BENCH_ROUND_SECONDS rounds, one without purging and one with
//             the purges running from this process (purge-runs.ts: the real purges, the budget and
//             batch of the configuration, a run of each every BENCH_PURGE_INTERVAL_MS), the order
//             flipped every pair, after a warm-up round; each round after a VACUUM, a CHECKPOINT
//             and a quiet-machine check. With-purge round k runs the purges on a clock
//             (BENCH_FILL_DAYS − retention) × (rounds − k) / rounds days behind the real one, so
//             each faces a fresh slice of the backlog instead of the first one eating it all
//   exactness after each with-purge round nothing the rules keep may be gone; at the end the
//             purges run on a clock stopped at the final instant (now + BENCH_FINAL_AHEAD_MS) until
//             drained, and everything past retention at its cutoff must be gone, everything else
//             there, row by row against a manifest taken before any purge (exactness.ts)
// Settings (environment): those above (defaults in `settings`), BENCH_LOG_LEVEL (the platform's,
// default the production one), BENCH_WRITE (1: update the docs), BENCH_PROFILE_DIR (V8 CPU
// profiles of the children), BENCH_RESULT_FILE (the figures as JSON; default
// bench-retention-result.json in the temp folder), BENCH_REPORT_FROM (write the report again from
// such a file), BENCH_KEEP_DB=1 (leave the throwaway database in place to be looked at).
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import {
  type Clock,
  createLogger,
  generateSecretKeyEntry,
  loadConfig,
  newId,
  parseSecretKeys,
} from '@lattice/core';
import { ManualClock } from '@lattice/core/testing';
import { databaseUrlFor, ensureInfra } from '@lattice/infra';
import { createKafka, createRecordProducer, TOPIC_CATALOG, topicName } from '@lattice/kafka';
import { createMailEventPublisher, createPostgresDomainStore, webhookPayload } from '@lattice/mail';
import { bootstrapProduct, createDb, type Db } from '@lattice/store';
import { type ThrowawayDatabase, throwawayDatabase } from '@lattice/store/testing';
import { Arrivals as MailArrivals } from '../mail/processes.ts';
import { benchEnvReaders } from '../support/bench-env.ts';
import { quiet } from '../support/machine-cpu.ts';
import { benchLogLevel, createLogFiles } from '../support/platform-log.ts';
import { benchEvent } from '../webhooks/endpoints.ts';
import { Arrivals as HookArrivals } from '../webhooks/processes.ts';
import {
  checkExactness,
  describeCheck,
  type ExactnessCheck,
  orphanEvents,
  takeManifest,
} from './exactness.ts';
import { type BenchResult, fixed, percentileOf, type RoundResult, summaryOf } from './figures.ts';
import { DAY_MS, fillTables } from './fill.ts';
import { type LoadRig, loadRound } from './load-round.ts';
import { type RetentionServers, startPlatform, stopPlatform } from './processes.ts';
import { benchPurges, type PurgeRunRecord, startPurgeLoops } from './purge-runs.ts';
import { writeReport } from './report.ts';

const env = process.env;
const { num } = benchEnvReaders(env);
const baseConfig = loadConfig(env);
const settings = {
  deliveries: num('BENCH_DELIVERIES', 1_000_000),
  emails: num('BENCH_EMAILS', 500_000),
  unmatchedEvents: num('BENCH_UNMATCHED', 10_000),
  spreadDays: num('BENCH_FILL_DAYS', 60),
  htmlBytes: num('BENCH_HTML_BYTES', 1000),
  fillEndpoints: num('BENCH_FILL_ENDPOINTS', 1000),
  roundSeconds: num('BENCH_ROUND_SECONDS', 30),
  rounds: num('BENCH_ROUNDS', 3),
  warmupSeconds: num('BENCH_WARMUP_SECONDS', 10),
  eventRate: num('BENCH_EVENT_RATE', 50),
  sendRate: num('BENCH_SEND_RATE', 50),
  endpoints: num('BENCH_ENDPOINTS', 1),
  purgeIntervalMs: num('BENCH_PURGE_INTERVAL_MS', 2000),
  budgetMs: baseConfig.retention.purgeBudgetMs,
  batchSize: baseConfig.retention.purgeBatchSize,
  webhookDeliveryDays: baseConfig.retention.webhookDeliveryDays,
  mailDays: baseConfig.retention.mailDays,
  finalAheadMs: num('BENCH_FINAL_AHEAD_MS', 6 * 3_600_000),
  sendRatePerSecond: 1_000_000,
  kafkaPartitions: baseConfig.kafkaPartitions,
  logLevel: benchLogLevel(env),
};
const write = env.BENCH_WRITE !== '0';
const log = (line: string) => process.stdout.write(`bench:retention ${line}\n`);
const logger = createLogger({ name: 'bench-retention', level: 'error' });
const DATABASE_PREFIX = 'lattice_bench_retention_';

/** The test CA's certificate (generated once into .lattice/test-ca by the script). */
function testCa(): string {
  const script = fileURLToPath(new URL('../../../scripts/ensure-test-ca.sh', import.meta.url));
  return execFileSync('bash', [script], { encoding: 'utf8' }).trim();
}

/** Drops the throwaway databases an unfinished earlier run left. */
async function dropLeftovers(serverUrl: string): Promise<void> {
  const server = createDb({ databaseUrl: serverUrl });
  try {
    const { rows } = (await server.raw('select datname from pg_database where starts_with(datname, ?)', [
      DATABASE_PREFIX,
    ])) as { rows: Array<{ datname: string }> };
    for (const { datname } of rows) {
      await server.raw('drop database if exists ?? with (force)', [datname]);
      log(`dropped ${datname}, left by an earlier run`);
    }
  } finally {
    await server.destroy();
  }
}

async function tableSizes(db: Db): Promise<BenchResult['fill']['tables']> {
  const { rows } = (await db.raw(
    `select relname as table, reltuples::bigint as rows, pg_total_relation_size(oid) as bytes from pg_class
     where relname in ('mail_webhook_deliveries', 'mail_emails', 'mail_email_events') order by relname desc`,
  )) as { rows: Array<{ table: string; rows: string; bytes: string }> };
  return rows.map((r) => ({ table: r.table, rows: Number(r.rows), bytes: Number(r.bytes) }));
}

/**
 * Each round starts from vacuumed tables (the local PostgreSQL runs without autovacuum) and from
 * a checkpoint, so the writes of the round before (a purge's deletes, the vacuum's) are on disk and
 * not written back during this one.
 */
async function vacuum(db: Db): Promise<void> {
  await db.raw(
    'vacuum (analyze) mail_webhook_deliveries, mail_webhook_endpoints, mail_emails, mail_email_events, mail_idempotency_keys',
  );
  await db.raw('checkpoint');
}

const logRun = (p: PurgeRunRecord) =>
  `${p.table} ${p.deleted} rows in ${fixed(p.wallMs)} ms (${p.statements} batches, longest ${fixed(p.maxStatementMs)} ms)${p.drained ? ', drained' : ''}`;

function logCheck(label: string, check: ExactnessCheck, final: boolean): void {
  for (const t of check.tables)
    log(
      `  ${label} ${t.table}: ${t.past} generated rows past retention, ${t.left} of them left; ${t.kept} to keep, ${t.lost} of them gone`,
    );
  log(`  ${label}: ${describeCheck(check, final)}`);
}

async function main(ca: string): Promise<void> {
  log(`settings ${JSON.stringify(settings)}`);
  const loadBefore = loadavg()[0] ?? 0;
  await ensureInfra({ config: baseConfig, logger, searchPath: env.PATH ?? '' });
  const serverUrl = databaseUrlFor(baseConfig.databaseUrl, 'postgres');
  await dropLeftovers(serverUrl);
  const run = newId().slice(0, 8);
  const scratch: ThrowawayDatabase = await throwawayDatabase(serverUrl, `${DATABASE_PREFIX}${run}`);
  const db = scratch.db;
  log(`throwaway database ${new URL(scratch.url).pathname.slice(1)}`);
  const kafkaTopicPrefix = `bench-retention-${run}.`;
  const kafka = createKafka({ brokers: baseConfig.kafkaBrokers, clientId: 'bench-retention', logger });
  let servers: RetentionServers | undefined;
  let publisher: ReturnType<typeof createMailEventPublisher> | undefined;
  const logs = createLogFiles('retention');
  const purgeDb = createDb({ databaseUrl: scratch.url, logger, poolMax: 4 });
  let failed = true;
  let result: BenchResult;
  try {
    const nowMs = Date.now();
    const finalMs = nowMs + settings.finalAheadMs;
    const cutoffs = {
      deliveries: finalMs - settings.webhookDeliveryDays * DAY_MS,
      mail: finalMs - settings.mailDays * DAY_MS,
    };
    const fillProduct = (await bootstrapProduct(db, { name: `bench-retention-fill-${run}` })).product_id;
    const timings = await fillTables(
      db,
      settings,
      {
        productId: fillProduct,
        nowMs,
        cutoffs,
        payload: webhookPayload(benchEvent(fillProduct, 0)),
      },
      log,
    );
    await takeManifest(db, fillProduct);
    const tables = await tableSizes(db);
    for (const t of tables) log(`${t.table}: ${t.rows} rows, ${fixed(t.bytes / 2 ** 20)} MiB`);
    const before = await checkExactness(db, cutoffs);
    logCheck('before any purge, at the final cutoff', before, false);

    const secretKeys = generateSecretKeyEntry('bench');
    const keyring = parseSecretKeys(secretKeys);
    const hooksProduct = (await bootstrapProduct(db, { name: `bench-retention-hooks-${run}` })).product_id;
    const domain = `bench-${run}.example.test`;
    const mailProduct = await bootstrapProduct(db, {
      name: `bench-retention-mail-${run}`,
      verifiedDomain: domain,
    });
    await createPostgresDomainStore(db, { keyring }).ensureKeys(mailProduct.product_id);
    log('starting the receiver, the smart host, the actors and management…');
    servers = await startPlatform({
      databaseUrl: scratch.url,
      redisKeyPrefix: `lattice-bench:${newId()}:`,
      kafkaTopicPrefix,
      secretKeys,
      ca,
      certDir: dirname(ca),
      logLevel: settings.logLevel,
      logs,
      sendRatePerSecond: settings.sendRatePerSecond,
      profileDir: env.BENCH_PROFILE_DIR,
    });
    publisher = createMailEventPublisher({
      producer: () => createRecordProducer(kafka),
      topic: topicName(kafkaTopicPrefix, TOPIC_CATALOG.mailEvents.name),
      logger,
    });
    const rig: LoadRig = {
      hooks: {
        db,
        servers: { actors: servers.actors, receiver: servers.receiver, logs },
        arrivals: new HookArrivals(servers.receiver),
        publisher,
        keyring,
        productId: hooksProduct,
        log,
      },
      mailArrivals: new MailArrivals(servers.smartHost),
      target: { productId: mailProduct.product_id, ownerToken: mailProduct.owner_token, domain },
      servers,
      log,
    };
    const load = {
      seconds: settings.roundSeconds,
      eventRate: settings.eventRate,
      sendRate: settings.sendRate,
      endpoints: settings.endpoints,
    };
    log(`warm-up: ${settings.warmupSeconds} s of the load without purging…`);
    await loadRound(rig, 'warm-up', 'w', { ...load, seconds: settings.warmupSeconds }, () => '');

    const rounds: RoundResult[] = [];
    const sliceDays =
      (settings.spreadDays - Math.min(settings.webhookDeliveryDays, settings.mailDays)) / settings.rounds;
    let withRounds = 0;
    for (let pair = 1; pair <= settings.rounds; pair++) {
      const order = pair % 2 === 1 ? (['without', 'with'] as const) : (['with', 'without'] as const);
      for (const arm of order) {
        await vacuum(db);
        const waited = await quiet();
        if (waited > 1000) log(`waited ${(waited / 1000).toFixed(0)} s for the machine to be quiet`);
        const label = `${arm === 'with' ? 'with purge' : 'without'} ${pair}/${settings.rounds}`;
        if (arm === 'without') {
          const roundLoad = await loadRound(rig, label, `n${pair}`, load, () => 'no purge');
          rounds.push({ arm, pair, load: roundLoad, purgeRuns: [] });
        } else {
          withRounds++;
          const behindDays = sliceDays * (settings.rounds - withRounds);
          const clock: Clock = { nowMs: () => Date.now() - behindDays * DAY_MS };
          const purges = benchPurges(purgeDb, clock, settings);
          const runs: PurgeRunRecord[] = [];
          log(`${label}: the purges' clock ${fixed(behindDays, 1)} days behind`);
          const loops = startPurgeLoops(purges, settings.purgeIntervalMs, label, (p) => {
            runs.push(p);
            if (p.deleted > 0 || runs.length <= 2) log(`    purge ${logRun(p)}`);
          });
          let roundLoad: RoundResult['load'];
          try {
            roundLoad = await loadRound(rig, label, `p${pair}`, load, () => {
              const deleted = runs.reduce((a, p) => a + p.deleted, 0);
              const longest = Math.max(0, ...runs.map((p) => p.wallMs));
              return `purged ${deleted} rows in ${runs.length} runs (longest ${fixed(longest)} ms)`;
            });
          } finally {
            await loops.stop();
          }
          const nowCutoff = clock.nowMs();
          const check = await checkExactness(db, {
            deliveries: nowCutoff - settings.webhookDeliveryDays * DAY_MS,
            mail: nowCutoff - settings.mailDays * DAY_MS,
          });
          logCheck(label, check, false);
          rounds.push({ arm, pair, load: roundLoad, purgeRuns: runs, clockBehindDays: behindDays, check });
        }
        const last = rounds.at(-1)!.load;
        log(
          `${label}: deliveries p99 ${fixed(percentileOf(last.deliveries.ms, 99), 1)} ms, sends p99 ${fixed(percentileOf(last.sends.ms, 99), 1)} ms; machine ${fixed(100 * last.cpu.machineBusy)}% busy, PostgreSQL ${fixed(last.cpu.postgres, 2)} cores, other ${fixed(last.cpu.other, 2)} cores; WAL ${fixed(last.io.walBytes / 1e6)} MB (${last.io.walFullPageImages} full-page images), stalled on I/O ${fixed(100 * last.io.ioSomeShare, 1)}% of the time`,
        );
      }
    }

    log(`final runs on a clock stopped at ${new Date(finalMs).toISOString()}, until each purge drains…`);
    const finalPurges = benchPurges(purgeDb, new ManualClock(finalMs), settings);
    const finalRuns: PurgeRunRecord[] = [];
    for (const p of finalPurges) {
      for (let k = 0; k < 1000; k++) {
        const r = await p.run('final', performance.now());
        finalRuns.push(r);
        log(`  final ${logRun(r)}`);
        if (r.drained) break;
      }
    }
    const final = await checkExactness(db, cutoffs);
    logCheck('final', final, true);
    const orphans = await orphanEvents(db, fillProduct);
    if (orphans) log(`  ${orphans} generated events left without their email`);
    result = {
      at: new Date(),
      machine: `${cpus().length} × ${cpus()[0]?.model.trim() ?? 'unknown CPU'}, Node ${process.version}`,
      settings,
      fill: { timings, tables, before },
      rounds,
      finalRuns,
      final,
      orphanEvents: orphans,
      loadAverage: { before: loadBefore, after: loadavg()[0] ?? 0 },
    };
    failed = false;
  } finally {
    await publisher?.close();
    if (servers) await stopPlatform(servers);
    if (failed) log(`the platform's logs are kept in ${logs.dir}`);
    else logs.remove();
    const admin = kafka.admin();
    await admin.connect();
    const topics = (await admin.listTopics()).filter((t) => t.startsWith(kafkaTopicPrefix));
    await admin.deleteTopics({ topics }).catch(() => undefined);
    await admin.disconnect();
    await purgeDb.destroy();
    if (env.BENCH_KEEP_DB === '1') {
      log(`the throwaway database is kept: ${scratch.url}`);
      await db.destroy();
    } else await scratch.drop();
  }
  const file = env.BENCH_RESULT_FILE ?? join(tmpdir(), 'bench-retention-result.json');
  writeFileSync(file, JSON.stringify(result));
  log(`figures saved to ${file}`);
  for (const line of writeReport(result, summaryOf(result), write)) log(line);
}

/** BENCH_REPORT_FROM: the report of a saved run, written again (its prose changed, say). */
function reportAgain(file: string): void {
  const saved = JSON.parse(readFileSync(file, 'utf8')) as BenchResult & { at: string };
  const r = { ...saved, at: new Date(saved.at) };
  for (const line of writeReport(r, summaryOf(r), write)) log(line);
}

(env.BENCH_REPORT_FROM ? Promise.resolve(reportAgain(env.BENCH_REPORT_FROM)) : main(testCa())).then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
