// What an arm leaves behind, removed when it stops: its Kafka topics and consumer groups (by
// prefix) and its Redis keys (by prefix). The products and history rows a Lattice arm wrote stay
// in the benchmark database, as the other benchmarks' do.
import { createLogger } from '@lattice/core';
import { createKafka } from '@lattice/kafka';
import { Redis } from 'ioredis';

export async function deleteKafkaByPrefix(brokers: string[], prefix: string): Promise<void> {
  const logger = createLogger({ name: 'bench-latency-cleanup', level: 'error' });
  const admin = createKafka({ brokers, clientId: 'bench-latency-cleanup', logger }).admin();
  await admin.connect();
  try {
    const groups = (await admin.listGroups()).groups
      .map((g) => g.groupId)
      .filter((g) => g.startsWith(prefix));
    if (groups.length > 0) await admin.deleteGroups(groups).catch(() => undefined);
    const topics = (await admin.listTopics()).filter((t) => t.startsWith(prefix));
    if (topics.length > 0) await admin.deleteTopics({ topics });
  } finally {
    await admin.disconnect();
  }
}

export async function deleteRedisKeysByPrefix(redisUrl: string, prefix: string): Promise<void> {
  const redis = new Redis(redisUrl, { lazyConnect: true });
  await redis.connect();
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
      cursor = next;
      if (keys.length > 0) await redis.unlink(...keys);
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}
