// The partition actor host against a real broker (12 partitions) and a real PostgreSQL: per-key
// order across hosts, no loss and no double application when a host is SIGKILLed mid-stream or
// another joins, and poison or flaky records handled without blocking or dropping anything.

import { createLogger, sleep } from '@lattice/core';
import { testConfig, uniqueName } from '@lattice/core/testing';
import {
  type ActorKind,
  createActorHost,
  createCodec,
  createKafka,
  createKafkaDeadLetterSink,
  createRecordProducer,
  type DeadLetter,
  ensureTopics,
  loadCodec,
  type RecordProducer,
} from '@lattice/kafka';
import { expect } from 'chai';
import type { Admin, Kafka } from 'kafkajs';
import knex, { type Knex } from 'knex';
import { Registry } from 'prom-client';
import { waitUntil } from '../support/wait-until.ts';
import { coversAll, type HostProcess, spawnHost, stopAll } from './actor-host/host-processes.ts';
import {
  createLedgerKind,
  createLedgerTables,
  LEDGER_SCHEMA,
  type LedgerCommand,
} from './actor-host/ledger-actor.ts';

const PARTITIONS = 12;
const config = testConfig();
const logger = createLogger({ name: 'actor-host-test', level: config.logLevel });
const codec = createCodec<LedgerCommand>([LEDGER_SCHEMA]);
const deadLetterCodec = loadCodec<DeadLetter>('dead-letter');

describe('partition actor host (real Kafka, 12 partitions, state in PostgreSQL)', function () {
  this.timeout(180_000);
  let kafka: Kafka;
  let admin: Admin;
  let producer: RecordProducer;
  let db: Knex;
  let hosts: HostProcess[] = [];
  const topics: string[] = [];

  before(async () => {
    db = knex({ client: 'pg', connection: config.databaseUrl, pool: { min: 0, max: 8 } });
    await createLedgerTables(db);
    kafka = createKafka({ brokers: config.kafkaBrokers, clientId: 'actor-host-test', logger });
    admin = kafka.admin();
    await admin.connect();
    producer = await createRecordProducer(kafka);
  });

  afterEach(async () => {
    await stopAll(hosts);
    hosts = [];
  });

  after(async () => {
    if (topics.length > 0) await admin.deleteTopics({ topics });
    await producer?.disconnect();
    await admin?.disconnect();
    await db?.destroy();
  });

  async function newTopic(): Promise<{ topic: string; dlq: string; group: string }> {
    const topic = uniqueName('ledger');
    const dlq = `${topic}.dead-letters`;
    await ensureTopics({ admin, names: [topic, dlq], partitions: PARTITIONS, replicationFactor: 1, logger });
    topics.push(topic, dlq);
    return { topic, dlq, group: `${topic}-group` };
  }

  function hostEnv(t: { topic: string; dlq: string; group: string }, delayMs = 0): Record<string, string> {
    return {
      KAFKA_BROKERS: config.kafkaBrokers.join(','),
      DATABASE_URL: config.databaseUrl,
      LEDGER_TOPIC: t.topic,
      LEDGER_DLQ_TOPIC: t.dlq,
      LEDGER_GROUP: t.group,
      LEDGER_DELAY_MS: String(delayMs),
    };
  }

  /** Sends seq from..to for every key, one round per seq, so each key's order is the send order. */
  async function publish(
    topic: string,
    keys: string[],
    from: number,
    to: number,
    pauseMs = 0,
  ): Promise<void> {
    for (let seq = from; seq <= to; seq++) {
      if (pauseMs > 0) await sleep(pauseMs);
      await producer.send(
        topic,
        codec,
        keys.map((key) => ({ key, value: { seq } })),
      );
    }
  }

  async function appliedCount(topic: string): Promise<number> {
    const row = await db('ledger_applied').where({ topic }).count<{ count: string }[]>({ count: '*' });
    return Number(row[0]!.count);
  }

  /** A host in this process, retrying quickly, dead-lettering to the topic's DLQ. */
  function inProcessHost(
    t: { group: string; topic: string; dlq: string },
    kind: ActorKind<LedgerCommand>,
    registry: Registry,
  ) {
    return createActorHost<LedgerCommand>({
      kafka,
      groupId: t.group,
      topic: t.topic,
      codec,
      kind,
      deadLetters: createKafkaDeadLetterSink(producer, t.dlq, deadLetterCodec),
      logger,
      registry,
      retry: { initialMs: 10, maxMs: 50 },
    });
  }

  /** Waits until `keys.length × n` records are applied, then checks them as below. */
  async function expectAllAppliedOnce(
    topic: string,
    keys: string[],
    n: number,
    timeoutMs: number,
    label = `${keys.length * n} applications`,
  ): Promise<void> {
    await waitUntil(label, async () => (await appliedCount(topic)) >= keys.length * n, timeoutMs);
    await expectExactlyOnceInOrder(topic, keys, n);
  }

  /** Every key holds seq 1..n exactly once, never out of order. */
  async function expectExactlyOnceInOrder(topic: string, keys: string[], n: number): Promise<void> {
    const dupes = await db('ledger_applied')
      .where({ topic })
      .groupBy('key', 'seq')
      .havingRaw('count(*) > 1')
      .select('key', 'seq');
    expect(dupes, 'records applied twice').to.deep.equal([]);
    const violations = await db('ledger_violations').where({ topic }).select('key', 'expected', 'got');
    expect(violations, 'out-of-order applications').to.deep.equal([]);
    const fenced = await db('ledger_fenced').where({ topic }).select('key', 'host', 'kafka_offset');
    expect(fenced, 'writes by a stale owner (two writers for one key)').to.deep.equal([]);
    const perKey = await db('ledger_applied')
      .where({ topic })
      .groupBy('key')
      .select('key')
      .count<{ key: string; count: string }[]>({ count: '*' })
      .min({ min: 'seq' })
      .max({ max: 'seq' });
    expect(perKey).to.have.length(keys.length);
    for (const row of perKey as unknown as Array<{ key: string; count: string; min: number; max: number }>) {
      expect([Number(row.count), row.min, row.max], row.key).to.deep.equal([n, 1, n]);
    }
  }

  async function hostsApplied(topic: string): Promise<Record<string, number>> {
    const rows = await db('ledger_applied')
      .where({ topic })
      .groupBy('host')
      .select<Array<{ host: string; count: string }>>('host', db.raw('count(*) as count'));
    return Object.fromEntries(rows.map((r) => [r.host, Number(r.count)]));
  }

  it('keeps per-key order with 3 hosts sharing the partitions', async () => {
    const t = await newTopic();
    hosts = ['a', 'b', 'c'].map((n) => spawnHost(`order-${n}`, hostEnv(t)));
    await waitUntil(
      '3 hosts to share 12 partitions',
      () => coversAll(hosts, PARTITIONS) && hosts.every((h) => h.partitions.length > 0),
      60_000,
    );
    const keys = Array.from({ length: 48 }, (_, i) => `key-${i}`);
    await publish(t.topic, keys, 1, 100);
    await expectAllAppliedOnce(t.topic, keys, 100, 60_000);
    const byHost = await hostsApplied(t.topic);
    expect(Object.keys(byHost), 'every host did part of the work').to.have.length(3);
  });

  it('loses no record and applies none twice when a host is SIGKILLed mid-stream', async () => {
    const t = await newTopic();
    hosts = ['a', 'b', 'c'].map((n) => spawnHost(`kill-${n}`, hostEnv(t, 2)));
    await waitUntil(
      '3 hosts to share 12 partitions',
      () => coversAll(hosts, PARTITIONS) && hosts.every((h) => h.partitions.length > 0),
      60_000,
    );
    const keys = Array.from({ length: 60 }, (_, i) => `key-${i}`);
    const total = keys.length * 150;
    const publishing = publish(t.topic, keys, 1, 150);
    const victim = hosts[1]!;
    await waitUntil(
      'a third of the records applied',
      async () => (await appliedCount(t.topic)) >= total / 3,
      60_000,
    );
    victim.kill('SIGKILL');
    await publishing;
    await waitUntil('survivors to take over every partition', () => coversAll(hosts, PARTITIONS), 60_000);
    await expectAllAppliedOnce(t.topic, keys, 150, 90_000);
    const byHost = await hostsApplied(t.topic);
    expect(byHost[victim.name], 'the victim was working when it died').to.be.greaterThan(0);
    expect(byHost[victim.name], 'the victim died before finishing').to.be.lessThan(total);
  });

  it('with deferred commits (commitIntervalMs): none lost or applied twice across a SIGKILL and a join, all committed after', async () => {
    const t = await newTopic();
    const env = { ...hostEnv(t, 2), LEDGER_COMMIT_INTERVAL_MS: '500' };
    hosts = ['a', 'b'].map((n) => spawnHost(`deferred-${n}`, env));
    await waitUntil('2 hosts to share 12 partitions', () => coversAll(hosts, PARTITIONS), 60_000);
    const keys = Array.from({ length: 40 }, (_, i) => `key-${i}`);
    const total = keys.length * 100;
    const publishing = publish(t.topic, keys, 1, 100);
    await waitUntil('a third applied', async () => (await appliedCount(t.topic)) >= total / 3, 60_000);
    hosts[0]!.kill('SIGKILL');
    hosts.push(spawnHost('deferred-c', env));
    await publishing;
    await waitUntil('survivors to take over every partition', () => coversAll(hosts, PARTITIONS), 60_000);
    await expectAllAppliedOnce(t.topic, keys, 100, 90_000);
    // What was applied is committed within the interval, though no record follows it.
    const ends = await admin.fetchTopicOffsets(t.topic);
    await waitUntil(
      'the group to commit every partition to its end',
      async () => {
        const [committed] = await admin.fetchOffsets({ groupId: t.group, topics: [t.topic] });
        return ends.every(
          (e) => committed!.partitions.find((c) => c.partition === e.partition)?.offset === e.high,
        );
      },
      10_000,
    );
  });

  it('rebalances without loss when a host joins mid-stream', async () => {
    const t = await newTopic();
    const first = spawnHost('join-a', hostEnv(t, 3));
    hosts = [first];
    await waitUntil(
      'the first host to own all 12 partitions',
      () => first.partitions.length === PARTITIONS,
      60_000,
    );
    const keys = Array.from({ length: 40 }, (_, i) => `key-${i}`);
    const total = keys.length * 120;
    // Paced so the second host joins while records are still arriving: the second half is held
    // back until it has joined (a slow start must not let the stream end first), then follows.
    let second: HostProcess | undefined;
    const publishing = (async () => {
      await publish(t.topic, keys, 1, 60, 100);
      await waitUntil('the second host to join', () => (second?.joins ?? 0) > 0, 60_000);
      await publish(t.topic, keys, 61, 120, 100);
    })();
    await waitUntil(
      'a quarter of the records applied',
      async () => (await appliedCount(t.topic)) >= total / 4,
      60_000,
    );
    second = spawnHost('join-b', hostEnv(t, 3));
    hosts.push(second);
    await waitUntil('the second host to join', () => second!.joins > 0, 60_000);
    const appliedAtJoin = await appliedCount(t.topic);
    expect(appliedAtJoin, 'the join happened mid-stream').to.be.lessThan(total);
    await waitUntil(
      'the partitions to be split between both hosts',
      () =>
        coversAll(hosts, PARTITIONS) && second.partitions.length > 0 && first.partitions.length < PARTITIONS,
      60_000,
    );
    expect(first.joins, 'the first host rejoined the group').to.be.greaterThan(1);
    await publishing;
    await expectAllAppliedOnce(t.topic, keys, 120, 90_000);
    const byHost = await hostsApplied(t.topic);
    expect(byHost['join-b'], 'the joining host took over work').to.be.greaterThan(0);
  });

  it('keeps its partitions while a key retries for longer than the session timeout', async () => {
    const t = await newTopic();
    const env = {
      ...hostEnv(t),
      LEDGER_SESSION_MS: '6000',
      LEDGER_FAIL_KEY: 'key-3',
      LEDGER_FAIL_UNTIL_MS: String(Date.now() + 15_000),
    };
    hosts = ['a', 'b'].map((n) => spawnHost(`stuck-${n}`, env));
    await waitUntil(
      '2 hosts to share 12 partitions',
      () => coversAll(hosts, PARTITIONS) && hosts.every((h) => h.partitions.length > 0),
      60_000,
    );
    const joinsBefore = hosts.map((h) => h.joins);
    const keys = Array.from({ length: 8 }, (_, i) => `key-${i}`);
    await publish(t.topic, keys, 1, 20);
    await expectAllAppliedOnce(t.topic, keys, 20, 60_000, 'every record applied once key-3 recovers');
    expect(
      hosts.map((h) => h.joins),
      'no rebalance while the key was retrying',
    ).to.deep.equal(joinsBefore);
    const firstApplied = await db('ledger_applied').where({ topic: t.topic, key: 'key-3', seq: 1 }).first();
    expect(
      new Date(firstApplied.applied_at).getTime(),
      'key-3 really waited past the session timeout',
    ).to.be.greaterThan(Number(env.LEDGER_FAIL_UNTIL_MS) - 1000);
  });

  it('reports the lag of the partitions it owns only: a partition taken by a joining host leaves its gauge', async () => {
    const t = await newTopic();
    const lagged = async (registry: Registry) => {
      const values = (await registry.getSingleMetric('lattice_actor_lag_records')!.get()).values;
      for (const v of values) expect(v.labels).to.include({ group: t.group, topic: t.topic });
      return values.map((v) => Number(v.labels.partition)).sort((a, b) => a - b);
    };
    const owned = (host: { assignedPartitions(): number[] }) =>
      [...host.assignedPartitions()].sort((a, b) => a - b);
    const all = Array.from({ length: PARTITIONS }, (_, p) => p);
    const first = new Registry();
    const second = new Registry();
    const a = inProcessHost(t, createLedgerKind({ db, topic: t.topic, host: 'lag-a' }), first);
    const b = inProcessHost(t, createLedgerKind({ db, topic: t.topic, host: 'lag-b' }), second);
    // The gauge is read from the broker at each scrape (bounded at 3 s; a slow answer leaves the
    // scrape without it), so each expectation polls rather than trusting one scrape.
    const lagShows = async (registry: Registry, expected: () => number[]) =>
      JSON.stringify(await lagged(registry)) === JSON.stringify(expected());
    await a.start();
    try {
      await waitUntil('the first host to own every partition', () => owned(a).length === PARTITIONS, 30_000);
      await waitUntil('the first host’s lag on every partition', () => lagShows(first, () => all), 30_000);
      await b.start();
      await waitUntil(
        'the partitions to be shared',
        () => owned(a).length > 0 && owned(b).length > 0 && owned(a).length + owned(b).length === PARTITIONS,
        30_000,
      );
      await waitUntil(
        'each host’s lag on its own partitions',
        async () => {
          return (await lagShows(first, () => owned(a))) && (await lagShows(second, () => owned(b)));
        },
        30_000,
      );
      await b.stop();
      expect(await lagged(second), 'a stopped host reports nothing').to.deep.equal([]);
      await waitUntil(
        'the first host to own every partition again',
        () => owned(a).length === PARTITIONS,
        30_000,
      );
      await waitUntil(
        'the first host’s lag on every partition again',
        () => lagShows(first, () => all),
        30_000,
      );
    } finally {
      await b.stop().catch(() => undefined);
      await a.stop();
    }
  });

  it('retries a failing load in place (database down) and stays healthy', async () => {
    const t = await newTopic();
    const registry = new Registry();
    const ledger = createLedgerKind({ db, topic: t.topic, host: 'inproc-load' });
    let failuresLeft = 3;
    const kind = {
      name: 'ledger',
      load: async (key: string, partition: number) => {
        if (failuresLeft-- > 0) throw new Error('connect ECONNREFUSED 127.0.0.1:5432');
        return ledger.load(key, partition);
      },
    };
    const host = inProcessHost(t, kind, registry);
    await host.start();
    try {
      await publish(t.topic, ['k'], 1, 5);
      await expectAllAppliedOnce(t.topic, ['k'], 5, 30_000, 'seq 1..5 applied');
      expect(host.healthy()).to.equal(true);
      const errors = await registry.getSingleMetricAsString('lattice_actor_handler_errors_total');
      // Counted as retries of the key: the failures were handled in place, not thrown to kafkajs.
      expect(errors).to.match(/kind="retryable"\} 3$/m);
    } finally {
      await host.stop();
    }
  });

  it('dead-letters undecodable and poison records, retries flaky ones, and keeps the key going', async () => {
    const t = await newTopic();
    const registry = new Registry();
    const host = inProcessHost(
      t,
      createLedgerKind({ db, topic: t.topic, host: 'inproc', poisonSeqs: [3], flakySeqs: [5] }),
      registry,
    );
    await host.start();
    try {
      const raw = kafka.producer();
      await raw.connect();
      await producer.send(
        t.topic,
        codec,
        [1, 2, 3].map((seq) => ({ key: 'k', value: { seq } })),
      );
      await raw.send({ topic: t.topic, messages: [{ key: 'k', value: Buffer.from('not avro') }] });
      await raw.disconnect();
      await producer.send(
        t.topic,
        codec,
        [4, 5, 6].map((seq) => ({ key: 'k', value: { seq } })),
      );
      await waitUntil('seq 1,2,4,5,6 applied', async () => (await appliedCount(t.topic)) >= 5, 30_000);
      const seqs = (await db('ledger_applied')
        .where({ topic: t.topic })
        .orderBy('kafka_offset')
        .pluck('seq')) as number[];
      expect(seqs).to.deep.equal([1, 2, 4, 5, 6]);

      const letters: DeadLetter[] = [];
      const consumer = kafka.consumer({ groupId: `${t.group}-dlq` });
      await consumer.connect();
      await consumer.subscribe({ topics: [t.dlq], fromBeginning: true });
      await consumer.run({
        eachMessage: async ({ message }) => void letters.push(deadLetterCodec.decode(message.value!)),
      });
      await waitUntil('two dead letters', () => letters.length >= 2, 30_000);
      await consumer.disconnect();
      // At-least-once: a letter may repeat after a crash; what counts is the distinct records.
      const distinct = new Map(letters.map((l) => [`${l.source_offset}:${l.error}`, l]));
      expect([...distinct.values()].map((l) => l.error).sort()).to.deep.equal([
        'lattice.test.LedgerCommand: not an Avro single-object encoded record',
        'seq 3 is poison',
      ]);
      expect(letters.every((l) => l.source_topic === t.topic && l.key === 'k')).to.equal(true);
      const raw3 = letters.find((l) => l.error === 'seq 3 is poison')!;
      expect(codec.decode(raw3.value!)).to.deep.include({ seq: 3 });

      const metrics = await registry.getSingleMetricAsString('lattice_actor_handler_errors_total');
      expect(metrics).to.match(/kind="retryable"\} 1$/m);
      expect(metrics).to.match(/kind="decode"\} 1$/m);
      const joins = await registry.getSingleMetricAsString('lattice_actor_rebalances_total');
      expect(Number(/ (\d+)$/m.exec(joins)?.[1]), 'group joins counted').to.be.at.least(1);
    } finally {
      await host.stop();
    }
  });
});
