import { createLogger, RetryableError } from '@lattice/core';
import { ManualScheduler } from '@lattice/core/testing';
import { expect } from 'chai';
import { createPlannedPlacement } from './partition-placement.planned.ts';
import type { PartitionPlacement } from './partition-placement.ts';
import { createMemoryPartitionPlanStore } from './partition-plan-store.memory.ts';

const TOPIC = 'realtime.channel-commands';
const logger = createLogger({ name: 'placement-test', level: 'silent' });

describe('planned partition placement', () => {
  let scheduler: ManualScheduler;
  let store: ReturnType<typeof createMemoryPartitionPlanStore>;
  let placement: PartitionPlacement;

  beforeEach(async () => {
    scheduler = new ManualScheduler(1_000_000);
    store = createMemoryPartitionPlanStore(scheduler);
    placement = createPlannedPlacement({
      store,
      producerId: 'p1',
      logger,
      scheduler,
      refreshMs: 100,
      leaseMs: 1_000,
      holdTimeoutMs: 2_000,
    });
    await scheduler.settle();
  });
  afterEach(() => placement.close());

  /** Resolved value of `promise`, or 'pending' once the jobs it waits on have run. */
  async function state<T>(promise: Promise<T>): Promise<T | 'pending' | Error> {
    let out: T | 'pending' | Error = 'pending';
    promise.then(
      (v) => {
        out = v;
      },
      (e: Error) => {
        out = e;
      },
    );
    await scheduler.settle();
    await scheduler.settle();
    return out;
  }

  it('leaves a topic without a plan to Kafka, and hashes over the plan’s count once there is one', async () => {
    const before = await placement.acquire(TOPIC);
    expect(before.partitions).to.equal(null);
    before.release();
    await store.writePlan(TOPIC, { partitions: 12, version: 1, state: 'active' });
    await scheduler.advanceAsync(100);
    const after = await placement.acquire(TOPIC);
    expect(after.partitions).to.equal(12);
    after.release();
    expect(await store.liveProducers(1_000)).to.deep.equal(['p1']);
  });

  it('acknowledges a version only when no send placed by an older one is in flight', async () => {
    await store.writePlan(TOPIC, { partitions: 12, version: 1, state: 'active' });
    await scheduler.advanceAsync(100);
    expect(await store.acknowledged(TOPIC, 1)).to.deep.equal(['p1']);
    const inFlight = await placement.acquire(TOPIC);

    await store.writePlan(TOPIC, { partitions: 12, version: 2, state: 'draining' });
    await scheduler.advanceAsync(500);
    expect(await store.acknowledged(TOPIC, 2)).to.deep.equal([]);
    inFlight.release();
    await scheduler.advanceAsync(0);
    expect(await store.acknowledged(TOPIC, 2)).to.deep.equal(['p1']);
  });

  it('holds sends while the plan drains and places them by the new count when it switches', async () => {
    await store.writePlan(TOPIC, { partitions: 12, version: 2, state: 'draining' });
    await scheduler.advanceAsync(100);
    const held = placement.acquire(TOPIC);
    await scheduler.advanceAsync(500);
    expect(await state(held)).to.equal('pending');

    await store.writePlan(TOPIC, { partitions: 24, version: 3, state: 'active' });
    await scheduler.advanceAsync(200);
    const slot = await held;
    expect(slot.partitions).to.equal(24);
    slot.release();
    // Other topics were never held.
    const other = await placement.acquire('mail.outbound');
    expect(other.partitions).to.equal(null);
    other.release();
  });

  it('refuses a send held longer than holdTimeoutMs with a RetryableError', async () => {
    await store.writePlan(TOPIC, { partitions: 12, version: 2, state: 'draining' });
    await scheduler.advanceAsync(100);
    const held = placement.acquire(TOPIC);
    await scheduler.advanceAsync(1_900);
    expect(await state(held)).to.equal('pending');
    await scheduler.advanceAsync(200);
    const outcome = await state(held);
    expect(outcome).to.be.instanceOf(RetryableError);
    expect((outcome as Error).message).to.match(/being re-partitioned/);
  });

  it('stops sending once the plans have been unreadable for the lease, and resumes when readable', async () => {
    await store.writePlan(TOPIC, { partitions: 12, version: 1, state: 'active' });
    await scheduler.advanceAsync(100);
    store.failing = true;
    // Within the lease the last plan read still holds.
    await scheduler.advanceAsync(900);
    const within = await placement.acquire(TOPIC);
    expect(within.partitions).to.equal(12);
    within.release();
    await scheduler.advanceAsync(200);
    const past = placement.acquire(TOPIC);
    await scheduler.advanceAsync(500);
    expect(await state(past)).to.equal('pending');
    store.failing = false;
    await scheduler.advanceAsync(200);
    const slot = await past;
    expect(slot.partitions).to.equal(12);
    slot.release();
  });

  it('is gone from the live producers once closed', async () => {
    await placement.close();
    expect(await store.liveProducers(1_000)).to.deep.equal([]);
  });
});
