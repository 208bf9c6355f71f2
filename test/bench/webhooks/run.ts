// `npm run bench:webhooks`: mail webhook delivery end to end on this machine, beside a bare
// keep-alive HTTPS POST loop to the same receiver in the same run, written to docs/benchmarks.md
// (its own section) with docs/benchmarks-webhooks.svg.
//   platform  mail events published straight onto `mail.events` → the actors role (its own
//             process, as `lattice start actors` starts it): the webhook fan-out records a
//             delivery per subscribed endpoint and wakes the endpoint actors, which sign and POST
//             each delivery over HTTPS → the receiver (its own process). Throughput: deliveries
//             received a second from just before the first publish to the last arrival; after
//             the round every delivery must have arrived exactly once and be a row that
//             succeeded at its first attempt.
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
import { createLogger, generateSecretKeyEntry, loadConfig, newId, parseSecretKeys } from '@lattice/core';
import { databaseUrlFor, ensureDatabase, ensureInfra } from '@lattice/infra';
import { createKafka, createRecordProducer, TOPIC_CATALOG, topicName } from '@lattice/kafka';
import { createMailEventPublisher, webhookPayload } from '@lattice/mail';
import { bootstrapProduct, createDb, migrateLatest } from '@lattice/store';
import { percentile } from '../support/http-load.ts';
import { quiet } from '../support/machine-cpu.ts';
import { bareClient, bareRound } from './bare-loop.ts';
import { type Bench, benchEvent, vacuum } from './endpoints.ts';
import { type LatencyPhase, latencyPhase, platformRound } from './platform-phases.ts';
import { Arrivals, type Servers, startServer } from './processes.ts';
import { type BenchResult, type Cpu, type LatencyResult, type Round, writeReport } from './report.ts';

const env = process.env;
const num = (name: string, fallback: number) => (env[name] ? Number(env[name]) : fallback);
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
  write: env.BENCH_WRITE !== '0',
  profileDir: env.BENCH_PROFILE_DIR,
};
const log = (line: string) => process.stdout.write(`bench:webhooks ${line}\n`);
const logger = createLogger({ name: 'bench-webhooks', level: 'error' });
const databaseUrl = databaseUrlFor(baseConfig.databaseUrl, 'lattice_bench');

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

const sortedOf = (arrays: Float64Array[]) => {
  const out = new Float64Array(arrays.reduce((n, a) => n + a.length, 0));
  let at = 0;
  for (const a of arrays) {
    out.set(a, at);
    at += a.length;
  }
  return out.sort();
};

/**
 * BENCH_LATENCY_ROUNDS latency phases, each after a VACUUM and a quiet-machine check; the figures
 * are of every delivery of every phase together (a stall in one phase is in the p99), and per phase.
 */
async function latencyRounds(b: Bench): Promise<LatencyResult> {
  const phases: LatencyPhase[] = [];
  const perPhase: LatencyResult['phases'] = [];
  for (let k = 1; k <= settings.latencyRounds; k++) {
    await vacuum(b.db);
    await quiet();
    const label = `latency ${k}/${settings.latencyRounds}`;
    const phase = await latencyPhase(
      b,
      label,
      `l${k}`,
      settings.latencyRate,
      settings.latencySeconds,
      settings.latencyEndpoints,
    );
    const sorted = Float64Array.from(phase.firstAttemptMs).sort();
    const entry = {
      label,
      p50Ms: percentile(sorted, 50),
      p99Ms: percentile(sorted, 99),
      maxMs: sorted[sorted.length - 1] ?? Number.NaN,
      achievedRate: phase.achievedRate,
      deliveredRate: phase.deliveredRate,
      machineBusy: phase.cpu.machineBusy,
      actors: phase.cpu.actors,
      other: phase.cpu.other,
    };
    perPhase.push(entry);
    phases.push(phase);
    log(
      `${label}: event → first attempt p50 ${entry.p50Ms.toFixed(2)} ms, p99 ${entry.p99Ms.toFixed(2)} ms, max ${entry.maxMs.toFixed(2)} ms; delivered at ${entry.deliveredRate.toFixed(1)}/s; actors ${entry.actors.toFixed(0)} µs/delivery, other ${entry.other.toFixed(0)}; machine ${(100 * entry.machineBusy).toFixed(0)}% busy`,
    );
  }
  const sorted = sortedOf(phases.map((p) => p.firstAttemptMs));
  const acks = sortedOf(phases.map((p) => p.publishAckMs));
  const recorded = sortedOf(phases.map((p) => p.recordedMs));
  const attempted = sortedOf(phases.map((p) => p.attemptedMs));
  const mean = (f: (c: Cpu) => number) => phases.reduce((sum, p) => sum + f(p.cpu), 0) / phases.length;
  return {
    rate: settings.latencyRate,
    seconds: settings.latencySeconds,
    rounds: settings.latencyRounds,
    endpoints: settings.latencyEndpoints,
    deliveries: sorted.length,
    achievedRate: Math.min(...phases.map((p) => p.achievedRate)),
    p50Ms: percentile(sorted, 50),
    p90Ms: percentile(sorted, 90),
    p99Ms: percentile(sorted, 99),
    p999Ms: percentile(sorted, 99.9),
    maxMs: sorted[sorted.length - 1] ?? Number.NaN,
    publishAckP50Ms: percentile(acks, 50),
    publishAckP99Ms: percentile(acks, 99),
    recordedP50Ms: percentile(recorded, 50),
    recordedP99Ms: percentile(recorded, 99),
    attemptedP50Ms: percentile(attempted, 50),
    attemptedP99Ms: percentile(attempted, 99),
    cpu: {
      actors: mean((c) => c.actors),
      receiver: mean((c) => c.receiver),
      generator: mean((c) => c.generator),
      postgres: mean((c) => c.postgres),
      kafka: mean((c) => c.kafka),
      redis: mean((c) => c.redis),
      machine: mean((c) => c.machine),
      machineBusy: mean((c) => c.machineBusy),
      other: mean((c) => c.other),
      statements: mean((c) => c.statements),
      webhookStatements: mean((c) => c.webhookStatements),
      handshakes: phases.reduce((sum, p) => sum + p.cpu.handshakes, 0),
    },
    phases: perPhase,
    sorted: Array.from(sorted),
  };
}

function logRound(round: Round): void {
  const c = round.cpu;
  log(
    `${round.label}: ${round.perSecond.toFixed(0)} deliveries/s in ${(round.elapsedMs / 1000).toFixed(2)} s; CPU µs/delivery: actors ${c.actors.toFixed(0)}, receiver ${c.receiver.toFixed(0)}, generator ${c.generator.toFixed(0)}, PostgreSQL ${c.postgres.toFixed(0)}, Kafka ${c.kafka.toFixed(0)}, Redis ${c.redis.toFixed(0)}, other ${c.other.toFixed(0)}, machine ${c.machine.toFixed(0)} (${(100 * c.machineBusy).toFixed(0)}% busy); SQL/delivery ${c.statements.toFixed(2)} (webhook tables ${c.webhookStatements.toFixed(2)}); ${c.handshakes} TLS handshakes`,
  );
}

async function main(ca: string): Promise<void> {
  log(`settings ${JSON.stringify(settings)}`);
  const loadBefore = loadavg()[0] ?? 0;
  await ensureInfra({ config: baseConfig, logger, searchPath: env.PATH ?? '' });
  await ensureDatabase(databaseUrl, { logger });
  const db = createDb({ databaseUrl, logger });
  await migrateLatest(db, logger);
  await vacuum(db);
  const run = newId().slice(0, 8);
  const kafkaTopicPrefix = `bench-webhooks-${run}.`;
  const secretKeys = generateSecretKeyEntry('bench');
  const made = await bootstrapProduct(db, { name: `bench-webhooks-${run}` });
  const args = {
    databaseUrl,
    redisKeyPrefix: `lattice-bench:${newId()}:`,
    kafkaTopicPrefix,
    secretKeys,
    productId: made.product_id,
    certDir: dirname(ca),
  };
  log('starting the receiver and the actors role…');
  const receiver = await startServer({ ...args, role: 'receiver' }, settings.profileDir, {});
  const servers: Servers = {
    receiver,
    actors: await startServer({ ...args, role: 'actors' }, settings.profileDir, {
      NODE_EXTRA_CA_CERTS: ca,
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
    }),
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
    latency = await latencyRounds(b);
    log(
      `latency: p50 ${latency.p50Ms.toFixed(2)} ms, p90 ${latency.p90Ms.toFixed(2)} ms, p99 ${latency.p99Ms.toFixed(2)} ms, max ${latency.maxMs.toFixed(2)} ms; publish ack p50 ${latency.publishAckP50Ms.toFixed(2)} ms; publish → recorded by the fan-out p50 ${latency.recordedP50Ms.toFixed(1)} ms, p99 ${latency.recordedP99Ms.toFixed(1)} ms; recorded → first request p50 ${latency.attemptedP50Ms.toFixed(1)} ms, p99 ${latency.attemptedP99Ms.toFixed(1)} ms`,
    );
  } finally {
    bare.agent.destroy();
    await publisher.close();
    await servers.actors.stop();
    await servers.receiver.stop();
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
