// The bare arm of the publish benchmark: a kafkajs producer group-committing as Lattice does
// (bare-group-commit.ts) and a kafkajs consumer on the same broker, nothing else. The same
// concurrency, keys and count as the e2e arm, into a fresh topic of as many partitions.
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { newId, sleep } from '@lattice/core';
import { loadCodec, REQUEST_ID_HEADER, TOPIC_CATALOG } from '@lattice/kafka';
import { type ChannelCommandRecord, channelCommandKey, publishCommandRecord } from '@lattice/realtime';
import type { Kafka } from 'kafkajs';
import { bareGroupCommit } from './bare-group-commit.ts';
import { measure } from './measure.ts';
import type { Round } from './report.ts';

export interface BareSettings {
  messages: number;
  concurrency: number;
  channels: number;
  rounds: number;
  partitions: number;
}

/**
 * The bare loop's records are the size of the e2e arm's: the key is the channel command key of
 * the same channel, the value is padded to the size of the encoded Publish command the edge
 * produces for the same body, and each carries a request id header as the edge's records do (so
 * neither arm moves fewer bytes through the broker). The pad is measured once, outside the
 * timed loop.
 */
function bareRecords(s: BareSettings, productId: string, round: number) {
  const idOf = (i: number) => ({
    productId,
    environment: 'production' as const,
    channel: `bench:r${round}-c${i % s.channels}`,
  });
  const codec = loadCodec<ChannelCommandRecord>(TOPIC_CATALOG.channelCommands.schema);
  const sample = s.messages - 1;
  const encoded = codec.encode(
    publishCommandRecord({
      id: idOf(sample),
      commandId: newId(),
      messageId: newId(),
      name: null,
      data: { json: JSON.stringify({ i: sample, text: 'hello' }) },
      publisher: newId(),
      idempotencyKey: null,
      issuedAtMs: Date.now(),
    }),
  ).length;
  const pad = 'x'.repeat(Math.max(0, encoded - JSON.stringify({ i: sample, text: 'hello', pad: '' }).length));
  return (i: number) => ({
    key: channelCommandKey(idOf(i)),
    value: JSON.stringify({ i, text: 'hello', pad }),
    headers: { [REQUEST_ID_HEADER]: randomUUID() },
  });
}

export async function bareRound(
  s: BareSettings,
  round: number,
  kafka: Kafka,
  topicPrefix: string,
  productId: string,
  log: (line: string) => void,
): Promise<Round> {
  const n = s.messages;
  const label = `bare ${round}/${s.rounds}`;
  const topic = `${topicPrefix}bare-${round}`;
  const admin = kafka.admin();
  await admin.connect();
  await admin.createTopics({
    waitForLeaders: true,
    topics: [{ topic, numPartitions: s.partitions, replicationFactor: 1 }],
  });
  const latencies = new Float64Array(n);
  const sentAt = new Float64Array(n);
  let received = 0;
  const consumer = kafka.consumer({ groupId: `${topic}-group`, maxWaitTimeInMs: 100 });
  await consumer.connect();
  await consumer.subscribe({ topics: [topic], fromBeginning: true });
  let joined = false;
  consumer.on(consumer.events.GROUP_JOIN, () => {
    joined = true;
  });
  await consumer.run({
    eachMessage: async ({ message }) => {
      const { i } = JSON.parse(message.value!.toString()) as { i: number };
      latencies[received++] = performance.now() - sentAt[i]!;
    },
  });
  while (!joined) await sleep(20);
  const producer = await bareGroupCommit(kafka, topic);
  const recordOf = bareRecords(s, productId, round);
  try {
    const measured = await measure({
      label,
      messages: n,
      concurrency: s.concurrency,
      send: async (i) => {
        const record = recordOf(i);
        sentAt[i] = performance.now();
        await producer.send(record);
      },
      received: () => received,
      latencies,
      log,
    });
    return {
      label,
      ...measured,
      cpuUsPerMessage: Number.NaN,
      edgeCpuUs: Number.NaN,
      actorsCpuUs: Number.NaN,
      edgeLogBytes: Number.NaN,
      actorsLogBytes: Number.NaN,
      recordsPerRequest: n / producer.requests(),
    };
  } finally {
    await producer.close();
    await consumer.disconnect();
    await admin.deleteTopics({ topics: [topic] }).catch(() => undefined);
    await admin.disconnect();
  }
}
