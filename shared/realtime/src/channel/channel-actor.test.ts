import { createLogger, RetryableError, TerminalError } from '@lattice/core';
import { ManualScheduler } from '@lattice/core/testing';
import type { ActorRecord } from '@lattice/kafka';
import { expect } from 'chai';
import { createMemoryFanOut } from '../fanout/fanout.memory.ts';
import type { NamespacePolicy } from '../token-request.ts';
import { channelActorKind } from './channel-actor.ts';
import { type ChannelCommandRecord, presenceCommandRecord, publishCommandRecord } from './channel-command.ts';
import { type ChannelId, channelCommandKey } from './channel-id.ts';
import { createMemoryChannelStore } from './channel-store.memory.ts';

const id: ChannelId = {
  productId: '0b8f7a52-6a0e-4d36-9d49-9a6d1c1f0001',
  environment: 'development',
  channel: 'chat:lobby',
};
const key = channelCommandKey(id);
const logger = createLogger({ name: 'channel-actor-test', level: 'silent' });

function setup(
  policy: NamespacePolicy | null = {
    presence: true,
    clientEvents: false,
    historyWindowSeconds: 60,
    archiveDays: 0,
  },
) {
  const store = createMemoryChannelStore();
  const fanOut = createMemoryFanOut();
  // Starts at the real time: the records are issued at Date.now().
  const scheduler = new ManualScheduler(Date.now());
  let epochs = 0;
  const kind = channelActorKind({
    store,
    fanOut,
    policies: { get: async () => policy },
    logger,
    scheduler,
    newEpoch: () => `epoch-${++epochs}`,
    fanOutBackoff: { initialMs: 100, maxMs: 1_000 },
  });
  return { store, fanOut, kind, scheduler };
}

let offset = 0n;
function rec(value: ChannelCommandRecord, partition = 3): ActorRecord<ChannelCommandRecord> {
  offset += 1n;
  return { topic: 't', partition, offset, key, value, timestampMs: 0 };
}
const pub = (n: number, at = id) =>
  rec(
    publishCommandRecord({
      id: at,
      commandId: `c${n}`,
      messageId: `m${n}`,
      data: { json: `{"n":${n}}` },
      issuedAtMs: Date.now(),
    }),
  );

describe('channel actor (memory store and fan-out)', () => {
  it('commits a batch (history, state, position) and then fans it out in order', async () => {
    const { store, fanOut, kind } = setup();
    // The store's commit completes on command: nothing may be fanned out before it has.
    const events: string[] = [];
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const commit = store.commit.bind(store);
    store.commit = async (c) => {
      events.push('commit started');
      await released;
      await commit(c);
      events.push('commit done');
    };
    const deliver = fanOut.deliver.bind(fanOut);
    fanOut.deliver = async (...args) => {
      events.push('fan-out');
      await deliver(...args);
    };
    const actor = await kind.load(key, 3);
    expect(actor.applied()).to.equal(null);
    const batch = [pub(1), pub(2), pub(3)];
    const handled = actor.handle(batch);
    for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve));
    expect(events, 'waiting for the commit, nothing fanned out').to.deep.equal(['commit started']);
    expect(fanOut.deliveries).to.deep.equal([]);
    expect(actor.applied(), 'not applied before the commit').to.equal(null);
    release();
    await handled;
    expect(events).to.deep.equal(['commit started', 'commit done', 'fan-out']);
    expect(store.history(id).map((e) => [e.offset, e.epoch, e.id])).to.deep.equal([
      [1, 'epoch-1', 'm1'],
      [2, 'epoch-1', 'm2'],
      [3, 'epoch-1', 'm3'],
    ]);
    expect(actor.applied()).to.deep.equal({ partition: 3, offset: batch[2]!.offset });
    const reloaded = await kind.load(key, 3);
    expect(reloaded.applied()).to.deep.equal(actor.applied());
    expect(fanOut.deliveries).to.have.length(1);
    expect(
      fanOut.deliveries[0]!.messages.map((m) => (m.type === 'publication' ? m.entry.offset : -1)),
    ).to.deep.equal([1, 2, 3]);
    // The next batch continues the offsets from the reloaded state.
    await reloaded.handle([pub(4)]);
    expect(store.history(id).map((e) => e.offset)).to.deep.equal([1, 2, 3, 4]);
  });

  it('fences a second writer: the stale actor fails retryably, fans nothing out, and a reload finds the newer state', async () => {
    const { store, fanOut, kind } = setup();
    const fannedOut = () =>
      fanOut.deliveries.flatMap((d) =>
        d.messages.map((m) => (m.type === 'publication' ? m.entry.id : m.type)),
      );
    const a = await kind.load(key, 3);
    const b = await kind.load(key, 3);
    await a.handle([pub(10)]);
    expect(fannedOut()).to.deep.equal(['m10']);
    let err: unknown;
    await b.handle([pub(11)]).catch((e: unknown) => (err = e));
    expect(err).to.be.instanceOf(RetryableError);
    expect(store.history(id)).to.have.length(1);
    expect(fannedOut(), 'the stale writer fanned nothing out').to.deep.equal(['m10']);
    expect(b.applied(), 'nor moved its position').to.equal(null);
    const b2 = await kind.load(key, 3);
    await b2.handle([pub(11)]);
    expect(store.history(id).map((e) => e.offset)).to.deep.equal([1, 2]);
    expect(fannedOut()).to.deep.equal(['m10', 'm11']);
  });

  it('starts a new epoch at offset 1 and drops old rows when the stored state was lost', async () => {
    const { store, kind } = setup();
    const actor = await kind.load(key, 3);
    await actor.handle([pub(20), pub(21)]);
    store.loseState(id);
    let err: unknown;
    await actor.handle([pub(22)]).catch((e: unknown) => (err = e));
    expect(err, 'the write of the in-memory actor is fenced').to.be.instanceOf(RetryableError);
    const fresh = await kind.load(key, 3);
    await fresh.handle([pub(22)]);
    expect(store.history(id).map((e) => [e.offset, e.epoch])).to.deep.equal([[1, 'epoch-3']]);
  });

  it('refuses records it can never apply with TerminalError', async () => {
    const { kind } = setup();
    const actor = await kind.load(key, 3);
    const other = pub(30, { ...id, channel: 'chat:other' });
    let err: unknown;
    await actor.handle([other]).catch((e: unknown) => (err = e));
    expect(err).to.be.instanceOf(TerminalError);
    const both = publishCommandRecord({
      id,
      commandId: 'x',
      messageId: 'x',
      data: { json: '1' },
      issuedAtMs: 0,
    });
    const publish = both.body as { 'lattice.realtime.Publish': { ref: unknown } };
    publish['lattice.realtime.Publish'].ref = { bucket_key: 'k', size: 1, content_type: null };
    err = undefined;
    await actor.handle([rec(both)]).catch((e: unknown) => (err = e));
    expect(err).to.be.instanceOf(TerminalError);
    err = undefined;
    await kind.load('not-a-key', 0).catch((e: unknown) => (err = e));
    expect(err).to.be.instanceOf(TerminalError);
  });

  it('writes nothing for a batch that changed nothing, yet moves its applied position', async () => {
    const { store, fanOut, kind } = setup(null);
    const actor = await kind.load(key, 3);
    const batch = [pub(40)];
    await actor.handle(batch);
    expect(await store.load(id)).to.equal(null);
    expect(actor.applied()).to.deep.equal({ partition: 3, offset: batch[0]!.offset });
    expect(fanOut.deliveries).to.deep.equal([]);
  });

  it('retries a failed fan-out, and drops it after the last attempt without failing the batch', async () => {
    const { fanOut, kind, scheduler } = setup();
    const actor = await kind.load(key, 3);
    let done = false;
    const finished = () => {
      done = true;
    };
    fanOut.failNext(2);
    let handled = actor.handle([pub(50)]).then(finished);
    // Backoff 100 ms, then 200 ms.
    await scheduler.advanceAsync(299);
    expect(fanOut.deliveries).to.have.length(0);
    await scheduler.advanceAsync(1);
    await handled;
    expect(fanOut.deliveries).to.have.length(1);
    fanOut.failNext(5);
    done = false;
    handled = actor.handle([pub(51)]).then(finished);
    // 100 + 200 + 400 + 800 ms between the 5 attempts, then dropped.
    await scheduler.advanceAsync(1_499);
    expect(done).to.equal(false);
    await scheduler.advanceAsync(1);
    await handled;
    expect(fanOut.deliveries, 'dropped after 5 attempts').to.have.length(1);
    await actor.handle([pub(52)]);
    const last = fanOut.deliveries.at(-1)!.messages[0]!;
    expect(last.type === 'publication' && last.entry.offset, 'the gap is visible by offset').to.equal(3);
  });

  it('persists the roster with the state and sends presence results after the commit', async () => {
    const { store, fanOut, kind } = setup();
    const actor = await kind.load(key, 3);
    const enter = (conn: string, identity: string) =>
      rec(
        presenceCommandRecord(id, `e-${conn}`, 0, {
          action: 'enter',
          connectionId: conn,
          identity,
          infoJson: '{"a":1}',
          ttlSeconds: 60,
          gatewayId: 'gw',
        }),
      );
    await actor.handle([enter('c1', 'ann'), enter('c2', 'ann'), enter('c3', 'bob')]);
    expect(store.roster(id).map((c) => [c.connectionId, c.identity])).to.deep.equal([
      ['c1', 'ann'],
      ['c2', 'ann'],
      ['c3', 'bob'],
    ]);
    const leave = rec(
      presenceCommandRecord(id, 'l-c2', 0, { action: 'leave', connectionId: 'c2', reason: 'closed' }),
    );
    await actor.handle([leave]);
    expect(store.roster(id).map((c) => c.connectionId)).to.deep.equal(['c1', 'c3']);
    const last = fanOut.deliveries.at(-1)!;
    expect(last.results.map((r) => [r.connectionId, r.action, r.error])).to.deep.equal([
      ['c2', 'leave', undefined],
    ]);
    const reloaded = await kind.load(key, 3);
    await reloaded.handle([
      rec(presenceCommandRecord(id, 'u', 0, { action: 'update', connectionId: 'c2', infoJson: null })),
    ]);
    expect(fanOut.deliveries.at(-1)!.results[0]!.error?.code, 'c2 left; the reloaded roster knows').to.equal(
      'invalid',
    );
  });
});
