import { createLogger } from '@lattice/core';
import { expect } from 'chai';
import { partitionPlanKeys } from './keys.ts';
import { createRedisPartitionPlanStore } from './partition-plan-store.redis.ts';
import { useRedisTestSpace } from './testing/test-redis.ts';

const logger = createLogger({ name: 'plan-store-test', level: 'silent' });

describe('partition plan store (Redis)', () => {
  const space = useRedisTestSpace('plan-store-test', logger);
  const store = () => createRedisPartitionPlanStore(space.redis, space.prefix);

  it('keeps one plan per topic, the last written', async () => {
    const s = store();
    expect((await s.readPlans()).size).to.equal(0);
    await s.writePlan('a', { partitions: 12, version: 1, state: 'active' });
    await s.writePlan('b', { partitions: 6, version: 1, state: 'active' });
    await s.writePlan('a', { partitions: 12, version: 2, state: 'draining' });
    expect(Object.fromEntries(await s.readPlans())).to.deep.equal({
      a: { partitions: 12, version: 2, state: 'draining' },
      b: { partitions: 6, version: 1, state: 'active' },
    });
  });

  it('judges producers live by Redis’s clock: a heartbeat older than the lease is gone', async () => {
    const s = store();
    await s.heartbeat('p1');
    await s.heartbeat('p2');
    expect((await s.liveProducers(10_000)).sort()).to.deep.equal(['p1', 'p2']);
    // p2's last heartbeat moved 20 s into the past, as a process that stopped would leave it.
    const key = partitionPlanKeys(space.prefix).producers;
    const score = Number(await space.redis.zscore(key, 'p2'));
    await space.redis.zadd(key, score - 20_000, 'p2');
    expect(await s.liveProducers(10_000)).to.deep.equal(['p1']);
    await s.removeProducer('p1');
    expect(await s.liveProducers(10_000)).to.deep.equal([]);
  });

  it('collects acknowledgements per topic and version', async () => {
    const s = store();
    await s.acknowledge('a', 2, 'p1');
    await s.acknowledge('a', 2, 'p2');
    await s.acknowledge('a', 3, 'p1');
    expect((await s.acknowledged('a', 2)).sort()).to.deep.equal(['p1', 'p2']);
    expect(await s.acknowledged('a', 3)).to.deep.equal(['p1']);
    expect(await s.acknowledged('b', 2)).to.deep.equal([]);
  });
});
