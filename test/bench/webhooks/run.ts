// `npm run bench:webhooks`: mail webhook delivery end to end on this machine, beside a bare
// keep-alive HTTPS POST loop to the same receiver in the same run, written to docs/benchmarks.md
// (its own section) with docs/benchmarks-webhooks.svg.
//   platform  mail events published straight onto `mail.events` → the actors role (its own
//             process, as `lattice start actors` starts it): the webhook fan-out records a
//             delivery per subscribed endpoint and wakes the endpoint actors, which sign and POST
//             each delivery over HTTPS → the receiver (its own process). Throughput: deliveries
//             received a second from just before the first publish to the last arrival; after
//             the round every delivery must have arrived exactly once and be a row that
//             succeeded at its first attempt. The actors run as `lattice start actors` runs them,
//             at the production log level, their periodic jobs over every product.
//   bare      in this process, one lane per endpoint, each a sequential loop of HTTPS POSTs with
//             the same bodies and headers (a signature per request) to the same receiver.
//   latency   a fixed rate of events (BENCH_LATENCY_RATE a second for BENCH_LATENCY_SECONDS,
//             BENCH_LATENCY_ROUNDS times) to BENCH_LATENCY_ENDPOINTS endpoints, each delivery
//             timed from just before its event's publish call to its first request's arrival.
// Rounds alternate platform / bare (the order flips every round) after a warm-up of each;
// figures are medians over rounds. Settings (environment, read here):
//   BENCH_ENDPOINTS (16: endpoints of a platform round, lanes of a bare one)
//   BENCH_EVENTS (500 per round: 8000 deliveries)  BENCH_ROUNDS (3)  BENCH_WARMUP (100 events)
//   BENCH_LATENCY_RATE (100)  BENCH_LATENCY_SECONDS (20)  BENCH_LATENCY_ROUNDS (3)
//   BENCH_LATENCY_ENDPOINTS (1)  BENCH_BARE_SOCKETS (8: the platform requester's per-target pool)
//   BENCH_LOG_LEVEL (the actors', default the production one)
//   BENCH_WRITE (1: update docs/benchmarks.md and docs/benchmarks-webhooks.svg)
//   BENCH_PROFILE_DIR (when set, V8 CPU profiles of the two child processes are written there)
//   BENCH_RESULT_FILE (the run's figures as JSON; default bench-webhooks-result.json in the temp folder)
//   BENCH_REPORT_FROM (a result file: write the report from it again, without running anything)
// Node trusts the receiver's certificate (the suite's test CA) only through NODE_EXTRA_CA_CERTS
// set when a process starts: without it, this script runs itself again with it set.
import { execFileSync, spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { secretKeysOf } from '@lattice/cli';
import { createLogger, loadConfig, newId, parseSecretKeys } from '@lattice/core';
import { databaseUrlFor, ensureDatabase, ensureInfra } from '@lattice/infra';
import { createKafka, createRecordProducer, TOPIC_CATALOG, topicName } from '@lattice/kafka';
import { createMailEventPublisher, webhookPayload } from '@lattice/mail';
import { bootstrapProduct, createDb, migrateLatest } from '@lattice/store';
import { benchEnvReaders } from '../support/bench-env.ts';
import { quiet } from '../support/machine-cpu.ts';
import { benchLogLevel, createLogFiles } from '../support/platform-log.ts';
import { bareClient, bareRound } from './bare-loop.ts';
import { type Bench, benchEvent, vacuum } from './endpoints.ts';
import { latencyRounds } from './latency-rounds.ts';
import { platformRound } from './platform-phases.ts';
import { Arrivals, type Servers, startServer } from './processes.ts';
import { type BenchResult, type LatencyResult, type Round, writeReport } from './report.ts';

const env = process.env;
const { num } = benchEnvReaders(env);
const baseConfig = loadConfig(env);
const settings = {
  endpoints: num('BENCH_ENDPOINTS', 16),
  events: num('BENCH_EVENTS', 500),
  rounds: num('BENCH_ROUNDS', 3),
  warmup: num('BENCH_WARMUP', 100),
  latencySeconds: num('BENCH_LATENCY_SECONDS', 20),
  latencyRounds: num('BENCH_LATENCY_ROUNDS', 3),
  latencyRate: num('BENCH_LATENCY_RATE', 100),
  latencyEndpoints: num('BENCH_LATENCY_ENDPOINTS', 1),
  bareSockets: num('BENCH_BARE_SOCKETS', 8),
  kafkaPartitions: baseConfig.kafkaPartitions,
  webhookTimeoutMs: baseConfig.webhooks.timeoutMs,
  logLevel: benchLogLevel(env),
  write: env.BENCH_WRITE !== '0',
  profileDir: env.BENCH_PROFILE_DIR,
};
const log = (line: string) => process.stdout.write(`bench:webhooks ${line}\n`);
const logger = createLogger({ name: 'bench-webhooks', level: 'error' });
const databaseUrl = databaseUrlFor(baseConfig.databaseUrl, 'lattice_bench');
const PRODUCT_PREFIX = 'bench-webhooks-';

/** The test CA's certificate (generated once into .lattice/test-ca by the script). */
function testCa(): string {
  const script = fileURLToPath(new URL('../../../scripts/ensure-test-ca.sh', import.meta.url));
  return execFileSync('bash', [script], { encoding: 'utf8' }).trim();
}

/** This script again, with the test CA trusted from the start; resolves with its exit code. */
function runAgainTrusting(ca: string): Promise<number> {
  log(`running again with NODE_EXTRA_CA_CERTS=${ca}`);
  const child = spawn(process.execPath, [...process.execArgv, ...process.argv.slice(1)], {
    env: { ...env, NODE_EXTRA_CA_CERTS: ca, LATTICE_TEST_CA_DIR: dirname(ca) },
    stdio: 'inherit',
  });
  return new Promise((resolve) => child.once('exit', (code) => resolve(code ?? 1)));
}

function logRound(round: Round): void {
  const c = round.cpu;
  log(
    `${round.label}: ${round.perSecond.toFixed(0)} deliveries/s in ${(round.elapsedMs / 1000).toFixed(2)} s; CPU µs/delivery: actors ${c.actors.toFixed(0)}, receiver ${c.receiver.toFixed(0)}, generator ${c.generator.toFixed(0)}, PostgreSQL ${c.postgres.toFixed(0)}, Kafka ${c.kafka.toFixed(0)}, Redis ${c.redis.toFixed(0)}, other ${c.other.toFixed(0)}, machine ${c.machine.toFixed(0)} (${(100 * c.machineBusy).toFixed(0)}% busy); SQL/delivery ${c.statements.toFixed(2)} (webhook tables ${c.webhookStatements.toFixed(2)}); ${c.handshakes} TLS handshakes; actors log ${(c.logBytes ?? Number.NaN).toFixed(1)} bytes/delivery`,
  );
}

async function main(ca: string): Promise<void> {
  log(`settings ${JSON.stringify(settings)}`);
  const loadBefore = loadavg()[0] ?? 0;
  await ensureInfra({ config: baseConfig, logger, searchPath: env.PATH ?? '' });
  await ensureDatabase(databaseUrl, { logger });
  const db = createDb({ databaseUrl, logger });
  await migrateLatest(db, logger);
  // The actors' sweeps look at every product, as in production: a product an unfinished earlier
  // run left behind would have its pending deliveries swept into this run.
  const leftovers = await db('products').where('name', 'like', `${PRODUCT_PREFIX}%`).delete();
  if (leftovers > 0) log(`deleted ${leftovers} product(s) left by an earlier run`);
  await vacuum(db);
  const run = newId().slice(0, 8);
  const kafkaTopicPrefix = `bench-webhooks-${run}.`;
  // The bench database's own keyring, the same every run: every role checks at start that it opens
  // what earlier runs sealed there (docs/operations.md "Secrets at start").
  const secretKeys = secretKeysOf({ ...baseConfig, databaseUrl });
  const made = await bootstrapProduct(db, { name: `${PRODUCT_PREFIX}${run}` });
  const logs = createLogFiles('webhooks');
  const args = {
    databaseUrl,
    redisKeyPrefix: `lattice-bench:${newId()}:`,
    kafkaTopicPrefix,
    secretKeys,
    certDir: dirname(ca),
    logLevel: settings.logLevel,
  };
  log('starting the receiver and the actors role…');
  const receiver = await startServer(
    { ...args, role: 'receiver', logFile: logs.pathOf('receiver') },
    settings.profileDir,
    {},
  );
  const servers: Servers = {
    receiver,
    actors: await startServer(
      { ...args, role: 'actors', logFile: logs.pathOf('actors') },
      settings.profileDir,
      {
        NODE_EXTRA_CA_CERTS: ca,
        WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
      },
    ),
    logs,
  };
  const kafka = createKafka({ brokers: baseConfig.kafkaBrokers, clientId: 'bench-webhooks', logger });
  const publisher = createMailEventPublisher({
    producer: () => createRecordProducer(kafka),
    topic: topicName(kafkaTopicPrefix, TOPIC_CATALOG.mailEvents.name),
    logger,
  });
  const b: Bench = {
    db,
    servers,
    arrivals: new Arrivals(receiver),
    publisher,
    keyring: parseSecretKeys(secretKeys),
    productId: made.product_id,
    log,
  };
  const bare = bareClient(receiver.url, settings.bareSockets);
  const rounds: Round[] = [];
  let latency: LatencyResult;
  const { endpoints, events } = settings;
  let failed = true;
  try {
    log('warming up (the actors take their partitions, both arms open their connections)…');
    logRound(await platformRound(b, 'warm-up platform', 'wp', settings.warmup, endpoints));
    logRound(await bareRound(b, bare, 'warm-up bare', 'wb', settings.warmup, endpoints));
    for (let r = 1; r <= settings.rounds; r++) {
      const order = r % 2 === 1 ? (['platform', 'bare'] as const) : (['bare', 'platform'] as const);
      for (const arm of order) {
        if (arm === 'platform') await vacuum(db);
        const waited = await quiet();
        if (waited > 1000) log(`waited ${(waited / 1000).toFixed(0)} s for the machine to be quiet`);
        const label = `${arm} ${r}/${settings.rounds}`;
        const round =
          arm === 'platform'
            ? await platformRound(b, label, `t${r}`, events, endpoints)
            : await bareRound(b, bare, label, `b${r}`, events, endpoints);
        rounds.push(round);
        logRound(round);
      }
    }
    log(
      `event → first attempt: ${settings.latencyRounds} × ${settings.latencySeconds} s of ${settings.latencyRate} events a second to ${settings.latencyEndpoints} endpoint(s)…`,
    );
    latency = await latencyRounds(b, settings);
    failed = false;
    log(
      `latency: p50 ${latency.p50Ms.toFixed(2)} ms, p90 ${latency.p90Ms.toFixed(2)} ms, p99 ${latency.p99Ms.toFixed(2)} ms, max ${latency.maxMs.toFixed(2)} ms; publish ack p50 ${latency.publishAckP50Ms.toFixed(2)} ms; publish → recorded by the fan-out p50 ${latency.recordedP50Ms.toFixed(1)} ms, p99 ${latency.recordedP99Ms.toFixed(1)} ms; recorded → first request p50 ${latency.attemptedP50Ms.toFixed(1)} ms, p99 ${latency.attemptedP99Ms.toFixed(1)} ms`,
    );
  } finally {
    bare.agent.destroy();
    await publisher.close();
    await servers.actors.stop();
    await servers.receiver.stop();
    if (failed) log(`the actors' logs are kept in ${logs.dir}`);
    else logs.remove();
    const admin = kafka.admin();
    await admin.connect();
    const topics = (await admin.listTopics()).filter((t) => t.startsWith(kafkaTopicPrefix));
    await admin.deleteTopics({ topics }).catch(() => undefined);
    await admin.disconnect();
    await db('products').where({ id: made.product_id }).delete();
    await db.destroy();
  }
  const result: BenchResult = {
    at: new Date(),
    machine: `${cpus().length} × ${cpus()[0]?.model.trim() ?? 'unknown CPU'}, Node ${process.version}`,
    settings: {
      endpoints,
      events,
      rounds: settings.rounds,
      warmup: settings.warmup,
      latencySeconds: settings.latencySeconds,
      latencyRounds: settings.latencyRounds,
      latencyRate: settings.latencyRate,
      latencyEndpoints: settings.latencyEndpoints,
      bareSockets: settings.bareSockets,
      kafkaPartitions: settings.kafkaPartitions,
      webhookTimeoutMs: settings.webhookTimeoutMs,
      logLevel: settings.logLevel,
      payloadBytes: Buffer.byteLength(webhookPayload(benchEvent(made.product_id, 0))),
    },
    rounds,
    latency,
    loadAverage: { before: loadBefore, after: loadavg()[0] ?? 0 },
  };
  const file = env.BENCH_RESULT_FILE ?? join(tmpdir(), 'bench-webhooks-result.json');
  writeFileSync(file, JSON.stringify(result));
  log(`figures saved to ${file}`);
  for (const line of writeReport(result, settings.write)) log(line);
}

/** BENCH_REPORT_FROM: the report of a saved run, written again (its prose changed, say). */
function reportAgain(file: string): void {
  const saved = JSON.parse(readFileSync(file, 'utf8')) as BenchResult & { at: string };
  for (const line of writeReport({ ...saved, at: new Date(saved.at) }, settings.write)) log(line);
}

async function start(): Promise<number> {
  if (env.BENCH_REPORT_FROM) {
    reportAgain(env.BENCH_REPORT_FROM);
    return 0;
  }
  const ca = testCa();
  if (env.NODE_EXTRA_CA_CERTS !== ca) return runAgainTrusting(ca);
  await main(ca);
  return 0;
}

start().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
