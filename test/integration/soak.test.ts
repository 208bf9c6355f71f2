// The soak's short run (`npm run soak` runs it for 10 minutes): the whole platform as separate
// role processes (two actor hosts, two gateways, two edges, the management API, a Redis of its
// own) under publishes, subscribers, emails and webhook deliveries, while an actor host, a
// gateway, an edge and Redis are each killed and started again in turn. Then: nothing accepted
// lost in history, at a subscriber, at the smart host or at the webhook endpoint; no request hung
// or got an answer a client must never get; order and offsets intact; each kind of duplicate
// within its bound (test/soak/verdict.ts, docs/operations.md "The soak").
import { secretKeysOf } from '@lattice/cli';
import { noteInTestLog, testConfig } from '@lattice/core/testing';
import { expect } from 'chai';
import { runSoak } from '../soak/soak.ts';
import { verdictOf } from '../soak/verdict.ts';

describe('soak (short run)', function () {
  this.timeout(600_000);

  it('loses nothing accepted while actor hosts, gateways, edges and Redis are killed and restarted', async () => {
    const config = testConfig();
    const log: string[] = [];
    const result = await runSoak(
      {
        durationMs: 80_000,
        chaosEveryMs: 4_000,
        downMs: 2_000,
        channels: 4,
        publishGapMs: 100,
        sendGapMs: 250,
        subscribers: 2,
        actors: 2,
        gateways: 2,
        edges: 2,
        drainTimeoutMs: 120_000,
      },
      {
        databaseUrl: config.databaseUrl,
        kafkaBrokers: config.kafkaBrokers,
        kafkaPartitions: 4,
        secretKeys: secretKeysOf(config),
        log: (line) => log.push(line),
      },
    );
    const a = result.accounting;
    noteInTestLog(`soak: ${log.join('; ')}`, { accounting: a, chaos: result.chaos });
    // Every kind of process was hit at least once, and came back.
    expect(
      Object.keys(a.faults)
        .map((k) => k.split(' ')[0])
        .sort(),
    ).to.include.members(['actors', 'edge', 'gateway', 'redis']);
    // Traffic flowed on every path.
    expect(a.publishes.accepted, 'publishes accepted').to.be.greaterThan(100);
    expect(a.subscribers.delivered, 'messages at the subscribers').to.be.greaterThan(200);
    expect(a.emails.accepted, 'emails accepted').to.be.greaterThan(20);
    expect(a.webhooks.delivered, 'webhook deliveries').to.be.greaterThan(20);
    expect(verdictOf(result).problems).to.deep.equal([]);
  });
});
