// `lattice topics`: create the catalog's topics; `lattice topics scale NAME --partitions N`: grow
// one while the platform runs (partition-scaling.ts). Progress goes to standard error; the last
// line on standard output is `{"topic", "from", "to"}` (decisions.md "Operations").
import { createCatalogTopics } from '@lattice/actors';
import { createKafka, ScaleRefused, scalePartitions, TOPIC_CATALOG, topicName } from '@lattice/kafka';
import { closeRedis, createRedis, createRedisPartitionPlanStore } from '@lattice/redis';
import type { CommandContext } from '../context.ts';

export async function runTopics({ config, logger }: CommandContext): Promise<number> {
  const kafka = createKafka({
    brokers: config.kafkaBrokers,
    clientId: `${config.kafkaClientId}-cli`,
    logger,
  });
  const created = await createCatalogTopics(config, kafka, logger);
  console.log(created.length === 0 ? 'all topics exist' : `created ${created.join(', ')}`);
  return 0;
}

const CATALOG_NAMES: readonly string[] = Object.values(TOPIC_CATALOG).map((t) => t.name);

export async function runTopicsScale(
  { config, logger }: CommandContext,
  name: string | undefined,
  partitions: string | undefined,
): Promise<number> {
  if (!name || !CATALOG_NAMES.includes(name) || partitions === undefined || !/^\d+$/.test(partitions)) {
    console.error(
      `usage: lattice topics scale NAME --partitions N\n  NAME: one of ${CATALOG_NAMES.join(', ')}`,
    );
    return 2;
  }
  const kafka = createKafka({
    brokers: config.kafkaBrokers,
    clientId: `${config.kafkaClientId}-scale`,
    logger,
  });
  const admin = kafka.admin();
  const redis = createRedis({ url: config.redisUrl, logger, name: 'lattice-topics-scale' });
  try {
    await admin.connect();
    const outcome = await scalePartitions({
      admin,
      store: createRedisPartitionPlanStore(redis, config.redisKeyPrefix),
      topic: topicName(config.kafkaTopicPrefix, name),
      partitions: Number(partitions),
      leaseMs: config.partitionPlanLeaseMs,
      progress: (line) => console.error(`lattice: ${line}`),
    });
    console.log(JSON.stringify({ topic: name, from: outcome.from, to: outcome.to }));
    return 0;
  } catch (err) {
    if (!(err instanceof ScaleRefused)) throw err;
    console.error(`lattice: ${err.message}`);
    return 1;
  } finally {
    await admin.disconnect();
    await closeRedis(redis);
  }
}
