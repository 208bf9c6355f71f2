// Channel actors on real Kafka (12 partitions), PostgreSQL and Redis, in three child processes:
// 20 channels × 500 messages published concurrently by several producers while one host is
// SIGKILLed midway. Afterwards every channel's history holds offsets 1..500 exactly once, in
// publish order, under one epoch: nothing lost, nothing applied twice.
import { noteInTestLog } from '@lattice/core/testing';
import { createRecordProducer, type RecordProducer } from '@lattice/kafka';
import { expect } from 'chai';
import {
  coversAll,
  type HostProcess,
  spawnChannelHost,
  stopAll,
  waitUntil,
} from './realtime/channel-hosts.ts';
import {
  config,
  createRealtimeFixture,
  PARTITIONS,
  publishInOrder,
  RETAINING,
  type RealtimeFixture,
} from './realtime/realtime-fixture.ts';

const CHANNELS = 20;
const MESSAGES = 500;
const PRODUCERS = 4;

describe('channel actors: 3 hosts, one SIGKILLed midway (real Kafka, PostgreSQL, Redis)', function () {
  this.timeout(240_000);
  let f: RealtimeFixture;
  let hosts: HostProcess[] = [];
  const producers: RecordProducer[] = [];

  before(async () => {
    f = await createRealtimeFixture('rt-kill');
    await f.namespaces.put(f.productId, 'chat', RETAINING);
  });
  after(async () => {
    await stopAll(hosts);
    await Promise.all(producers.map((p) => p.disconnect()));
    await f?.close();
  });

  async function historyCount(): Promise<number> {
    const [row] = await f
      .db('channel_history')
      .where({ product_id: f.productId })
      .count<{ count: string }[]>({ count: '*' });
    return Number(row!.count);
  }

  it('keeps offsets 1..500 exactly once and in publish order on every channel', async () => {
    const env = {
      KAFKA_BROKERS: config.kafkaBrokers.join(','),
      DATABASE_URL: config.databaseUrl,
      REDIS_URL: config.redisUrl,
      REDIS_KEY_PREFIX: f.redisKeyPrefix,
      RT_TOPIC: f.topic,
      RT_DLQ_TOPIC: f.dlq,
      RT_GROUP: f.group,
    };
    hosts = ['a', 'b', 'c'].map((n) => spawnChannelHost(`rt-kill-${n}`, env));
    await waitUntil(
      '3 hosts to share 12 partitions',
      () => coversAll(hosts, PARTITIONS) && hosts.every((h) => h.partitions.length > 0),
      60_000,
    );
    for (let i = 0; i < PRODUCERS; i++) producers.push(await createRecordProducer(f.kafka));
    const channels = Array.from({ length: CHANNELS }, (_, i) => f.id(`chat:room-${i}`));
    const startedMs = Date.now();
    // One publisher per channel, sending in order; the channels are spread over 4 producers.
    const publishing = Promise.all(
      channels.map((id, i) =>
        publishInOrder(
          f,
          id,
          Array.from({ length: MESSAGES }, (_, n) => ({ channel: id.channel, seq: n + 1 })),
          { perSend: 5, pauseMs: 40, producer: producers[i % PRODUCERS]! },
        ),
      ),
    );
    const total = CHANNELS * MESSAGES;
    const victim = hosts[1]!;
    await waitUntil(
      'a third of the messages in history',
      async () => (await historyCount()) >= total / 3,
      90_000,
    );
    victim.kill('SIGKILL');
    const atKill = await historyCount();
    const messageIds = await publishing;
    const publishedMs = Date.now() - startedMs;
    expect(atKill, 'the kill happened midway').to.be.lessThan(total);
    await waitUntil('the survivors to own every partition', () => coversAll(hosts, PARTITIONS), 60_000);
    await waitUntil(`${total} history rows`, async () => (await historyCount()) >= total, 120_000);
    const doneMs = Date.now() - startedMs;

    const rows = (await f
      .db('channel_history')
      .where({ product_id: f.productId })
      .orderBy([{ column: 'channel' }, { column: 'offset' }])
      .select('channel', 'offset', 'epoch', 'message_id', 'data_json')) as Array<{
      channel: string;
      offset: string;
      epoch: string;
      message_id: string;
      data_json: string;
    }>;
    expect(rows).to.have.length(total);
    const states = (await f
      .db('channel_state')
      .where({ product_id: f.productId })
      .select('channel', 'epoch', 'top_offset')) as Array<{
      channel: string;
      epoch: string;
      top_offset: string;
    }>;
    expect(states).to.have.length(CHANNELS);
    for (const [i, id] of channels.entries()) {
      const mine = rows.filter((r) => r.channel === id.channel);
      const state = states.find((s) => s.channel === id.channel)!;
      expect(Number(state.top_offset), id.channel).to.equal(MESSAGES);
      expect(
        mine.map((r) => Number(r.offset)),
        `${id.channel}: offsets 1..${MESSAGES} exactly once`,
      ).to.deep.equal(Array.from({ length: MESSAGES }, (_, n) => n + 1));
      expect(
        mine.map((r) => (JSON.parse(r.data_json) as { seq: number }).seq),
        `${id.channel}: offset n carries the n-th message sent`,
      ).to.deep.equal(Array.from({ length: MESSAGES }, (_, n) => n + 1));
      expect(
        mine.map((r) => r.message_id),
        `${id.channel}: the publisher's ids in order`,
      ).to.deep.equal(messageIds[i]);
      expect(new Set(mine.map((r) => r.epoch)), `${id.channel}: one epoch`).to.deep.equal(
        new Set([state.epoch]),
      );
    }
    noteInTestLog(
      `${total} messages on ${CHANNELS} channels: published in ${publishedMs} ms, all in history after ${doneMs} ms; ` +
        `${atKill} were in history when ${victim.name} was killed`,
      { total, publishedMs, doneMs, atKill },
    );
  });
});
