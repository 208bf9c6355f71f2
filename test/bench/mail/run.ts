// `npm run bench:mail`: sending mail end to end on this machine, beside a bare pooled nodemailer
// loop to the same smart host in the same run, written to docs/benchmarks.md (its own section)
// with docs/benchmarks-mail.svg.
//   platform  POST /mail/emails on the management API (owner token; no per-IP limit there) →
//             202 once the email row is in PostgreSQL and its mail.outbound record in Kafka →
//             the mail sender actor in the actors role hands it over, DKIM-signed, through its
//             pooled SMTP transport → received by the smart host (its own child process).
//             Throughput: from just before the first request to the N-th message received.
//             After the round every email must be received exactly once and reach `delivered`.
//   bare      nodemailer in this process, pooled like the platform's transport (the same
//             maxConnections, SMTP_POOL_MAX_CONNECTIONS), the same messages (from, to, subject,
//             html, Message-ID and VERP envelope shape, List-Unsubscribe headers) signed with a
//             DKIM key of the same size, the same concurrency, to the same smart host.
//   latency   a fixed rate of sends through the management API (BENCH_LATENCY_RATE a second for
//             BENCH_LATENCY_SECONDS, BENCH_LATENCY_ROUNDS times), each timed from just before the
//             request to the end of its answer, while the actors hand the emails over; the
//             percentiles are of every send of every phase together.
// Rounds alternate platform / bare (the order flips every round) after a warm-up of each;
// figures are medians over rounds. Settings (environment, read here):
//   BENCH_MESSAGES (3000 per round)  BENCH_CONCURRENCY (32 in flight)  BENCH_ROUNDS (3)
//   BENCH_WARMUP (500)  BENCH_LATENCY_SECONDS (20)  BENCH_LATENCY_ROUNDS (3)  BENCH_LATENCY_RATE (100)
//   BENCH_SEND_RATE (1 000 000: the platform's MAIL_SEND_RATE_PER_SECOND for the run)
//   SMTP_POOL_MAX_CONNECTIONS (the platform's default 5; both arms use it)
//   BENCH_WRITE (1: update docs/benchmarks.md and docs/benchmarks-mail.svg)
//   BENCH_PROFILE_DIR (when set, V8 CPU profiles of the three child processes are written there)
//   BENCH_RESULT_FILE (the run's figures as JSON; default bench-mail-result.json in the temp folder)
//   BENCH_REPORT_FROM (a result file: write the report from it again, without running anything)
import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import {
  createLogger,
  generateSecretKeyEntry,
  loadConfig,
  newId,
  parseSecretKeys,
  sleep,
} from '@lattice/core';
import { databaseUrlFor, ensureDatabase, ensureInfra } from '@lattice/infra';
import { createKafka } from '@lattice/kafka';
import {
  createPostgresDomainStore,
  createTrackingLinks,
  dkimSelectorFor,
  generateDkimKeyPair,
} from '@lattice/mail';
import { bootstrapProduct, createDb, type Db, migrateLatest } from '@lattice/store';
import nodemailer from 'nodemailer';
import { controlOf, forkBenchChild, nextMessage } from '../support/child-messages.ts';
import { percentile, pool, poster } from '../support/http-load.ts';
import { infraCpu, machineCpu, quiet } from '../support/machine-cpu.ts';
import type { Received, ServerArgs, ServerMessage, ServerRole } from './bench-server.ts';
import { type BenchResult, type Cpu, type LatencyResult, type Round, writeReport } from './report.ts';

const env = process.env;
const num = (name: string, fallback: number) => (env[name] ? Number(env[name]) : fallback);
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
  write: env.BENCH_WRITE !== '0',
  profileDir: env.BENCH_PROFILE_DIR,
};
const log = (line: string) => process.stdout.write(`bench:mail ${line}\n`);
const logger = createLogger({ name: 'bench-mail', level: 'error' });
const databaseUrl = databaseUrlFor(baseConfig.databaseUrl, 'lattice_bench');
/** Epoch milliseconds with the monotonic clock's resolution; the smart host stamps the same way. */
const epochMs = () => performance.timeOrigin + performance.now();

/** The html of every email of both arms: about 2 KB. */
const HTML = [
  '<!doctype html><html><body style="font-family:sans-serif">',
  '<h1>Your weekly digest</h1>',
  ...Array.from(
    { length: 16 },
    (_, k) =>
      `<p>Item ${k + 1}: lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore.</p>`,
  ),
  '<p><a href="https://example.net/digest">Read it on the web</a></p>',
  '</body></html>',
].join('\n');
const SUBJECT = (i: number) => `Your weekly digest #${i}`;
const TO = (i: number) => `reader-${i}@example.net`;

interface Server {
  child: ChildProcess;
  url: string;
  /** The child's CPU time so far (user + system, µs) and the SQL statements it has run. */
  stats(): Promise<{ cpuUs: number; statements: number }>;
  stop(): Promise<void>;
}

async function startServer(args: ServerArgs): Promise<Server> {
  const child = forkBenchChild(new URL('./bench-server.ts', import.meta.url), args, settings.profileDir);
  const label = `bench ${args.role}`;
  const ready = await nextMessage<ServerMessage, 'ready'>(child, 'ready', label);
  return {
    child,
    url: ready.url,
    async stats() {
      const answer = nextMessage<ServerMessage, 'stats'>(child, 'stats', label);
      child.send({ type: 'stats' });
      const { cpuUs, statements } = await answer;
      return { cpuUs, statements };
    },
    stop: controlOf(child, label).stop,
  };
}

interface Servers {
  management: Server;
  actors: Server;
  smartHost: Server;
}

async function cpuNow(s: Servers) {
  const [management, actors, smartHost] = await Promise.all([
    s.management.stats(),
    s.actors.stats(),
    s.smartHost.stats(),
  ]);
  const own = process.cpuUsage();
  return {
    management,
    actors,
    smartHost,
    generator: own.user + own.system,
    infra: infraCpu(),
    machine: machineCpu(),
  };
}

async function cpuSince(s: Servers, before: Awaited<ReturnType<typeof cpuNow>>, n: number): Promise<Cpu> {
  const after = await cpuNow(s);
  const busy = after.machine.busyUs - before.machine.busyUs;
  const total = after.machine.totalUs - before.machine.totalUs;
  const cpu: Cpu = {
    management: (after.management.cpuUs - before.management.cpuUs) / n,
    actors: (after.actors.cpuUs - before.actors.cpuUs) / n,
    smartHost: (after.smartHost.cpuUs - before.smartHost.cpuUs) / n,
    generator: (after.generator - before.generator) / n,
    postgres: (after.infra.postgres - before.infra.postgres) / n,
    kafka: (after.infra.kafka - before.infra.kafka) / n,
    redis: (after.infra.redis - before.infra.redis) / n,
    machine: busy / n,
    machineBusy: total > 0 ? busy / total : Number.NaN,
    other: 0,
    statements: {
      management: (after.management.statements - before.management.statements) / n,
      actors: (after.actors.statements - before.actors.statements) / n,
    },
  };
  cpu.other =
    cpu.machine -
    (cpu.management + cpu.actors + cpu.smartHost + cpu.generator + cpu.postgres + cpu.kafka + cpu.redis);
  return cpu;
}

/** What the smart host reported during one measurement: per Message-ID, its count and first time. */
class Tally {
  readonly byId = new Map<string, { count: number; atMs: number }>();
  readonly times: number[] = [];
  total = 0;
  unsigned = 0;
  add([id, atMs, signed]: Received) {
    this.total++;
    this.times.push(atMs);
    if (!signed) this.unsigned++;
    const key = id ?? '(none)';
    const seen = this.byId.get(key);
    if (seen) seen.count++;
    else this.byId.set(key, { count: 1, atMs });
  }
  /** Every expected Message-ID exactly once, nothing else, every message signed. */
  check(label: string, expected: string[]) {
    const problems: string[] = [];
    if (this.total !== expected.length)
      problems.push(`${this.total} messages received for ${expected.length} sent`);
    const missing = expected.filter((id) => !this.byId.has(id)).length;
    if (missing) problems.push(`${missing} never received`);
    const repeated = expected.filter((id) => (this.byId.get(id)?.count ?? 0) > 1).length;
    if (repeated) problems.push(`${repeated} received more than once`);
    const want = new Set(expected);
    const strangers = [...this.byId.keys()].filter((id) => !want.has(id)).length;
    if (strangers) problems.push(`${strangers} Message-IDs that were not sent in this round`);
    if (this.unsigned) problems.push(`${this.unsigned} without a DKIM-Signature`);
    if (problems.length) throw new Error(`${label}: ${problems.join('; ')}`);
  }
}

let tally: Tally | null = null;
let strays = 0;

function listen(smartHost: Server) {
  smartHost.child.on('message', (m: ServerMessage) => {
    if (m.type !== 'received') return;
    for (const r of m.messages) {
      if (tally) tally.add(r);
      else strays++;
    }
  });
}

async function waitFor(label: string, done: () => boolean, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`${label}: gave up after ${timeoutMs / 1000} s`);
    await sleep(5);
  }
}

interface Target {
  productId: string;
  ownerToken: string;
  domain: string;
}

/** Sends `n` messages with the concurrency, waits for the smart host to have them all. */
async function measure(
  label: string,
  arm: Round['arm'],
  n: number,
  servers: Servers,
  send: (i: number) => Promise<string>,
): Promise<{ round: Round; messageIds: string[] }> {
  if (strays) throw new Error(`${strays} messages reached the smart host between rounds`);
  const current = new Tally();
  const messageIds: string[] = new Array(n);
  let answered = 0;
  const cpuBefore = await cpuNow(servers);
  tally = current;
  const startMs = epochMs();
  let answeredMs = 0;
  let last = 0;
  const ticker = setInterval(() => {
    log(
      `  ${label.padEnd(14)} ${String(answered).padStart(5)}/${n} accepted  ${String(current.total).padStart(5)}/${n} received  ${String(current.total - last).padStart(5)} msg/s`,
    );
    last = current.total;
  }, 1000);
  try {
    await pool(n, settings.concurrency, async (i) => {
      messageIds[i] = await send(i);
      answered++;
    });
    answeredMs = epochMs() - startMs;
    await waitFor(`${label}: ${current.total} of ${n} received`, () => current.total >= n);
  } finally {
    clearInterval(ticker);
  }
  const cpu = await cpuSince(servers, cpuBefore, n);
  const lastAt = Math.max(...current.times);
  const elapsedMs = lastAt - startMs;
  const perSecondSeries: number[] = [];
  for (const t of current.times) {
    const s = Math.floor((t - startMs) / 1000);
    while (perSecondSeries.length <= s) perSecondSeries.push(0);
    perSecondSeries[s]!++;
  }
  current.check(label, messageIds);
  return {
    messageIds,
    round: {
      label,
      arm,
      messages: n,
      elapsedMs,
      perSecond: n / (elapsedMs / 1000),
      answeredPerSecond: n / (answeredMs / 1000),
      cpu,
      perSecondSeries,
    },
  };
}

/**
 * The local PostgreSQL runs without autovacuum (its CI configuration), and every email leaves
 * four row versions behind (insert, three updates) and its product's deletion the rest: without
 * a VACUUM, each round would find more dead rows in the tables and indexes than the last.
 */
async function vacuum(db: Db): Promise<void> {
  await db.raw(
    'vacuum (analyze) mail_emails, mail_email_events, mail_idempotency_keys, mail_suppressions, mail_domains, member_tokens',
  );
}

/** mail_emails' update counters so far (pg_stat_user_tables): every update, and the HOT ones. */
async function emailUpdates(db: Db): Promise<{ updates: number; hot: number }> {
  const row = (await db('pg_stat_user_tables')
    .where({ relname: 'mail_emails' })
    .first('n_tup_upd', 'n_tup_hot_upd')) as { n_tup_upd: string; n_tup_hot_upd: string } | undefined;
  return { updates: Number(row?.n_tup_upd ?? 0), hot: Number(row?.n_tup_hot_upd ?? 0) };
}

/** Waits until every email of the round is `delivered` in PostgreSQL (the email-state actor). */
async function settle(db: Db, label: string, messageIds: string[]): Promise<number> {
  const ids = messageIds.map((m) => m.slice(1, m.indexOf('@')));
  const started = performance.now();
  const deadline = Date.now() + 60_000;
  for (;;) {
    const [row] = await db('mail_emails')
      .whereIn('id', ids)
      .andWhere({ status: 'delivered' })
      .count<{ c: string }[]>({ c: '*' });
    if (Number(row?.c ?? 0) === ids.length) return performance.now() - started;
    if (Date.now() > deadline)
      throw new Error(`${label}: only ${row?.c} of ${ids.length} emails reached delivered`);
    await sleep(100);
  }
}

function sendBody(target: Target, i: number): string {
  return JSON.stringify({ from: `news@${target.domain}`, to: TO(i), subject: SUBJECT(i), html: HTML });
}

async function platformRound(
  label: string,
  n: number,
  servers: Servers,
  target: Target,
  db: Db,
): Promise<Round> {
  const http = poster(
    `${servers.management.url}/mail/emails`,
    { authorization: `Bearer ${target.ownerToken}`, 'content-type': 'application/json' },
    settings.concurrency,
  );
  try {
    const { round, messageIds } = await measure(label, 'platform', n, servers, async (i) => {
      const res = await http.post(sendBody(target, i));
      if (res.status !== 202) throw new Error(`send answered ${res.status}: ${res.text}`);
      return `<${(JSON.parse(res.text) as { id: string }).id}@${target.domain}>`;
    });
    const settledMs = await settle(db, label, messageIds);
    // Nothing arrived twice while the email-state actor caught up.
    await sleep(200);
    tally!.check(label, messageIds);
    log(`  ${label}: every email received once and delivered (${settledMs.toFixed(0)} ms after the last)`);
    return round;
  } finally {
    tally = null;
    http.close();
  }
}

type BareTransport = ReturnType<typeof nodemailer.createTransport>;

interface BareMessages {
  transport: BareTransport;
  dkim: { domainName: string; keySelector: string; privateKey: string };
  /** A List-Unsubscribe URL of the platform's length (made once, outside the timed loop). */
  unsubscribeUrl: string;
}

async function bareRound(label: string, n: number, servers: Servers, target: Target, bare: BareMessages) {
  try {
    const { round, messageIds } = await measure(label, 'bare', n, servers, async (i) => {
      const id = randomUUID();
      const messageId = `<${id}@${target.domain}>`;
      const info = await bare.transport.sendMail({
        from: { name: '', address: `news@${target.domain}` },
        to: { name: '', address: TO(i) },
        subject: SUBJECT(i),
        html: HTML,
        messageId,
        date: new Date(),
        envelope: { from: `bounce+${id}@send.${target.domain}`, to: [TO(i)] },
        headers: {
          'List-Unsubscribe': `<${bare.unsubscribeUrl}>`,
          'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
        },
        dkim: bare.dkim,
        disableFileAccess: true,
        disableUrlAccess: true,
      });
      if (!String(info.response).startsWith('250')) throw new Error(`smart host answered ${info.response}`);
      return messageId;
    });
    await sleep(200);
    tally!.check(label, messageIds);
    return round;
  } finally {
    tally = null;
  }
}

interface PhaseData {
  accept: Float64Array;
  handover: Float64Array;
  statuses: Map<number, number>;
  achievedRate: number;
  cpu: Cpu;
}

/** BENCH_LATENCY_RATE sends a second for BENCH_LATENCY_SECONDS, each request timed. */
async function latencyPhase(label: string, servers: Servers, target: Target, db: Db): Promise<PhaseData> {
  const { latencyRate: rate, latencySeconds: seconds } = settings;
  const count = rate * seconds;
  const intervalMs = 1000 / rate;
  const http = poster(
    `${servers.management.url}/mail/emails`,
    { authorization: `Bearer ${target.ownerToken}`, 'content-type': 'application/json' },
    64,
  );
  const accept = new Float64Array(count);
  const sentAt = new Float64Array(count);
  const messageIds: Array<string | undefined> = new Array(count);
  const statuses = new Map<number, number>();
  let done = 0;
  const current = new Tally();
  const cpuBefore = await cpuNow(servers);
  tally = current;
  const start = performance.now();
  const ticker = setInterval(() => {
    const sorted = Float64Array.from(accept.subarray(0, done)).sort();
    log(
      `  ${label} ${String(Math.round((performance.now() - start) / 1000)).padStart(3)}/${seconds} s  ${String(done).padStart(5)}/${count} answered  p99 so far ${percentile(sorted, 99).toFixed(2)} ms  ${current.total} received`,
    );
  }, 1000);
  const inFlight: Promise<void>[] = [];
  try {
    for (let i = 0; i < count; i++) {
      const wait = start + i * intervalMs - performance.now();
      if (wait >= 1) await sleep(wait);
      inFlight.push(
        (async () => {
          const body = sendBody(target, 1_000_000 + i);
          const t0 = performance.now();
          sentAt[i] = performance.timeOrigin + t0;
          const res = await http.post(body);
          accept[i] = performance.now() - t0;
          done++;
          statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
          if (res.status === 202)
            messageIds[i] = `<${(JSON.parse(res.text) as { id: string }).id}@${target.domain}>`;
        })(),
      );
    }
    const sentForMs = performance.now() - start;
    await Promise.all(inFlight);
    const accepted = messageIds.filter((m): m is string => m !== undefined);
    await waitFor(
      `latency: ${current.total} of ${accepted.length} received`,
      () => current.total >= accepted.length,
    );
    clearInterval(ticker);
    const cpu = await cpuSince(servers, cpuBefore, count);
    await settle(db, label, accepted);
    await sleep(200);
    current.check(label, accepted);
    return {
      accept,
      handover: Float64Array.from(
        messageIds.flatMap((m, i) => (m ? [current.byId.get(m)!.atMs - sentAt[i]!] : [])),
      ),
      statuses,
      achievedRate: count / (sentForMs / 1000),
      cpu,
    };
  } finally {
    clearInterval(ticker);
    tally = null;
    http.close();
  }
}

/**
 * BENCH_LATENCY_ROUNDS phases of latencyPhase, each after a quiet-machine check; the figures are
 * of every send of every phase together (a stall in one phase is in the p99, as it would be for
 * a client), and per phase.
 */
async function latencyRounds(servers: Servers, target: Target, db: Db): Promise<LatencyResult> {
  const phases: PhaseData[] = [];
  const perPhase: LatencyResult['phases'] = [];
  for (let k = 1; k <= settings.latencyRounds; k++) {
    await vacuum(db);
    await sleep(1000);
    await quiet();
    const label = `latency ${k}/${settings.latencyRounds}`;
    const phase = await latencyPhase(label, servers, target, db);
    const sorted = Float64Array.from(phase.accept).sort();
    const entry = {
      label,
      p50Ms: percentile(sorted, 50),
      p99Ms: percentile(sorted, 99),
      maxMs: sorted[sorted.length - 1]!,
      non202: phase.accept.length - (phase.statuses.get(202) ?? 0),
      machineBusy: phase.cpu.machineBusy,
      other: phase.cpu.other,
      kafka: phase.cpu.kafka,
    };
    perPhase.push(entry);
    phases.push(phase);
    log(
      `${label}: p50 ${entry.p50Ms.toFixed(2)} ms, p99 ${entry.p99Ms.toFixed(2)} ms, max ${entry.maxMs.toFixed(2)} ms, ${entry.non202} not 202; machine ${(100 * entry.machineBusy).toFixed(0)}% busy`,
    );
  }
  const all = (f: (p: PhaseData) => Float64Array) => {
    const out = new Float64Array(phases.reduce((n, p) => n + f(p).length, 0));
    let at = 0;
    for (const p of phases) {
      out.set(f(p), at);
      at += f(p).length;
    }
    return out.sort();
  };
  const sorted = all((p) => p.accept);
  const handover = all((p) => p.handover);
  const statuses: Record<string, number> = {};
  for (const p of phases)
    for (const [status, n] of p.statuses) statuses[status] = (statuses[status] ?? 0) + n;
  const mean = (f: (c: Cpu) => number) => phases.reduce((sum, p) => sum + f(p.cpu), 0) / phases.length;
  return {
    rate: settings.latencyRate,
    seconds: settings.latencySeconds,
    rounds: settings.latencyRounds,
    sends: sorted.length,
    achievedRate: Math.min(...phases.map((p) => p.achievedRate)),
    non202: sorted.length - (statuses['202'] ?? 0),
    statuses,
    p50Ms: percentile(sorted, 50),
    p90Ms: percentile(sorted, 90),
    p99Ms: percentile(sorted, 99),
    p999Ms: percentile(sorted, 99.9),
    maxMs: sorted[sorted.length - 1]!,
    handoverP50Ms: percentile(handover, 50),
    handoverP99Ms: percentile(handover, 99),
    cpu: {
      management: mean((c) => c.management),
      actors: mean((c) => c.actors),
      smartHost: mean((c) => c.smartHost),
      generator: mean((c) => c.generator),
      postgres: mean((c) => c.postgres),
      kafka: mean((c) => c.kafka),
      redis: mean((c) => c.redis),
      machine: mean((c) => c.machine),
      machineBusy: mean((c) => c.machineBusy),
      other: mean((c) => c.other),
      statements: {
        management: mean((c) => c.statements.management),
        actors: mean((c) => c.statements.actors),
      },
    },
    phases: perPhase,
    sorted: Array.from(sorted),
  };
}

async function main(): Promise<void> {
  log(`settings ${JSON.stringify(settings)}`);
  const loadBefore = loadavg()[0] ?? 0;
  await ensureInfra({ config: baseConfig, logger, searchPath: env.PATH ?? '' });
  await ensureDatabase(databaseUrl, { logger });
  const db = createDb({ databaseUrl, logger });
  await migrateLatest(db, logger);
  await vacuum(db);
  const run = newId().slice(0, 8);
  const kafkaTopicPrefix = `bench-mail-${run}.`;
  const secretKeys = generateSecretKeyEntry('bench');
  const keyring = parseSecretKeys(secretKeys);
  const domain = `bench-${run}.example.test`;
  const made = await bootstrapProduct(db, { name: `bench-mail-${run}`, verifiedDomain: domain });
  await createPostgresDomainStore(db, { keyring }).ensureKeys(made.product_id);
  const target: Target = { productId: made.product_id, ownerToken: made.owner_token, domain };

  const args = {
    databaseUrl,
    redisKeyPrefix: `lattice-bench:${newId()}:`,
    kafkaTopicPrefix,
    secretKeys,
    mail: { sendRatePerSecond: settings.sendRatePerSecond },
    productId: target.productId,
  };
  const start = async (role: ServerRole, smtpUrl: string) => startServer({ ...args, role, smtpUrl });
  const smartHost = await start('smart-host', '');
  listen(smartHost);
  const servers: Servers = {
    smartHost,
    actors: await start('actors', smartHost.url),
    management: await start('management', smartHost.url),
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
  try {
    log('warming up (the actors take their partitions, both pools open their connections)…');
    await platformRound('warm-up platform', settings.warmup, servers, target, db);
    await bareRound('warm-up bare', settings.warmup, servers, target, bare);
    for (let r = 1; r <= settings.rounds; r++) {
      const order = r % 2 === 1 ? (['platform', 'bare'] as const) : (['bare', 'platform'] as const);
      for (const arm of order) {
        if (arm === 'platform') await vacuum(db);
        const waited = await quiet();
        if (waited > 1000) log(`waited ${(waited / 1000).toFixed(0)} s for the machine to be quiet`);
        const label = `${arm} ${r}/${settings.rounds}`;
        const round =
          arm === 'platform'
            ? await platformRound(label, settings.messages, servers, target, db)
            : await bareRound(label, settings.messages, servers, target, bare);
        rounds.push(round);
        const c = round.cpu;
        log(
          `${label}: ${round.perSecond.toFixed(0)} msg/s received (accepted at ${round.answeredPerSecond.toFixed(0)}/s); CPU µs/msg: management ${c.management.toFixed(0)}, actors ${c.actors.toFixed(0)}, smart host ${c.smartHost.toFixed(0)}, generator ${c.generator.toFixed(0)}, PostgreSQL ${c.postgres.toFixed(0)}, Kafka ${c.kafka.toFixed(0)}, Redis ${c.redis.toFixed(0)}, other ${c.other.toFixed(0)}, machine ${c.machine.toFixed(0)} (${(100 * c.machineBusy).toFixed(0)}% busy); SQL statements/msg: management ${c.statements.management.toFixed(1)}, actors ${c.statements.actors.toFixed(1)}`,
        );
      }
    }
    log(
      `accept latency: ${settings.latencyRounds} × ${settings.latencySeconds} s of ${settings.latencyRate} sends a second…`,
    );
    latency = await latencyRounds(servers, target, db);
    log(
      `latency: p50 ${latency.p50Ms.toFixed(2)} ms, p99 ${latency.p99Ms.toFixed(2)} ms, max ${latency.maxMs.toFixed(2)} ms, ${latency.non202} not 202; accept → smart host p50 ${latency.handoverP50Ms.toFixed(1)} ms, p99 ${latency.handoverP99Ms.toFixed(1)} ms`,
    );
  } finally {
    bare.transport.close();
    await servers.management.stop();
    await servers.actors.stop();
    await servers.smartHost.stop();
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
