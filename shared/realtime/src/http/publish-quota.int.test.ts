// Grouped counting of the publish quota stays exact at the hard limit, and is counted.
import { createLogger, parseSecretKeys, systemClock } from '@lattice/core';
import { ManualClock, testConfig, uniqueName } from '@lattice/core/testing';
import { createKafka, metadataPlacement } from '@lattice/kafka';
import { closeRedis, createRedis } from '@lattice/redis';
import { createDb } from '@lattice/store';
import { expect } from 'chai';
import type { Redis } from 'ioredis';
import { Registry } from 'prom-client';
import { createPayloadStoreRegistry } from '../payload/payload-registry.ts';
import { createFilesystemPayloadStore } from '../payload/payload-store.fs.ts';
import { recordingPublishQuotaMetrics } from '../testing.ts';
import { createPublishQuotaLimiter, DEFAULT_PUBLISH_QUOTA } from './publish-quota.ts';
import { realtimeHttpMetrics } from './realtime-http-metrics.ts';
import { realtimeHttpSettingsOf, startRealtimeHttpRuntime } from './realtime-http-runtime.ts';

describe('publish quota (Redis): grouped counting', () => {
  const config = testConfig();
  const logger = createLogger({ name: 't', level: 'silent' });
  let redis: Redis;

  before(() => {
    redis = createRedis({ url: config.redisUrl, logger, name: 'quota-test' });
  });
  after(() => closeRedis(redis));

  it('admits exactly the hard limit of concurrent publishes, each with its own count', async () => {
    const { metrics, seen } = recordingPublishQuotaMetrics();
    const quota = createPublishQuotaLimiter({
      redis,
      keyPrefix: `${uniqueName('quota')}:`,
      logger,
      quota: { sustainedPerSecond: 0, windowMs: 60_000, burstPerWindow: 3, hardLimitPerWindow: 10 },
      metrics,
      // A busy machine's pause is no outage here (as testConfig's rateLimitRedisTimeoutMs).
      redisTimeoutMs: 5000,
      // Mid-window and still: a window boundary between the two bursts would reset the count.
      clock: new ManualClock(Math.floor(Date.now() / 60_000) * 60_000 + 30_000),
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
    expect(seen.overSustained).to.have.length(7);
    expect(seen.fallbacks).to.equal(0);
  });

  it('counts its local answers while Redis is unreachable, and the publishes beyond the soft budget', async () => {
    // Nothing listens on port 1: every count fails at once and the local limiter answers.
    const down = createRedis({ url: 'redis://127.0.0.1:1', logger, name: 'quota-test-down' });
    const registry = new Registry();
    try {
      const quota = createPublishQuotaLimiter({
        redis: down,
        keyPrefix: `${uniqueName('quota')}:`,
        logger,
        quota: { sustainedPerSecond: 0, windowMs: 60_000, burstPerWindow: 1, hardLimitPerWindow: 3 },
        metrics: realtimeHttpMetrics(registry),
      });
      const product = '00000000-0000-4000-8000-000000000000';
      for (let i = 0; i < 4; i++) await quota.consume(product, 'development');
      const text = await registry.metrics();
      expect(text).to.match(/^lattice_realtime_publish_quota_fallbacks_total 4$/m);
      expect(text).to.match(
        /^lattice_realtime_publishes_over_sustained_total\{environment="development"\} 2$/m,
      );
    } finally {
      await closeRedis(down);
    }
  });

  it('a runtime counts with the deployment’s numbers (REALTIME_PUBLISH_*), the defaults for the rest', async () => {
    const deployment = testConfig({ publishQuota: { hardLimitPerWindow: 7 } });
    const db = createDb({ databaseUrl: deployment.databaseUrl, logger });
    const runtime = startRealtimeHttpRuntime(realtimeHttpSettingsOf(deployment), {
      db,
      logger,
      keyring: parseSecretKeys(testConfig().secretKeys),
      redis,
      subscriber: () => {
        throw new Error('nothing waits for an offset in this test');
      },
      kafka: createKafka({ brokers: deployment.kafkaBrokers, clientId: uniqueName('quota-rt'), logger }),
      placement: metadataPlacement,
      payloads: createPayloadStoreRegistry({
        store: createFilesystemPayloadStore({ dir: deployment.dataDir }),
      }),
      metrics: realtimeHttpMetrics(new Registry()),
      clock: systemClock,
    });
    try {
      expect(runtime.http.quota).to.deep.equal({ ...DEFAULT_PUBLISH_QUOTA, hardLimitPerWindow: 7 });
    } finally {
      await runtime.close();
      await db.destroy();
    }
  });
});
