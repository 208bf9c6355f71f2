// The consumer lag of every actor group of the run as the broker sees it (high watermark minus
// committed offset, summed over the partitions of each group's topics), what a lag exporter
// outside the platform shows. Unlike the hosts' own gauge (`lattice_actor_lag_records`, the
// partitions a live host owns), it keeps counting the partitions of a killed host until their
// new owner has caught up.
import type { Logger } from '@lattice/core';
import { createKafka } from '@lattice/kafka';
import type { Admin } from 'kafkajs';

export interface GroupLag {
  /** Lag per group, named by its actor kind (`channel`, `mail-sender`, …). */
  read(): Promise<Record<string, number>>;
  close(): Promise<void>;
}

export async function groupLag(brokers: string[], prefix: string, logger: Logger): Promise<GroupLag> {
  const admin: Admin = createKafka({ brokers, clientId: 'soak-lag', logger }).admin();
  await admin.connect();
  const groupPrefix = `${prefix}lattice-actors.`;
  return {
    async read() {
      const groups = (await admin.listGroups()).groups
        .map((g) => g.groupId)
        .filter((g) => g.startsWith(groupPrefix));
      const lag: Record<string, number> = {};
      const ends = new Map<string, Promise<Array<{ partition: number; high: string; low: string }>>>();
      for (const groupId of groups) {
        let total = 0;
        for (const t of await admin.fetchOffsets({ groupId })) {
          if (!ends.has(t.topic)) ends.set(t.topic, admin.fetchTopicOffsets(t.topic));
          const byPartition = new Map((await ends.get(t.topic)!).map((e) => [e.partition, e]));
          for (const p of t.partitions) {
            const end = byPartition.get(p.partition);
            if (!end) continue;
            const from = BigInt(p.offset) < 0n ? BigInt(end.low) : BigInt(p.offset);
            const high = BigInt(end.high);
            total += Number(high > from ? high - from : 0n);
          }
        }
        lag[groupId.slice(groupPrefix.length)] = total;
      }
      return lag;
    },
    close: () => admin.disconnect(),
  };
}
