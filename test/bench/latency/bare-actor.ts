// bare-pipeline, part (b): a kafkajs consumer whose eachBatch inserts the batch into a
// PostgreSQL table in one statement (unnest of arrays), then PUBLISHes each record to Redis on
// its channel's Redis channel (one ioredis connection with auto-pipelining: a batch's PUBLISHes
// leave in one write), and returns; kafkajs then resolves the batch and commits its offsets
// (autoCommit, its default). The message PUBLISHed is the push the subscribers get,
// `{"push":"message","channel","data"}`, built once per record. Nothing else: no offsets of its
// own, no epochs, no replay checks.
import { Redis } from 'ioredis';
import { Kafka, logLevel } from 'kafkajs';
import pg from 'pg';
import { runBareChild } from './bare-child.ts';

runBareChild(async (args) => {
  const kafka = new Kafka({
    clientId: 'bench-bare-actor',
    brokers: args.kafkaBrokers,
    logLevel: logLevel.ERROR,
  });
  const consumer = kafka.consumer({ groupId: args.groupId, allowAutoTopicCreation: false });
  const db = new pg.Pool({ connectionString: args.databaseUrl, max: args.partitionsConcurrency });
  const redis = new Redis(args.redisUrl, { enableAutoPipelining: true, connectionName: 'bench-bare-actor' });
  const insert = `INSERT INTO ${args.table} (channel, data, kafka_partition, kafka_offset)
    SELECT * FROM unnest($1::text[], $2::text[], $3::int[], $4::bigint[])`;

  const joined = new Promise<void>((resolve) => consumer.on(consumer.events.GROUP_JOIN, () => resolve()));
  await consumer.connect();
  await consumer.subscribe({ topic: args.topic, fromBeginning: true });
  await consumer.run({
    partitionsConsumedConcurrently: args.partitionsConcurrency,
    eachBatch: async ({ batch }) => {
      const n = batch.messages.length;
      if (n === 0) return;
      const channels = new Array<string>(n);
      const data = new Array<string>(n);
      const offsets = new Array<string>(n);
      for (let i = 0; i < n; i++) {
        const m = batch.messages[i]!;
        channels[i] = m.key?.toString() ?? '';
        data[i] = m.value?.toString() ?? 'null';
        offsets[i] = m.offset;
      }
      await db.query(insert, [channels, data, new Array<number>(n).fill(batch.partition), offsets]);
      await Promise.all(
        channels.map((channel, i) =>
          redis.publish(
            `${args.redisPrefix}${channel}`,
            `{"push":"message","channel":${JSON.stringify(channel)},"data":${data[i]}}`,
          ),
        ),
      );
    },
  });
  await joined;
  return {
    url: null,
    async stop() {
      await consumer.disconnect();
      await db.end();
      await redis.quit();
    },
  };
});
