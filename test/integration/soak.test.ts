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
import type { Accounting } from '../soak/accounting.ts';
import { faultAt } from '../soak/chaos.ts';
import type { SoakProcess } from '../soak/processes.ts';
import { runSoak, type SoakResult } from '../soak/soak.ts';
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

describe('soak: the fault rotation and the verdict', () => {
  const proc = (name: string): SoakProcess =>
    ({ name, kind: name.replace(/-\d+$/, '') as SoakProcess['kind'] }) as SoakProcess;
  const kinds = [
    [proc('actors-1'), proc('actors-2')],
    [proc('gateway-1'), proc('gateway-2')],
    [proc('edge-1'), proc('edge-2')],
    [proc('redis')],
  ];

  it('hits every kind in turn, each victim in turn, and drains each gateway as often as it kills it', () => {
    const faults = Array.from({ length: 16 }, (_, n) => faultAt(n, kinds));
    expect(faults.slice(0, 4).map((f) => f.victim.name)).to.deep.equal([
      'actors-1',
      'gateway-1',
      'edge-1',
      'redis',
    ]);
    expect(faults.slice(4, 8).map((f) => f.victim.name)).to.deep.equal([
      'actors-2',
      'gateway-2',
      'edge-2',
      'redis',
    ]);
    const gateways = faults
      .filter((f) => f.victim.kind === 'gateway')
      .map((f) => `${f.victim.name} ${f.signal}`);
    expect(gateways).to.deep.equal([
      'gateway-1 SIGKILL',
      'gateway-2 SIGTERM',
      'gateway-1 SIGTERM',
      'gateway-2 SIGKILL',
    ]);
    expect(faults.filter((f) => f.victim.kind !== 'gateway').every((f) => f.signal === 'SIGKILL')).to.equal(
      true,
    );
  });

  const answers = {
    attempts: 10,
    accepted: 10,
    refused: {},
    transport: 0,
    hangs: 0,
    unexpected: [],
    unresolved: 0,
    maxAttempts: 1,
  };
  const clean: Accounting = {
    publishes: {
      ...answers,
      applied: 10,
      landedUnanswered: 0,
      lost: 0,
      duplicated: 0,
      outOfOrder: 0,
      offsetFaults: 0,
      idMismatches: 0,
    },
    subscribers: {
      expected: 20,
      delivered: 20,
      lost: 0,
      duplicated: 0,
      outOfOrder: 0,
      unrecovered: 0,
      disconnects: 0,
    },
    emails: {
      ...answers,
      applied: 10,
      landedUnanswered: 0,
      handedOver: 10,
      lost: 0,
      duplicated: 0,
      duplicatesCounted: 0,
    },
    webhooks: { expected: 10, delivered: 10, lost: 0, duplicated: 0, duplicatedEvents: 0 },
    faults: {},
  };
  const result = (accounting: Accounting, targets: string[]): SoakResult => ({
    settings: { channels: 4, drainTimeoutMs: 1000 } as SoakResult['settings'],
    startedAt: '',
    loadMs: 0,
    drainMs: 0,
    drainedInTime: true,
    samples: [],
    chaos: targets.map((target) => ({ atMs: 0, target, signal: 'SIGKILL', backAtMs: 1, problem: null })),
    accounting,
  });

  it('passes a clean run and fails any loss', () => {
    expect(verdictOf(result(clean, ['actors-1'])).problems).to.deep.equal([]);
    const lost = { ...clean, emails: { ...clean.emails, lost: 1 } };
    expect(verdictOf(result(lost, ['actors-1'])).problems).to.deep.equal(['emails lost: 1']);
    const missed = { ...clean, subscribers: { ...clean.subscribers, lost: 2 } };
    expect(verdictOf(result(missed, [])).problems).to.deep.equal(['messages lost at subscribers: 2']);
  });

  it('allows duplicates up to the faults that can cause them, and not one more', () => {
    // Two Redis losses on 4 channels: up to 8 publishes twice in history; one actor kill: one webhook attempt again.
    const at = (publishes: number, webhooks: number, emails: number) =>
      verdictOf(
        result(
          {
            ...clean,
            publishes: { ...clean.publishes, duplicated: publishes },
            webhooks: { ...clean.webhooks, duplicated: webhooks },
            emails: { ...clean.emails, duplicated: emails, duplicatesCounted: emails },
          },
          ['redis', 'redis', 'actors-1'],
        ),
      ).problems;
    expect(at(8, 1, 5)).to.deep.equal([]);
    expect(at(9, 2, 6)).to.deep.equal([
      'publishes duplicated in history: 9, bound 8',
      'emails handed over twice: 6, bound 5',
      'webhook attempts repeated: 2, bound 1',
    ]);
    // A copy the sender did not count is never allowed.
    const uncounted = { ...clean, emails: { ...clean.emails, duplicated: 1, duplicatesCounted: 0 } };
    expect(verdictOf(result(uncounted, ['actors-1'])).problems).to.deep.equal([
      'extra copies the sender did not count: 1',
    ]);
  });
});
