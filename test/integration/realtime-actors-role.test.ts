// The actors role through its role module, as `lattice start actors` runs it: the channel actor
// kind registered and the realtime maintenance jobs on. A publish reaches history and fan-out,
// and an expired presence entry is swept into a leave event without any other command on its
// channel.
import { actorsRole, catalogTopicNames } from '@lattice/actors';
import { newId, parseSecretKeys, systemClock } from '@lattice/core';
import { testConfig } from '@lattice/core/testing';
import { metadataPlacement } from '@lattice/kafka';
import {
  channelCommandKey,
  createHistoryReader,
  createNamespacePolicyCache,
  presenceCommandRecord,
} from '@lattice/realtime';
import { expect } from 'chai';
import { Registry } from 'prom-client';
import {
  config,
  createRealtimeFixture,
  publishInOrder,
  RETAINING,
  type RealtimeFixture,
  subscribe,
  topOffset,
  waitFor,
} from './realtime/realtime-fixture.ts';

describe('actors role with the channel actor kind and realtime jobs', function () {
  this.timeout(120_000);
  let f: RealtimeFixture;
  let role: { close(): Promise<void> } | undefined;

  before(async () => {
    f = await createRealtimeFixture('rt-role');
    await f.namespaces.put(f.productId, 'chat', RETAINING);
  });
  after(async () => {
    await role?.close();
    const others = catalogTopicNames(f.topicPrefix).filter((t) => t !== f.topic && t !== f.dlq);
    await f.admin.deleteTopics({ topics: others }).catch(() => undefined);
    await f?.close();
  });

  it('applies publishes and sweeps expired presence, as registered by the CLI', async () => {
    role = await actorsRole.start(
      {
        ...actorsRole.configOf(config),
        kafkaTopicPrefix: f.topicPrefix,
        redisKeyPrefix: f.redisKeyPrefix,
        presenceSweepIntervalMs: 200,
        historyPurgeIntervalMs: 60_000,
        maintenanceProductIds: [f.productId],
      },
      {
        db: f.db,
        logger: f.logger,
        registry: new Registry(),
        clock: systemClock,
        redis: () => f.redis,
        kafka: () => f.kafka,
        placement: () => metadataPlacement,
        secretKeys: parseSecretKeys(testConfig().secretKeys),
      },
    );
    const id = f.id('chat:general');
    const sub = await subscribe(f, [id]);
    try {
      await publishInOrder(f, id, [{ text: 'one' }, { text: 'two' }]);
      await f.producer.send(f.topic, f.codec, [
        {
          key: channelCommandKey(id),
          value: presenceCommandRecord(id, newId(), Date.now(), {
            action: 'enter',
            connectionId: 'role-c1',
            identity: 'ext:ann',
            ttlSeconds: 1,
            gatewayId: 'gw',
          }),
        },
      ]);
      await waitFor('offset 2', async () => (await topOffset(f, id)) === 2, 60_000);
      const reader = createHistoryReader({
        db: f.db,
        policies: createNamespacePolicyCache({ repository: f.namespaces }),
      });
      const answer = await reader.read({ ...id, window: { lastN: 10 }, nowMs: Date.now() });
      expect('data' in answer && answer.data.map((e) => e.data)).to.deep.equal([
        { text: 'one' },
        { text: 'two' },
      ]);
      // Nothing else reaches the channel: only the sweep can turn the expiry into a leave.
      await waitFor('the swept leave event', () => sub.on(id).some((m) => m.action === 'leave'), 30_000);
      expect(
        sub.on(id).map((m) => (m.type === 'publication' ? m.offset : `${m.action}:${m.identity}`)),
      ).to.deep.equal([1, 2, 'join:ext:ann', 'leave:ext:ann']);
    } finally {
      await sub.close();
    }
  });
});
