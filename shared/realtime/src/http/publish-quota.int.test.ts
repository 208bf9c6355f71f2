// Grouped counting of the publish quota stays exact at the hard limit.
import { createLogger } from '@lattice/core';
import { testConfig, uniqueName } from '@lattice/core/testing';
import { closeRedis, createRedis } from '@lattice/redis';
import { createDb } from '@lattice/store';
import { expect } from 'chai';
import type { Redis } from 'ioredis';
import { createPublishQuotaLimiter, DEFAULT_PUBLISH_QUOTA } from './publish-quota.ts';
import { startRealtimeHttpRuntime } from './realtime-http-runtime.ts';

describe('publish quota (Redis): grouped counting', () => {
  const config = testConfig();
  const logger = createLogger({ name: 't', level: 'silent' });
  let redis: Redis;

  before(() => {
    redis = createRedis({ url: config.redisUrl, logger, name: 'quota-test' });
  });
  after(() => closeRedis(redis));

  it('admits exactly the hard limit of concurrent publishes, each with its own count', async () => {
    const quota = createPublishQuotaLimiter({
      redis,
      keyPrefix: `${uniqueName('quota')}:`,
      logger,
      quota: { sustainedPerSecond: 0, windowMs: 60_000, burstPerWindow: 3, hardLimitPerWindow: 10 },
    });
    const burst = () =>
      Promise.all(
        Array.from({ length: 7 }, () => quota.consume('00000000-0000-4000-8000-000000000000', 'production')),
      );
    const outcomes = [...(await burst()), ...(await burst())];
    expect(outcomes.map((o) => o.result.allowed)).to.deep.equal([
      ...Array<boolean>(10).fill(true),
      ...Array<boolean>(4).fill(false),
    ]);
    expect(outcomes.slice(0, 10).map((o) => o.result.count)).to.deep.equal([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(outcomes.slice(0, 10).map((o) => o.result.remaining)).to.deep.equal([
      9, 8, 7, 6, 5, 4, 3, 2, 1, 0,
    ]);
    expect(outcomes.map((o) => o.overSustained).filter(Boolean)).to.have.length(7);
  });

  it('a runtime counts with the deployment’s numbers (REALTIME_PUBLISH_*), the defaults for the rest', async () => {
    const deployment = testConfig({ publishQuota: { hardLimitPerWindow: 7 } });
    const db = createDb({ databaseUrl: deployment.databaseUrl, logger });
    const runtime = startRealtimeHttpRuntime({
      config: deployment,
      db,
      logger,
      name: uniqueName('quota-rt'),
    });
    try {
      expect(runtime.http.quota).to.deep.equal({ ...DEFAULT_PUBLISH_QUOTA, hardLimitPerWindow: 7 });
    } finally {
      await runtime.close();
      await db.destroy();
    }
  });
});
