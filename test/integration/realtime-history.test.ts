// Fan-out and history through real Kafka, PostgreSQL and Redis with a channel actor host in
// this process: a subscriber sees every message with increasing offsets and no gaps; history
// window 0 keeps nothing yet still numbers and fans out; cursor reads recover, and answer
// `recovered: false` after the entries aged out of the window, after a purge, or after an
// epoch change; the purge deletes in bounded batches and keeps what the archive covers.
import { createLogger } from '@lattice/core';
import { captureLogs, noteInTestLog } from '@lattice/core/testing';
import {
  createHistoryPurge,
  createHistoryReader,
  createNamespacePolicyCache,
  type HistoryAnswer,
  type HistoryReader,
  type HistoryReadResult,
} from '@lattice/realtime';
import { expect } from 'chai';
import {
  createRealtimeFixture,
  publishInOrder,
  RETAINING,
  type RealtimeFixture,
  startInProcessHost,
  subscribe,
  topOffset,
  waitFor,
} from './realtime/realtime-fixture.ts';

function answer(r: HistoryReadResult): HistoryAnswer {
  if ('refused' in r) throw new Error(`refused: ${r.refused}`);
  return r;
}

describe('channel fan-out and history (real Kafka, PostgreSQL, Redis)', function () {
  this.timeout(120_000);
  let f: RealtimeFixture;
  let host: { stop(): Promise<void> };
  let reader: HistoryReader;

  before(async () => {
    f = await createRealtimeFixture('rt-history');
    await f.namespaces.put(f.productId, 'feed', RETAINING);
    await f.namespaces.put(f.productId, 'live', { ...RETAINING, historyWindowSeconds: 0 });
    await f.namespaces.put(f.productId, 'short', { ...RETAINING, historyWindowSeconds: 60 });
    await f.namespaces.put(f.productId, 'kept', { ...RETAINING, historyWindowSeconds: 60, archiveDays: 1 });
    host = await startInProcessHost(f);
    reader = createHistoryReader({
      db: f.db,
      policies: createNamespacePolicyCache({ repository: f.namespaces, ttlMs: 0 }),
    });
  });
  after(async () => {
    await host?.stop();
    await f?.close();
  });

  const read = (
    channel: string,
    q: Omit<Parameters<HistoryReader['read']>[0], 'productId' | 'environment' | 'channel' | 'nowMs'>,
    nowMs = Date.now(),
  ) => reader.read({ ...f.id(channel), ...q, nowMs }).then(answer);

  it('fans out every message of a channel with offsets increasing and no gaps', async () => {
    const ids = [f.id('feed:a'), f.id('feed:b'), f.id('feed:c')];
    const sub = await subscribe(f, ids);
    try {
      const startedMs = Date.now();
      await Promise.all(
        ids.map((id) =>
          publishInOrder(
            f,
            id,
            Array.from({ length: 200 }, (_, n) => ({ seq: n + 1 })),
          ),
        ),
      );
      await waitFor('600 fan-out messages', () => ids.every((id) => sub.on(id).length >= 200), 60_000);
      const elapsedMs = Date.now() - startedMs;
      for (const id of ids) {
        const got = sub.on(id);
        expect(
          got.map((m) => m.offset),
          id.channel,
        ).to.deep.equal(Array.from({ length: 200 }, (_, n) => n + 1));
        expect(got.map((m) => (m.data as { seq: number }).seq)).to.deep.equal(
          Array.from({ length: 200 }, (_, n) => n + 1),
        );
        expect(new Set(got.map((m) => m.epoch)).size).to.equal(1);
        expect(got[0]).to.include({ type: 'publication', channel: id.channel });
        expect(got[0]).to.have.keys(['type', 'channel', 'id', 'offset', 'epoch', 'published_at', 'data']);
      }
      noteInTestLog(`600 messages on 3 channels fanned out in ${elapsedMs} ms`, { elapsedMs });
    } finally {
      await sub.close();
    }
  });

  it('with history window 0 keeps no rows but still numbers and fans out; history reads are empty', async () => {
    const id = f.id('live:ticker');
    const sub = await subscribe(f, [id]);
    try {
      await publishInOrder(
        f,
        id,
        Array.from({ length: 20 }, (_, n) => ({ n })),
      );
      await waitFor('20 fan-out messages', () => sub.on(id).length >= 20, 30_000);
      expect(sub.on(id).map((m) => m.offset)).to.deep.equal(Array.from({ length: 20 }, (_, n) => n + 1));
      const [row] = await f
        .db('channel_history')
        .where({ product_id: f.productId, channel: id.channel })
        .count<{ c: string }[]>({ c: '*' });
      expect(Number(row!.c)).to.equal(0);
      const windowRead = await read(id.channel, { window: { lastN: 10 } });
      expect(windowRead).to.deep.include({ data: [], top_offset: 20, recovered: true });
      const epoch = windowRead.epoch;
      expect(
        (await read(id.channel, { cursor: { offset: 20, epoch } })).recovered,
        'nothing missed',
      ).to.equal(true);
      expect((await read(id.channel, { cursor: { offset: 15, epoch } })).recovered, 'never kept').to.equal(
        false,
      );
    } finally {
      await sub.close();
    }
  });

  it('serves window and cursor reads, and recovered: false once entries aged out of the window or were purged', async () => {
    const id = f.id('short:news');
    await publishInOrder(
      f,
      id,
      Array.from({ length: 10 }, (_, n) => ({ n: n + 1 })),
      { perSend: 3 },
    );
    await waitFor('offset 10', async () => (await topOffset(f, id)) === 10, 30_000);

    const last5 = await read(id.channel, { window: { lastN: 5 } });
    expect(last5.data.map((e) => e.offset)).to.deep.equal([6, 7, 8, 9, 10]);
    expect(last5).to.include({ top_offset: 10, recovered: true });
    expect(last5.data[0]).to.have.keys(['id', 'offset', 'epoch', 'data', 'published_at']);
    expect(last5.data[0]!.data).to.deep.equal({ n: 6 });
    const { epoch } = last5;
    expect((await read(id.channel, { window: { lastMs: 60_000 } })).data).to.have.length(10);

    const after3 = await read(id.channel, { cursor: { offset: 3, epoch } });
    expect(after3.data.map((e) => e.offset)).to.deep.equal([4, 5, 6, 7, 8, 9, 10]);
    expect(after3.recovered).to.equal(true);
    expect(await read(id.channel, { cursor: { offset: 10, epoch } })).to.deep.include({
      data: [],
      recovered: true,
    });
    expect((await read(id.channel, { cursor: { offset: 3, epoch: 'another-epoch' } })).recovered).to.equal(
      false,
    );

    // 61 s later the entries are outside the 60 s window: still stored, no longer served.
    const later = Date.now() + 61_000;
    expect(await read(id.channel, { cursor: { offset: 3, epoch } }, later)).to.deep.include({
      data: [],
      recovered: false,
    });
    expect(await read(id.channel, { window: { lastN: 10 } }, later)).to.deep.include({
      data: [],
      recovered: true,
    });

    // A purge run at that time deletes them (window 60 s, no archive); then even now they are gone.
    const purge = createHistoryPurge({
      db: f.db,
      logger: createLogger({ name: 'purge', level: 'silent' }),
      clock: { nowMs: () => later },
      productIds: [f.productId],
    });
    await purge.runOnce();
    const afterPurge = await read(id.channel, { cursor: { offset: 3, epoch } });
    expect(afterPurge).to.deep.include({ data: [], top_offset: 10, recovered: false });
  });

  it('answers recovered: false after an epoch change (the channel state was lost and history reset)', async () => {
    const id = f.id('feed:reset');
    await publishInOrder(
      f,
      id,
      Array.from({ length: 5 }, (_, n) => ({ n })),
    );
    await waitFor('offset 5', async () => (await topOffset(f, id)) === 5, 30_000);
    const before = await read(id.channel, { window: { lastN: 5 } });
    await f.db('channel_state').where({ product_id: f.productId, channel: id.channel }).delete();
    await publishInOrder(f, id, [{ n: 'new-1' }, { n: 'new-2' }, { n: 'new-3' }]);
    await waitFor('the new epoch at offset 3', async () => (await topOffset(f, id)) === 3, 30_000);
    const stale = await read(id.channel, { cursor: { offset: 5, epoch: before.epoch } });
    expect(stale.epoch).to.not.equal(before.epoch);
    expect(stale).to.deep.include({ data: [], top_offset: 3, recovered: false });
    const fresh = await read(id.channel, { window: { lastN: 10 } });
    expect(fresh.data.map((e) => [e.offset, e.epoch, e.data])).to.deep.equal([
      [1, stale.epoch, { n: 'new-1' }],
      [2, stale.epoch, { n: 'new-2' }],
      [3, stale.epoch, { n: 'new-3' }],
    ]);
  });

  it('answers an empty channel with the empty epoch, and refuses an unregistered namespace', async () => {
    expect(await read('feed:never', { window: { lastN: 1 } })).to.deep.equal({
      data: [],
      epoch: '',
      top_offset: 0,
      recovered: true,
    });
    expect((await read('feed:never', { cursor: { offset: 0, epoch: '' } })).recovered).to.equal(true);
    expect(await reader.read({ ...f.id('nope:x'), window: { lastN: 1 }, nowMs: Date.now() })).to.deep.equal({
      refused: 'namespace_not_found',
    });
  });

  it('purges in bounded batches with progress lines, keeping rows the archive still covers', async () => {
    const gone = f.id('short:purge');
    const kept = f.id('kept:archive');
    await publishInOrder(
      f,
      gone,
      Array.from({ length: 10 }, (_, n) => ({ n })),
    );
    await publishInOrder(
      f,
      kept,
      Array.from({ length: 4 }, (_, n) => ({ n })),
    );
    await waitFor(
      'both channels applied',
      async () => (await topOffset(f, gone)) === 10 && (await topOffset(f, kept)) === 4,
      30_000,
    );
    const { logger, lines } = captureLogs({ name: 'purge', level: 'info' });
    const later = Date.now() + 61_000;
    const run = await createHistoryPurge({
      db: f.db,
      logger,
      clock: { nowMs: () => later },
      batchSize: 3,
      productIds: [f.productId],
    }).runOnce();
    expect(run.deleted, 'short:* rows (the earlier test purged the rest)').to.be.at.least(10);
    const progress = lines.filter((l) => l.msg === 'history purge progress' && l.namespace === 'short');
    expect(progress.map((l) => l.deleted)).to.deep.equal([3, 3, 3, 1]);
    const count = async (channel: string) =>
      Number(
        (
          await f
            .db('channel_history')
            .where({ product_id: f.productId, channel })
            .count<{ c: string }[]>({ c: '*' })
        )[0]!.c,
      );
    expect(await count(gone.channel)).to.equal(0);
    expect(await count(kept.channel), 'inside the 1-day archive').to.equal(4);
    // Kept but past the 60 s window: not served.
    const k = await read(kept.channel, { cursor: { offset: 0, epoch: '' } }, later);
    expect(k).to.deep.include({ data: [], recovered: false });
    // Past the archive too: deleted.
    const muchLater = Date.now() + 86_400_000 + 61_000;
    await createHistoryPurge({
      db: f.db,
      logger,
      clock: { nowMs: () => muchLater },
      productIds: [f.productId],
    }).runOnce();
    expect(await count(kept.channel)).to.equal(0);
  });

  it('purges what a deleted namespace published, and keeps what its re-created namesake publishes after', async () => {
    await f.namespaces.put(f.productId, 'doomed', RETAINING);
    const id = f.id('doomed:a');
    await publishInOrder(
      f,
      id,
      Array.from({ length: 5 }, (_, n) => ({ n })),
    );
    await waitFor('5 applied', async () => (await topOffset(f, id)) === 5, 30_000);
    const deletions = () => f.db('realtime_namespace_deletions').where({ product_id: f.productId });
    expect(await f.namespaces.delete(f.productId, 'doomed')).to.equal(true);
    expect(await deletions()).to.have.length(1);

    await f.namespaces.put(f.productId, 'doomed', RETAINING);
    await publishInOrder(f, id, [{ n: 5 }, { n: 6 }]);
    await waitFor('7 applied', async () => (await topOffset(f, id)) === 7, 30_000);

    const run = await createHistoryPurge({
      db: f.db,
      logger: createLogger({ name: 'purge', level: 'silent' }),
      batchSize: 2,
      productIds: [f.productId],
    }).runOnce();
    expect(run.deletedNamespaces).to.equal(1);
    expect(run.deleted).to.be.at.least(5);
    const offsets = await f
      .db('channel_history')
      .where({ product_id: f.productId, environment: id.environment, channel: id.channel })
      .orderBy('offset')
      .pluck('offset');
    expect(offsets.map(Number)).to.deep.equal([6, 7]);
    expect(await deletions()).to.have.length(0);
    // Nothing left to do: a second run deletes nothing.
    const again = await createHistoryPurge({
      db: f.db,
      logger: createLogger({ name: 'purge', level: 'silent' }),
      productIds: [f.productId],
    }).runOnce();
    expect(again).to.deep.include({ deletedNamespaces: 0 });
  });
});
