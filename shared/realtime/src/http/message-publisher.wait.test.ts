// The publisher's side of waiting for the offset, with stand-ins for Redis and Kafka and the wait
// on a ManualScheduler: what it answers when the watch sees the publication, when it does not,
// when the watch cannot be made or is slow to be made, and that a refusal leaves no timer or
// watch behind. End to end on both surfaces: test/integration/realtime-http-publish-wait.test.ts.
import { captureLogs, ManualScheduler } from '@lattice/core/testing';
import { expect } from 'chai';
import type { ChannelCommandRecord } from '../channel/channel-command.ts';
import type { ChannelId } from '../channel/channel-id.ts';
import type { ChannelCommandPublisher } from './command-publisher.ts';
import type { IdempotencyStore } from './idempotency.ts';
import { createMessagePublisher, type PublishAnswer } from './message-publisher.ts';
import type { PublishQuotaLimiter } from './publish-quota.ts';
import type { AppliedPlace, PublicationWatch, PublishWaiter } from './publish-waiter.ts';

const PRODUCT = '00000000-0000-4000-8000-000000000001';
const POLICY = { presence: false, clientEvents: false, historyWindowSeconds: 60, archiveDays: 0 };

/** A waiter whose watches the test drives: made at once (or when `hold` is released), or refused. */
function fakeWaiter(mode: { refuse?: boolean; hold?: Promise<void> } = {}) {
  const watches: Array<{
    id: ChannelId;
    messageId: string;
    apply(place: AppliedPlace): void;
    ended: boolean;
  }> = [];
  const waiter: PublishWaiter = {
    async watch(id, messageId) {
      if (mode.refuse) throw new Error('redis is down');
      await mode.hold;
      let apply!: (place: AppliedPlace) => void;
      const applied = new Promise<AppliedPlace>((resolve) => {
        apply = resolve;
      });
      const entry = { id, messageId, apply, ended: false };
      watches.push(entry);
      const watch: PublicationWatch = {
        applied,
        end: () => {
          entry.ended = true;
        },
      };
      return watch;
    },
    close: async () => {},
  };
  return { waiter, watches };
}

function setup(opts: { waiter: PublishWaiter; allowed?: boolean; replayApplied?: AppliedPlace | null }) {
  const scheduler = new ManualScheduler(1_000_000);
  const produced: ChannelCommandRecord[] = [];
  const recorded: AppliedPlace[] = [];
  const commands: ChannelCommandPublisher = {
    async publish(_id, record) {
      produced.push(record);
    },
    close: async () => {},
  };
  const quota: PublishQuotaLimiter = {
    quota: { sustainedPerSecond: 50, windowMs: 10_000, burstPerWindow: 100, hardLimitPerWindow: 1100 },
    consume: async () => ({
      policy: { name: 'publish', limit: 1100, windowMs: 10_000 },
      result: {
        allowed: opts.allowed ?? true,
        count: 1,
        limit: 1100,
        remaining: 1099,
        resetMs: 5_000,
        retryAfterSeconds: 5,
      },
      overSustained: false,
    }),
  };
  const idempotency: IdempotencyStore = {
    async claim(input) {
      if (opts.replayApplied !== undefined) {
        return { kind: 'replay', id: 'first-id', channel: input.channel, applied: opts.replayApplied };
      }
      return {
        kind: 'owner',
        id: input.newMessageId,
        complete: async () => {},
        release: async () => {},
        recordApplied: async (place) => {
          recorded.push(place);
        },
      };
    },
  };
  const publisher = createMessagePublisher({
    policies: { get: async () => POLICY },
    payloads: { forProduct: () => null },
    quota,
    idempotency,
    commands,
    logger: captureLogs().logger,
    waits: opts.waiter,
    scheduler,
  });
  const publish = (prefer?: string, idempotencyKey?: string) =>
    publisher.publish({
      productId: PRODUCT,
      environment: 'production',
      body: { channel: 'chat:room', data: { n: 1 } },
      prefer,
      idempotencyKey,
    });
  return { scheduler, produced, recorded, publish };
}

/** Lets the publisher run up to its next wait on the scheduler (or its answer). */
const settle = () => new Promise((r) => setImmediate(r));

async function pending(answer: Promise<PublishAnswer>): Promise<boolean> {
  let done = false;
  void answer.then(
    () => {
      done = true;
    },
    () => {
      done = true;
    },
  );
  await settle();
  return !done;
}

describe('publish: waiting for the offset', () => {
  it('answers 201 with the place the watch saw, and Preference-Applied; the wait is then gone', async () => {
    const { waiter, watches } = fakeWaiter();
    const t = setup({ waiter });
    const answer = t.publish('return=representation', 'k-1');
    await settle();
    expect(t.produced).to.have.length(1);
    expect(watches).to.have.length(1);
    expect(watches[0]!.messageId).to.equal(
      (t.produced[0]!.body as { 'lattice.realtime.Publish': { message_id: string } })[
        'lattice.realtime.Publish'
      ].message_id,
    );
    watches[0]!.apply({ offset: 7, epoch: 'e1' });
    const a = await answer;
    expect(a.status).to.equal(201);
    expect(a.body).to.include({ channel: 'chat:room', offset: 7, epoch: 'e1' });
    expect(a.headers['Preference-Applied']).to.equal('return=representation');
    expect(a.headers['RateLimit-Policy']).to.be.a('string');
    expect(t.recorded).to.deep.equal([{ offset: 7, epoch: 'e1' }]);
    expect(watches[0]!.ended).to.equal(true);
    expect(t.scheduler.pendingTimers()).to.equal(0);
  });

  it('answers 202 at the wait and not a millisecond before when nothing comes by', async () => {
    const { waiter, watches } = fakeWaiter();
    const t = setup({ waiter });
    const answer = t.publish('return=representation, wait=3');
    await settle();
    expect(t.produced).to.have.length(1);
    t.scheduler.advance(2999);
    expect(await pending(answer)).to.equal(true);
    t.scheduler.advance(1);
    const a = await answer;
    expect(a.status).to.equal(202);
    expect(a.body).to.have.keys(['id', 'channel']);
    expect(a.headers).to.not.have.property('Preference-Applied');
    expect(watches[0]!.ended).to.equal(true);
  });

  it('answers 202 at once, without a timer or a watch, when not asked to wait', async () => {
    const { waiter, watches } = fakeWaiter();
    const t = setup({ waiter });
    for (const prefer of [undefined, 'return=minimal']) {
      const a = await t.publish(prefer);
      expect(a.status).to.equal(202);
    }
    expect(watches).to.have.length(0);
    expect(t.scheduler.pendingTimers()).to.equal(0);
  });

  it('publishes and answers 202 when the watch cannot be made (never an error)', async () => {
    const t = setup({ waiter: fakeWaiter({ refuse: true }).waiter });
    const a = await t.publish('return=representation');
    expect(a.status).to.equal(202);
    expect(t.produced).to.have.length(1);
    expect(t.scheduler.pendingTimers()).to.equal(0);
  });

  it('produces only once the watch is in place; a watch slower than the wait gives 202 after the produce', async () => {
    let release!: () => void;
    const hold = new Promise<void>((r) => {
      release = r;
    });
    const { waiter, watches } = fakeWaiter({ hold });
    const t = setup({ waiter });
    const answer = t.publish('return=representation, wait=1');
    await settle();
    expect(t.produced, 'produced before its watch was in place').to.have.length(0);
    t.scheduler.advance(1000);
    const a = await answer;
    expect(a.status).to.equal(202);
    expect(t.produced).to.have.length(1);
    release();
    await settle();
    expect(watches).to.have.length(1);
    expect(watches[0]!.ended, 'a watch that came too late is ended').to.equal(true);
  });

  it('a refusal (quota) leaves no timer and no watch behind', async () => {
    const { waiter, watches } = fakeWaiter();
    const t = setup({ waiter, allowed: false });
    let refused: unknown;
    await t.publish('return=representation').catch((err: unknown) => {
      refused = err;
    });
    expect(refused).to.include({ status: 429 });
    expect(t.produced).to.have.length(0);
    expect(t.scheduler.pendingTimers()).to.equal(0);
    await settle();
    expect(watches.every((w) => w.ended)).to.equal(true);
  });

  it('a repeat answers 201 when its key knows the place, else 202, and never waits', async () => {
    const { waiter, watches } = fakeWaiter();
    const known = setup({ waiter, replayApplied: { offset: 3, epoch: 'e' } });
    const a = await known.publish(undefined, 'k-1');
    expect(a).to.deep.include({ status: 201, replayed: true });
    expect(a.body).to.deep.equal({ id: 'first-id', channel: 'chat:room', offset: 3, epoch: 'e' });
    expect(a.headers).to.deep.equal({ 'Preference-Applied': 'return=representation' });
    const unknown = setup({ waiter, replayApplied: null });
    const b = await unknown.publish('return=representation', 'k-1');
    expect(b).to.deep.include({ status: 202, replayed: true });
    expect(watches).to.have.length(0);
    expect(unknown.scheduler.pendingTimers()).to.equal(0);
  });
});
