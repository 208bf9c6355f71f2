// The group commit of the PostgreSQL channel store: commits asked for together share one
// statement, yet each is fenced and fails on its own.
import { createLogger } from '@lattice/core';
import { testConfig, uniqueName } from '@lattice/core/testing';
import { bootstrapProduct, createDb, type Db, migrateLatest } from '@lattice/store';
import { expect } from 'chai';
import type { ChannelEntry } from './channel-entry.ts';
import type { ChannelId } from './channel-id.ts';
import type { ChannelState } from './channel-state.ts';
import { createPostgresChannelStore } from './channel-store.postgres.ts';
import { ChannelFencedError } from './channel-store.ts';

describe('channel store (PostgreSQL): group commit', () => {
  const config = testConfig();
  let db: Db;
  let productId: string;

  before(async () => {
    db = createDb({ databaseUrl: config.databaseUrl });
    await migrateLatest(db, createLogger({ name: 't', level: 'silent' }));
    productId = (await bootstrapProduct(db, { name: uniqueName('rt-store') })).product_id;
  });
  after(() => db.destroy());

  const state = (top: number): ChannelState => ({
    epoch: 'e1',
    topOffset: top,
    connections: new Map(),
    recentMessageIds: [`m${top}`],
  });
  const entry = (offset: number): ChannelEntry => ({
    offset,
    epoch: 'e1',
    id: `m${offset}`,
    name: null,
    payload: { kind: 'data', json: `{"o":${offset},"s":"a\\"b\\u00e9 ü"}` },
    publishedAtMs: 1_700_000_000_000 + offset,
  });
  const commit = (id: ChannelId, expectedOffset: bigint | null, from: number, to: number) => ({
    id,
    expected: expectedOffset === null ? null : { partition: 0, offset: expectedOffset },
    created: expectedOffset === null,
    state: state(to),
    applied: { partition: 0, offset: BigInt(to) },
    history: Array.from({ length: to - from + 1 }, (_, k) => entry(from + k)),
    presencePut: [],
    presenceRemove: [],
  });

  it('writes each fenced commit of a group on its own: a stale or failing one writes nothing', async () => {
    const store = createPostgresChannelStore(db);
    const ids = ['g:a', 'g:b', 'g:c'].map((channel) => ({
      productId,
      environment: 'production' as const,
      channel,
    }));
    for (const id of ids) await store.commit(commit(id, null, 1, 1));

    // Asked together: one group. The middle one holds a stale position.
    const fenced = await Promise.allSettled(
      ids.map((id, k) => store.commit(commit(id, k === 1 ? 99n : 1n, 2, 3))),
    );
    expect(fenced.map((r) => r.status)).to.deep.equal(['fulfilled', 'rejected', 'fulfilled']);
    expect((fenced[1] as PromiseRejectedResult).reason).to.be.instanceOf(ChannelFencedError);

    // A history row that already exists fails its own commit only.
    const clash = await Promise.allSettled([
      store.commit({ ...commit(ids[0]!, 3n, 3, 4), history: [entry(3)] }),
      store.commit(commit(ids[2]!, 3n, 4, 4)),
    ]);
    expect(clash.map((r) => r.status)).to.deep.equal(['rejected', 'fulfilled']);

    const rows = await db('channel_history')
      .where({ product_id: productId })
      .orderBy(['channel', 'offset'])
      .select('channel', 'offset', 'data_json', 'published_at');
    expect(rows.map((r) => `${r.channel}:${r.offset}`)).to.deep.equal([
      'g:a:1',
      'g:a:2',
      'g:a:3',
      'g:b:1',
      'g:c:1',
      'g:c:2',
      'g:c:3',
      'g:c:4',
    ]);
    expect(rows[1]!.data_json).to.equal(`{"o":2,"s":"a\\"b\\u00e9 ü"}`);
    expect((rows[1]!.published_at as Date).getTime()).to.equal(entry(2).publishedAtMs);
    const states = await db('channel_state')
      .where({ product_id: productId })
      .orderBy('channel')
      .select('channel', 'top_offset', 'applied_offset', 'recent_message_ids');
    expect(states.map((s) => [s.channel, Number(s.top_offset), Number(s.applied_offset)])).to.deep.equal([
      ['g:a', 3, 3],
      ['g:b', 1, 1],
      ['g:c', 4, 4],
    ]);
    expect(states[0]!.recent_message_ids).to.deep.equal(['m3']);
  });
});
