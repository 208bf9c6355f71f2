// `npm run bench:mail`: sending mail end to end on this machine, beside a bare pooled nodemailer
// loop to the same smart host in the same run, written to docs/benchmarks.md (its own section)
// with docs/benchmarks-mail.svg.
//   platform  POST /mail/emails on the management API (owner token; no per-IP limit there) →
//             202 once the email row is in PostgreSQL and its mail.outbound record in Kafka →
//             the mail sender actor in the actors role hands it over, DKIM-signed, through its
//             pooled SMTP transport → received by the smart host (its own child process).
//             Throughput: from just before the first request to the N-th message received.
//             After the round every email must be received exactly once and reach `delivered`.
//             Management and the actors run as `lattice start` runs them, at the production log
//             level, the actors' periodic jobs over every product (bench-server.ts).
//   bare      nodemailer in this process, pooled like the platform's transport (the same
//             maxConnections, SMTP_POOL_MAX_CONNECTIONS), the same messages (from, to, subject,
//             html, Message-ID and VERP envelope shape, List-Unsubscribe headers) signed with a
//             DKIM key of the same size, the same concurrency, to the same smart host.
//   latency   a fixed rate of sends through the management API (latency-phases.ts).
// Rounds alternate platform / bare (the order flips every round) after a warm-up of each;
// figures are medians over rounds. Settings (environment, read here):
//   BENCH_MESSAGES (3000 per round)  BENCH_CONCURRENCY (32 in flight)  BENCH_ROUNDS (3)
//   BENCH_WARMUP (500)  BENCH_LATENCY_SECONDS (20)  BENCH_LATENCY_ROUNDS (3)  BENCH_LATENCY_RATE (100)
//   BENCH_SEND_RATE (1 000 000: the platform's MAIL_SEND_RATE_PER_SECOND for the run)
//   SMTP_POOL_MAX_CONNECTIONS (the platform's default 5; both arms use it)
//   BENCH_LOG_LEVEL (the platform's, default the production one)
//   BENCH_WRITE (1: update docs/benchmarks.md and docs/benchmarks-mail.svg)
//   BENCH_PROFILE_DIR (when set, V8 CPU profiles of the three child processes are written there)
//   BENCH_RESULT_FILE (the run's figures as JSON; default bench-mail-result.json in the temp folder)
//   BENCH_REPORT_FROM (a result file: write the report from it again, without running anything)
import { randomUUID } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { secretKeysOf } from '@lattice/cli';
import { createLogger, loadConfig, newId, parseSecretKeys, sleep } from '@lattice/core';
import { databaseUrlFor, ensureDatabase, ensureInfra } from '@lattice/infra';
import { createKafka } from '@lattice/kafka';
import {
  createPostgresDomainStore,
  createTrackingLinks,
  dkimSelectorFor,
  generateDkimKeyPair,
} from '@lattice/mail';
import { bootstrapProduct, createDb, migrateLatest } from '@lattice/store';
import nodemailer from 'nodemailer';
import { benchEnvReaders } from '../support/bench-env.ts';
import { quiet } from '../support/machine-cpu.ts';
import { benchLogLevel, createLogFiles } from '../support/platform-log.ts';
import type { ServerRole } from './bench-server.ts';
import { latencyRounds } from './latency-phases.ts';
import { Arrivals, type Servers, startServer } from './processes.ts';
import { type BenchResult, type LatencyResult, type Round, writeReport } from './report.ts';
import {
  type BareMessages,
  type Bench,
  bareRound,
  emailUpdates,
  HTML,
  platformRound,
  TO,
  vacuum,
} from './rounds.ts';

const env = process.env;
const { num } = benchEnvReaders(env);
const baseConfig = loadConfig(env);
const settings = {
  messages: num('BENCH_MESSAGES', 3000),
  concurrency: num('BENCH_CONCURRENCY', 32),
  rounds: num('BENCH_ROUNDS', 3),
  warmup: num('BENCH_WARMUP', 500),
  latencySeconds: num('BENCH_LATENCY_SECONDS', 20),
  latencyRounds: num('BENCH_LATENCY_ROUNDS', 3),
  latencyRate: num('BENCH_LATENCY_RATE', 100),
  sendRatePerSecond: num('BENCH_SEND_RATE', 1_000_000),
  smtpConnections: baseConfig.mail.smtpMaxConnections,
  logLevel: benchLogLevel(env),
  write: env.BENCH_WRITE !== '0',
  profileDir: env.BENCH_PROFILE_DIR,
};
const log = (line: string) => process.stdout.write(`bench:mail ${line}\n`);
const logger = createLogger({ name: 'bench-mail', level: 'error' });
const databaseUrl = databaseUrlFor(baseConfig.databaseUrl, 'lattice_bench');
const PRODUCT_PREFIX = 'bench-mail-';

function logRound(round: Round): void {
  const c = round.cpu;
  log(
    `${round.label}: ${round.perSecond.toFixed(0)} msg/s received (accepted at ${round.answeredPerSecond.toFixed(0)}/s); CPU µs/msg: management ${c.management.toFixed(0)}, actors ${c.actors.toFixed(0)}, smart host ${c.smartHost.toFixed(0)}, generator ${c.generator.toFixed(0)}, PostgreSQL ${c.postgres.toFixed(0)}, Kafka ${c.kafka.toFixed(0)}, Redis ${c.redis.toFixed(0)}, other ${c.other.toFixed(0)}, machine ${c.machine.toFixed(0)} (${(100 * c.machineBusy).toFixed(0)}% busy); SQL statements/msg: management ${c.statements.management.toFixed(1)}, actors ${c.statements.actors.toFixed(1)}; log bytes/msg: management ${c.logBytes?.management.toFixed(0)}, actors ${c.logBytes?.actors.toFixed(0)}`,
  );
}

async function main(): Promise<void> {
  log(`settings ${JSON.stringify(settings)}`);
  const loadBefore = loadavg()[0] ?? 0;
  await ensureInfra({ config: baseConfig, logger, searchPath: env.PATH ?? '' });
  await ensureDatabase(databaseUrl, { logger });
  const db = createDb({ databaseUrl, logger });
  await migrateLatest(db, logger);
  // The actors' sweeps look at every product, as in production: a product an unfinished earlier
  // run left behind would have its emails swept into this run.
  const leftovers = await db('products').where('name', 'like', `${PRODUCT_PREFIX}%`).delete();
  if (leftovers > 0) log(`deleted ${leftovers} product(s) left by an earlier run`);
  await vacuum(db);
  const run = newId().slice(0, 8);
  const kafkaTopicPrefix = `bench-mail-${run}.`;
  // The bench database's own keyring, the same every run: every role checks at start that it opens
  // what earlier runs sealed there (docs/operations.md "Secrets at start").
  const secretKeys = secretKeysOf({ ...baseConfig, databaseUrl });
  const keyring = parseSecretKeys(secretKeys);
  const domain = `bench-${run}.example.test`;
  const made = await bootstrapProduct(db, { name: `${PRODUCT_PREFIX}${run}`, verifiedDomain: domain });
  await createPostgresDomainStore(db, { keyring }).ensureKeys(made.product_id);
  const target = { productId: made.product_id, ownerToken: made.owner_token, domain };

  const logs = createLogFiles('mail');
  const args = {
    databaseUrl,
    redisKeyPrefix: `lattice-bench:${newId()}:`,
    kafkaTopicPrefix,
    secretKeys,
    mail: { sendRatePerSecond: settings.sendRatePerSecond },
    logLevel: settings.logLevel,
  };
  const start = (role: ServerRole, smtpUrl: string) =>
    startServer({ ...args, role, smtpUrl, logFile: logs.pathOf(role) }, settings.profileDir);
  const smartHost = await start('smart-host', '');
  const servers: Servers = {
    smartHost,
    actors: await start('actors', smartHost.url),
    management: await start('management', smartHost.url),
    logs,
  };
  const b: Bench = {
    servers,
    arrivals: new Arrivals(smartHost),
    db,
    target,
    concurrency: settings.concurrency,
    log,
  };
  const smtp = new URL(smartHost.url);
  const pair = await generateDkimKeyPair();
  const bare: BareMessages = {
    transport: nodemailer.createTransport({
      pool: true,
      host: smtp.hostname,
      port: Number(smtp.port),
      secure: false,
      maxConnections: settings.smtpConnections,
      maxMessages: Number.POSITIVE_INFINITY,
      socketTimeout: 60_000,
      greetingTimeout: 30_000,
      connectionTimeout: 30_000,
    }),
    dkim: { domainName: domain, keySelector: dkimSelectorFor(Date.now()), privateKey: pair.privateKeyPem },
    unsubscribeUrl: createTrackingLinks({
      keyring,
      publicUrls: { production: 'http://127.0.0.1:0', development: 'http://127.0.0.1:0' },
    }).unsubscribeUrl({
      environment: 'production',
      productId: target.productId,
      emailId: randomUUID(),
      recipient: TO(0),
    }),
  };
  const rounds: Round[] = [];
  let latency: LatencyResult;
  let mailEmails: BenchResult['mailEmails'] | undefined;
  const updatesBefore = await emailUpdates(db);
  let failed = true;
  try {
    log('warming up (the actors take their partitions, both pools open their connections)…');
    await platformRound(b, 'warm-up platform', settings.warmup);
    await bareRound(b, 'warm-up bare', settings.warmup, bare);
    for (let r = 1; r <= settings.rounds; r++) {
      const order = r % 2 === 1 ? (['platform', 'bare'] as const) : (['bare', 'platform'] as const);
      for (const arm of order) {
        if (arm === 'platform') await vacuum(db);
        const waited = await quiet();
        if (waited > 1000) log(`waited ${(waited / 1000).toFixed(0)} s for the machine to be quiet`);
        const label = `${arm} ${r}/${settings.rounds}`;
        const round =
          arm === 'platform'
            ? await platformRound(b, label, settings.messages)
            : await bareRound(b, label, settings.messages, bare);
        rounds.push(round);
        logRound(round);
      }
    }
    log(
      `accept latency: ${settings.latencyRounds} × ${settings.latencySeconds} s of ${settings.latencyRate} sends a second…`,
    );
    latency = await latencyRounds(b, settings);
    log(
      `latency: p50 ${latency.p50Ms.toFixed(2)} ms, p99 ${latency.p99Ms.toFixed(2)} ms, max ${latency.maxMs.toFixed(2)} ms, ${latency.non202} not 202; accept → smart host p50 ${latency.handoverP50Ms.toFixed(1)} ms, p99 ${latency.handoverP99Ms.toFixed(1)} ms`,
    );
    failed = false;
  } finally {
    bare.transport.close();
    await servers.management.stop();
    await servers.actors.stop();
    await servers.smartHost.stop();
    if (failed) log(`the platform's logs are kept in ${logs.dir}`);
    else logs.remove();
    // The children's connections are closed: their table statistics are flushed.
    await sleep(1000);
    const updates = await emailUpdates(db);
    const [row] = (await db('mail_emails as e')
      .where({ product_id: target.productId })
      .select(db.raw('count(*)::int as emails, avg(pg_column_size(e.*))::int as bytes'))) as Array<{
      emails: number;
      bytes: number;
    }>;
    if (row && row.emails > 0) {
      const n = updates.updates - updatesBefore.updates;
      mailEmails = {
        emails: row.emails,
        updatesPerEmail: n / row.emails,
        hotShare: n > 0 ? (updates.hot - updatesBefore.hot) / n : Number.NaN,
        rowBytes: row.bytes,
      };
    }
    const kafka = createKafka({ brokers: baseConfig.kafkaBrokers, clientId: 'bench-mail-cleanup', logger });
    const admin = kafka.admin();
    await admin.connect();
    const topics = (await admin.listTopics()).filter((t) => t.startsWith(kafkaTopicPrefix));
    await admin.deleteTopics({ topics }).catch(() => undefined);
    await admin.disconnect();
    await db('products').where({ id: target.productId }).delete();
    await db.destroy();
  }
  const result: BenchResult = {
    at: new Date(),
    machine: `${cpus().length} × ${cpus()[0]?.model.trim() ?? 'unknown CPU'}, Node ${process.version}`,
    settings: { ...settings, htmlBytes: Buffer.byteLength(HTML) },
    rounds,
    latency,
    mailEmails: mailEmails ?? { emails: 0, updatesPerEmail: Number.NaN, hotShare: Number.NaN, rowBytes: 0 },
    loadAverage: { before: loadBefore, after: loadavg()[0] ?? 0 },
  };
  const file = env.BENCH_RESULT_FILE ?? join(tmpdir(), 'bench-mail-result.json');
  writeFileSync(file, JSON.stringify(result));
  log(`figures saved to ${file}`);
  for (const line of writeReport(result, settings.write)) log(line);
}

/** BENCH_REPORT_FROM: the report of a saved run, written again (its prose changed, say). */
function reportAgain(file: string): void {
  const saved = JSON.parse(readFileSync(file, 'utf8')) as BenchResult & { at: string };
  for (const line of writeReport({ ...saved, at: new Date(saved.at) }, settings.write)) log(line);
}

(env.BENCH_REPORT_FROM ? Promise.resolve(reportAgain(env.BENCH_REPORT_FROM)) : main()).then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
