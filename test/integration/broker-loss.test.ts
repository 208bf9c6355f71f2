// Losing one broker of three (docs/operations.md "A three-broker cluster"): the management API
// and the edge in this process and a `lattice start actors` process run on a three-broker KRaft
// cluster of the test's own (topics with 3 copies, min.insync.replicas 2) while clients publish
// realtime messages on six channels (four through the management API, two through the public
// edge) and send emails, each email's delivered event going to a webhook endpoint. One broker
// (the one leading most channel-command partitions) is SIGKILLed mid-stream and started again
// 20 s later. Then:
//   - every request was answered within its bound: 202, or 503 with Retry-After and the
//     `_unavailable` code of its step; never a 500, never a hang;
//   - every 202 publish is in its channel's history exactly once and in the order it was sent,
//     the history's offsets are dense, and nothing is there that was not published (a refused
//     publish may have landed: its outcome was unknown when the 503 was answered);
//   - every 202 email is delivered once, and its delivered event reached the webhook endpoint;
//   - publishes and sends were accepted again while the broker was still down (the platform
//     rode through on two brokers), and the actors process stayed healthy.
import type { ChildProcess } from 'node:child_process';
import { createLogger, sleep } from '@lattice/core';
import { noteInTestLog, testConfig } from '@lattice/core/testing';
import { createKafka, TOPIC_CATALOG, topicName } from '@lattice/kafka';
import { expect } from 'chai';
import { ConfigResourceTypes } from 'kafkajs';
import { channelHistory } from '../support/channel-history.ts';
import { type HttpsReceiver, startHttpsReceiver } from '../support/https-receiver.ts';
import { freePort, stopPlatform } from '../support/lattice-process.ts';
import type { Outcome } from '../support/post-outcome.ts';
import { waitUntil } from '../support/wait-until.ts';
import { startTestKafkaCluster, type TestKafkaCluster } from './broker-loss/kafka-cluster.ts';
import { type Load, startLoad } from './broker-loss/load.ts';
import { checkChannel, deliveredCount, historyCount } from './broker-loss/records.ts';
import { type MailPlatform, startActorsProcess, startMailPlatform } from './mail/mail-platform.ts';

/** Four channels published to through the management API, two through the public edge. */
const CHANNELS = Array.from({ length: 6 }, (_, i) => `chat:loss-${i}`);
const EDGE_CHANNELS = 2;
const PARTITIONS = 6;
const LOAD_BEFORE_KILL_MS = 5_000;
const DOWN_MS = 20_000;
const LOAD_AFTER_RESTORE_MS = 3_000;

describe('three-broker Kafka: one broker SIGKILLed mid-stream', function () {
  this.timeout(300_000);
  const logger = createLogger({ name: 'broker-loss', level: testConfig().logLevel });
  let cluster: TestKafkaCluster;
  let p: MailPlatform;
  let receiver: HttpsReceiver;
  let actors: ChildProcess | undefined;
  let actorsPort: number;
  const actorsLog: string[] = [];

  before(async () => {
    const startedMs = Date.now();
    cluster = await startTestKafkaCluster(testConfig(), logger);
    noteInTestLog(`broker-loss: cluster of 3 up in ${Date.now() - startedMs} ms`, {
      brokers: cluster.brokers,
    });
    p = await startMailPlatform({
      label: 'broker-loss',
      actors: false,
      ownProductOnly: true,
      config: {
        kafkaBrokers: cluster.brokers,
        kafkaPartitions: PARTITIONS,
        kafkaReplicationFactor: 'cluster',
        perIpRequestsPerMinute: 1_000_000,
        webhooks: { retryDelaysMs: [200, 200, 200, 200], timeoutMs: 2_000, allowPrivateTargets: true },
      },
      sendRatePerSecond: 100_000,
    });
    receiver = await startHttpsReceiver();
    actorsPort = await freePort();
    actors = await startActorsProcess(p, {
      ACTORS_PORT: String(actorsPort),
      MAIL_RETRY_DELAYS_MS: '100,100,100',
      WEBHOOK_RETRY_DELAYS_MS: '200,200,200,200',
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
      LOG_LEVEL: 'info',
    });
    // Its log goes with a failure's report.
    for (const stream of [actors.stdout!, actors.stderr!])
      stream.on('data', (d: Buffer) => actorsLog.push(d.toString('utf8')));
  });
  afterEach(function () {
    if (this.currentTest?.state === 'failed')
      noteInTestLog('broker-loss: the actors process said', { log: actorsLog.join('').slice(-200_000) });
  });
  // Teardown, each step bounded: a step that overruns is noted in the test log (with the actors
  // process's last words) and the rest still runs, the actors process killed if it has not
  // exited. (A stopped `lattice start` used to wait for its event loop to drain, which a handle
  // left behind could keep from happening; it now exits once stopped, services/cli/src/main.ts.)
  async function bounded(what: string, step: () => Promise<unknown>): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const overran = await Promise.race([
      step().then(() => false),
      new Promise<boolean>((resolve) => {
        timer = setTimeout(() => resolve(true), 60_000);
      }),
    ]);
    clearTimeout(timer);
    if (overran) {
      noteInTestLog(`broker-loss: teardown step "${what}" did not finish in 60 s; going on`, {
        actorsExit: actors ? { code: actors.exitCode, signal: actors.signalCode } : null,
        log: actorsLog.join('').slice(-20_000),
      });
    }
  }
  after(async () => {
    if (actors && actors.exitCode === null && actors.signalCode === null) {
      const child = actors;
      await bounded('stop the actors process', () => stopPlatform(child));
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
    await bounded('close the receiver', async () => receiver?.close());
    await bounded('close the platform', async () => p?.close());
    await bounded('stop the cluster', async () => cluster?.stop());
  });

  it('creates the topics with three copies, two of them needed in sync', async () => {
    const admin = createKafka({ brokers: cluster.brokers, clientId: 'broker-loss-check', logger }).admin();
    await admin.connect();
    try {
      const names = Object.values(TOPIC_CATALOG).map((t) => topicName(p.config.kafkaTopicPrefix, t.name));
      const meta = await admin.fetchTopicMetadata({ topics: names });
      for (const t of meta.topics) {
        expect(t.partitions, t.name).to.have.length(PARTITIONS);
        for (const part of t.partitions) expect(part.replicas, t.name).to.have.length(3);
      }
      const configs = await admin.describeConfigs({
        includeSynonyms: false,
        resources: names.map((name) => ({
          type: ConfigResourceTypes.TOPIC,
          name,
          configNames: ['min.insync.replicas'],
        })),
      });
      for (const r of configs.resources)
        expect(
          r.configEntries.find((e) => e.configName === 'min.insync.replicas')?.configValue,
          r.resourceName,
        ).to.equal('2');
    } finally {
      await admin.disconnect();
    }
  });

  it('loses no accepted publish, email or webhook delivery; refuses with 503 and Retry-After, never a 500 or a hang', async () => {
    const made = await p.call('PUT', '/realtime/namespaces/chat', p.product.ownerToken, {
      history_window_seconds: 3600,
    });
    expect(made.status, made.text).to.be.oneOf([200, 201]);
    const hook = await p.call('POST', '/mail/webhooks', p.product.ownerToken, {
      url: receiver.url('/hooks'),
      events: ['email.delivered'],
    });
    expect(hook.status, hook.text).to.equal(201);
    const key = await p.publicKey({ kind: 'toolkit', toolkit: 'realtime' });
    const viaManagement = { url: `${p.management.url}/realtime/messages`, token: p.product.ownerToken };
    const viaEdge = { url: `${p.edge.url}/${p.product.productId}/realtime/messages`, token: key };
    const victim = await leaderOfMostChannelPartitions();

    const startedMs = Date.now();
    const load: Load = startLoad({
      publishers: CHANNELS.map((channel, i) => ({
        channel,
        target: i < CHANNELS.length - EDGE_CHANNELS ? viaManagement : viaEdge,
      })),
      publishGapMs: 50,
      send: { url: `${p.management.url}/mail/emails`, token: p.product.ownerToken },
      domain: p.product.domain,
      sendGapMs: 100,
    });
    let stopped = false;
    try {
      await sleep(LOAD_BEFORE_KILL_MS);
      const killedAtMs = Date.now();
      await cluster.kill(victim);
      await sleep(DOWN_MS - (Date.now() - killedAtMs));
      // The node comes back (on its own data) while the clients go on.
      const restoringAtMs = Date.now();
      await cluster.restore();
      const restoredAtMs = Date.now();
      await sleep(LOAD_AFTER_RESTORE_MS);
      await load.stop();
      stopped = true;
      const loadMs = Date.now() - startedMs;

      // Every answer: 202, or 503 with Retry-After and the step's `_unavailable` code.
      const publishes = [...load.publishes.values()].flat();
      const all = [...publishes, ...load.sends];
      const odd = all.filter(
        (o) =>
          o.problem !== null ||
          !(
            (o.status === 202 && o.id) ||
            (o.status === 503 &&
              /^[1-9]\d*$/.test(o.retryAfter ?? '') &&
              (o.code === 'publish_unavailable' || o.code === 'send_unavailable'))
          ),
      );
      expect(odd, 'answers other than 202, or 503 with Retry-After').to.deep.equal([]);
      const refused = all.filter((o) => o.status === 503);
      const slowest = Math.max(...all.map((o) => o.answeredAtMs - o.startedAtMs));

      // Riding through: accepted again while the broker was still down.
      const whileDown = (list: Outcome[]) =>
        list.filter((o) => o.status === 202 && o.startedAtMs > killedAtMs && o.answeredAtMs < restoringAtMs)
          .length;
      expect(whileDown(publishes), 'publishes accepted with two brokers').to.be.greaterThan(0);
      expect(whileDown(load.sends), 'emails accepted with two brokers').to.be.greaterThan(0);

      // Realtime: each channel's accepted publishes in history once, in order; offsets dense.
      const acceptedIds = publishes.filter((o) => o.status === 202).map((o) => o.id!);
      const drainStartMs = Date.now();
      await waitUntil(
        'every accepted publish in history',
        async () => (await historyCount(p.db, productId(), acceptedIds)) === acceptedIds.length,
        60_000,
        200,
      ).catch(async (err: Error) => {
        const missing: Record<string, number[]> = {};
        for (const [channel, outcomes] of load.publishes) {
          const there = new Set((await channelHistory(p.db, productId(), channel)).map((r) => r.message_id));
          missing[channel] = outcomes.filter((o) => o.status === 202 && !there.has(o.id!)).map((o) => o.seq);
        }
        throw new Error(`${err.message}; missing seqs ${JSON.stringify(missing)}`);
      });
      let landedRefusals = 0;
      for (const [channel, outcomes] of load.publishes) {
        landedRefusals += checkChannel(channel, await channelHistory(p.db, productId(), channel), outcomes);
      }

      // Mail: every accepted email delivered once, and its delivered event at the endpoint; a
      // refused one was withdrawn, or (its record having landed after all) delivered.
      const emailIds = load.sends.filter((o) => o.status === 202).map((o) => o.id!);
      await waitUntil(
        'every accepted email delivered',
        async () => (await deliveredCount(p.db, emailIds)) === emailIds.length,
        60_000,
        200,
      );
      const deliveredEvents = await p
        .db('mail_email_events')
        .whereIn('email_id', emailIds)
        .where({ type: 'delivered' })
        .select('email_id');
      expect(deliveredEvents, 'one delivered event per email').to.have.length(emailIds.length);
      const refusedTo = load.sends.filter((o) => o.status === 503).map((o) => `reader-${o.seq}@example.net`);
      const refusedKept = (await p
        .db('mail_emails')
        .where({ product_id: p.product.productId })
        .whereIn('to_address', refusedTo)
        .select('status')) as Array<{ status: string }>;
      expect(
        refusedKept.filter((e) => e.status !== 'delivered'),
        'refused emails left behind undelivered',
      ).to.deep.equal([]);
      const copies = new Map<string, number>();
      for (const m of p.smartHost.received) {
        const id = /^<([0-9a-f-]{36})@/.exec(m.messageId ?? '')?.[1];
        if (id) copies.set(id, (copies.get(id) ?? 0) + 1);
      }
      for (const id of emailIds)
        expect(copies.get(id) ?? 0, `email ${id} at the smart host`).to.be.at.least(1);
      // A copy handed over twice is a repeated attempt the sender counted (docs/mail.md).
      const repeats = new Map(
        (
          (await p
            .db('mail_emails')
            .where({ product_id: p.product.productId })
            .where('send_repeats', '>', 0)
            .select('id', 'send_repeats')) as Array<{ id: string; send_repeats: number }>
        ).map((r) => [r.id, r.send_repeats]),
      );
      for (const [id, n] of copies) {
        if (n > 1) expect(repeats.get(id) ?? 0, `email ${id} handed over ${n} times`).to.be.at.least(n - 1);
      }
      await waitUntil(
        'every delivered event at the webhook endpoint',
        () => emailIds.every((id) => hookedEmails().has(id)),
        60_000,
        200,
      );
      const drainMs = Date.now() - drainStartMs;

      const health = await fetch(`http://127.0.0.1:${actorsPort}/healthz`);
      expect(health.status, 'the actors process is healthy').to.equal(200);

      const count = (list: Outcome[], status: number) => list.filter((o) => o.status === status).length;
      const refusedTimes = refused.map((o) => o.startedAtMs);
      noteInTestLog(
        `broker-loss: node ${victim} SIGKILLed ${killedAtMs - startedMs} ms into the load, restarted after ${DOWN_MS} ms (up in ${restoredAtMs - restoringAtMs} ms); ` +
          `publishes ${count(publishes, 202)} accepted / ${count(publishes, 503)} refused (${landedRefusals} of those landed anyway) / 0 lost; ` +
          `emails ${count(load.sends, 202)} accepted / ${count(load.sends, 503)} refused (${refusedKept.length} of those delivered anyway) / 0 lost, ` +
          `${[...copies.values()].filter((n) => n > 1).length} sent twice, ${hookedEmails().size} delivered events at the webhook endpoint; ` +
          `accepted while down: ${whileDown(publishes)} publishes, ${whileDown(load.sends)} emails; ` +
          `refused requests sent ${refused.length ? Math.min(...refusedTimes) - killedAtMs : 0} to ${refused.length ? Math.max(...refusedTimes) - killedAtMs : 0} ms after the kill (negative: in flight at it); ` +
          `slowest answer ${slowest} ms; load ${loadMs} ms, drain ${drainMs} ms`,
      );
    } finally {
      if (!stopped) await load.stop();
    }
  });

  async function leaderOfMostChannelPartitions(): Promise<number> {
    const admin = createKafka({ brokers: cluster.brokers, clientId: 'broker-loss-leaders', logger }).admin();
    await admin.connect();
    try {
      const topic = topicName(p.config.kafkaTopicPrefix, TOPIC_CATALOG.channelCommands.name);
      const meta = await admin.fetchTopicMetadata({ topics: [topic] });
      const led = new Map<number, number>();
      for (const part of meta.topics[0]!.partitions) led.set(part.leader, (led.get(part.leader) ?? 0) + 1);
      return [...led].sort((a, b) => b[1] - a[1])[0]![0];
    } finally {
      await admin.disconnect();
    }
  }

  const productId = () => p.product.productId;

  /** Email ids whose delivered event reached the endpoint. */
  function hookedEmails(): Set<string> {
    return new Set(
      receiver.requests.map(
        (r) => (JSON.parse(r.body.toString('utf8')) as { data: { emailId: string } }).data.emailId,
      ),
    );
  }
});
