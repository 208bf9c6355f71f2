// Presence through real Kafka commands (PostgreSQL, Redis, a channel actor host in this
// process): enter, update and leave with events on the channel and a result per command on the
// connection's result channel; dedup by identity; the full roster refused with `full`; expiry
// hidden from reads at once and turned into a leave by the sweep; presence reads.
import { newId, sleep } from '@lattice/core';
import {
  type ChannelId,
  channelCommandKey,
  createNamespacePolicyCache,
  createPresenceReader,
  createPresenceSweep,
  type PresenceCommandInput,
  type PresenceReader,
  presenceCommandRecord,
} from '@lattice/realtime';
import { presenceResultChannel } from '@lattice/redis';
import { expect } from 'chai';
import {
  createRealtimeFixture,
  RETAINING,
  type RealtimeFixture,
  type Subscription,
  startInProcessHost,
  subscribe,
  waitFor,
} from './realtime/realtime-fixture.ts';

describe('presence through channel actors (real Kafka, PostgreSQL, Redis)', function () {
  this.timeout(120_000);
  let f: RealtimeFixture;
  let host: { stop(): Promise<void> };
  let reader: PresenceReader;
  let sub: Subscription;
  const room = () => f.id('room:lobby');

  before(async () => {
    f = await createRealtimeFixture('rt-presence');
    await f.namespaces.put(f.productId, 'room', RETAINING);
    await f.namespaces.put(f.productId, 'quiet', { ...RETAINING, presence: false });
    host = await startInProcessHost(f);
    reader = createPresenceReader({
      db: f.db,
      policies: createNamespacePolicyCache({ repository: f.namespaces, ttlMs: 0 }),
    });
    sub = await subscribe(f, [room(), f.id('room:full'), f.id('room:expiry')]);
  });
  after(async () => {
    await sub?.close();
    await host?.stop();
    await f?.close();
  });

  async function send(id: ChannelId, inputs: PresenceCommandInput[]): Promise<string[]> {
    const commandIds = inputs.map(() => newId());
    await f.producer.send(
      f.topic,
      f.codec,
      inputs.map((input, i) => ({
        key: channelCommandKey(id),
        value: presenceCommandRecord(id, commandIds[i]!, Date.now(), input),
      })),
    );
    return commandIds;
  }
  const enter = (connectionId: string, identity: string, over: Partial<PresenceCommandInput> = {}) =>
    ({
      action: 'enter',
      connectionId,
      identity,
      // The longest allowed: no entry of another test may expire while this file runs (the
      // sweep test counts the channels holding an expired one).
      ttlSeconds: 3600,
      gatewayId: 'gw-test',
      ...over,
    }) as PresenceCommandInput;
  const resultsOf = (connectionId: string) =>
    sub.messages.get(presenceResultChannel(f.redisKeyPrefix, connectionId)) ?? [];
  const events = (id: ChannelId) =>
    sub.on(id).map((m) => [m.action, m.identity, m.connections, ...(m.reason ? [m.reason] : [])]);
  const now = () => Date.now();

  it('enters, updates and leaves with events and results; the roster is deduplicated by identity', async () => {
    const id = room();
    const [enterC1] = await send(id, [
      enter('c1', 'ext:ann', { infoJson: '{"name":"Ann"}' } as Partial<PresenceCommandInput>),
      enter('c2', 'ext:ann', { infoJson: '{"name":"Ann"}' } as Partial<PresenceCommandInput>),
      enter('c3', 'ext:bob'),
    ]);
    await waitFor(
      '3 enter results',
      () => ['c1', 'c2', 'c3'].every((c) => resultsOf(c).length === 1),
      30_000,
    );
    expect(resultsOf('c1')[0]).to.deep.equal({
      type: 'presence_result',
      command_id: enterC1,
      channel: id.channel,
      connection_id: 'c1',
      action: 'enter',
      ok: true,
    });
    expect(events(id)).to.deep.equal([
      ['join', 'ext:ann', 1],
      ['update', 'ext:ann', 2],
      ['join', 'ext:bob', 1],
    ]);
    expect(await reader.roster({ ...id, nowMs: now() })).to.deep.equal({
      data: [
        { identity: 'ext:ann', connections: 2, info: { name: 'Ann' } },
        { identity: 'ext:bob', connections: 1, info: null },
      ],
    });
    expect(await reader.stats({ ...id, nowMs: now() })).to.deep.equal({ members: 2, connections: 3 });

    await send(id, [
      { action: 'update', connectionId: 'c3', infoJson: '{"name":"Bob"}' },
      { action: 'update', connectionId: 'ghost', infoJson: '{}' },
    ]);
    await waitFor(
      'the update results',
      () => resultsOf('c3').length === 2 && resultsOf('ghost').length === 1,
      30_000,
    );
    expect(resultsOf('ghost')[0]).to.deep.include({
      action: 'update',
      ok: false,
      error: { code: 'invalid', message: 'the connection is not in the roster' },
    });
    expect(sub.on(id).at(-1)).to.deep.include({
      action: 'update',
      identity: 'ext:bob',
      info: { name: 'Bob' },
    });

    await send(id, [
      { action: 'leave', connectionId: 'c2', reason: 'closed' },
      { action: 'leave', connectionId: 'c3', reason: 'closed' },
    ]);
    await waitFor('the leave results', () => resultsOf('c3').length === 3, 30_000);
    expect(events(id).slice(-3)).to.deep.equal([
      ['update', 'ext:bob', 1],
      ['update', 'ext:ann', 1],
      ['leave', 'ext:bob', 0, 'closed'],
    ]);
    expect(await reader.roster({ ...id, nowMs: now() })).to.deep.equal({
      data: [{ identity: 'ext:ann', connections: 1, info: { name: 'Ann' } }],
    });
  });

  it('admits 100 members and refuses the 101st with `full`', async () => {
    const id = f.id('room:full');
    await send(
      id,
      Array.from({ length: 100 }, (_, i) => enter(`full-${i}`, `ext:member-${i}`)),
    );
    await waitFor('100 enter results', () => resultsOf('full-99').length === 1, 30_000);
    expect(Array.from({ length: 100 }, (_, i) => resultsOf(`full-${i}`)[0]?.ok)).to.deep.equal(
      Array(100).fill(true),
    );
    await send(id, [enter('full-100', 'ext:member-100'), enter('full-extra', 'ext:member-7')]);
    await waitFor(
      'the 101st result',
      () => resultsOf('full-100').length === 1 && resultsOf('full-extra').length === 1,
      30_000,
    );
    expect(resultsOf('full-100')[0]).to.deep.include({
      ok: false,
      error: { code: 'full', message: 'the roster is full (100 members)' },
    });
    expect(resultsOf('full-extra')[0], 'a member may add a connection to a full roster').to.deep.include({
      ok: true,
    });
    expect(await reader.stats({ ...id, nowMs: now() })).to.deep.equal({ members: 100, connections: 101 });
    const roster = await reader.roster({ ...id, nowMs: now() });
    expect('data' in roster && roster.data.map((m) => m.identity)).to.not.include('ext:member-100');
  });

  it('hides an expired entry from reads at once and the sweep turns it into a leave event', async () => {
    const id = f.id('room:expiry');
    // Read as of the send: the brief entry lives 1 s from then, however long the actor takes.
    const sentMs = now();
    await send(id, [
      enter('brief', 'ext:brief', { ttlSeconds: 1 } as Partial<PresenceCommandInput>),
      enter('stay', 'ext:stay'),
    ]);
    await waitFor(
      'the enter results',
      () => resultsOf('brief').length === 1 && resultsOf('stay').length === 1,
      30_000,
    );
    expect(await reader.stats({ ...id, nowMs: sentMs })).to.deep.equal({ members: 2, connections: 2 });
    await sleep(1_100);
    expect(await reader.roster({ ...id, nowMs: now() }), 'expired entries are not read').to.deep.equal({
      data: [{ identity: 'ext:stay', connections: 1, info: null }],
    });
    const stored = await f
      .db('channel_presence')
      .where({ product_id: f.productId, channel: id.channel })
      .count<{ c: string }[]>({ c: '*' });
    expect(Number(stored[0]!.c), 'still stored until the actor drops it').to.equal(2);
    const sweep = createPresenceSweep({
      db: f.db,
      producer: f.producer,
      topic: f.topic,
      codec: f.codec,
      logger: f.logger,
      productIds: [f.productId],
    });
    const { channels } = await sweep.runOnce();
    expect(channels, 'only room:expiry holds an expired entry').to.equal(1);
    await waitFor('the expiry leave event', () => events(id).some((e) => e[0] === 'leave'), 30_000);
    expect(events(id).at(-1)).to.deep.equal(['leave', 'ext:brief', 0, 'expired']);
    await waitFor(
      'the expired row to be gone',
      async () =>
        Number(
          (
            await f
              .db('channel_presence')
              .where({ product_id: f.productId, channel: id.channel })
              .count<{ c: string }[]>({ c: '*' })
          )[0]!.c,
        ) === 1,
      30_000,
    );
  });

  it('refuses presence with `forbidden` where the namespace disables it; reads say presence_disabled', async () => {
    const id = f.id('quiet:hall');
    await send(id, [enter('quiet-1', 'ext:ann')]);
    await waitFor('the result', () => resultsOf('quiet-1').length === 1, 30_000);
    expect(resultsOf('quiet-1')[0]).to.deep.include({
      ok: false,
      error: { code: 'forbidden', message: 'presence is not enabled for the namespace' },
    });
    expect(await reader.roster({ ...id, nowMs: now() })).to.deep.equal({ refused: 'presence_disabled' });
    expect(await reader.stats({ ...f.id('nope:hall'), nowMs: now() })).to.deep.equal({
      refused: 'namespace_not_found',
    });
  });
});
