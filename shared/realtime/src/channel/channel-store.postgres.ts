// ChannelStore on PostgreSQL (tables of migrations 0003 and 0004).
import { createTurnBatcher } from '@lattice/core';
import type { Knex } from 'knex';
import type { PayloadRef } from '../payload/payload-store.ts';
import type { ChannelEntry } from './channel-entry.ts';
import type { ChannelId } from './channel-id.ts';
import type { PresenceConnection } from './channel-state.ts';
import {
  type ChannelCommit,
  ChannelFencedError,
  type ChannelStore,
  type StoredChannel,
} from './channel-store.ts';

interface StateRow {
  epoch: string;
  top_offset: string;
  applied_partition: number;
  applied_offset: string;
  recent_message_ids: string[];
}

interface PresenceRow {
  connection_id: string;
  identity: string;
  info_json: string | null;
  gateway_id: string;
  expires_at: Date;
}

/** History rows per INSERT statement, and the payload bytes one statement may carry. */
const HISTORY_ROWS_PER_INSERT = 500;
const HISTORY_BYTES_PER_INSERT = 8 * 1024 * 1024;

const where = (id: ChannelId) => ({
  product_id: id.productId,
  environment: id.environment,
  channel: id.channel,
});

function historyRow(id: ChannelId, e: ChannelEntry) {
  return {
    ...where(id),
    offset: e.offset,
    epoch: e.epoch,
    message_id: e.id,
    name: e.name,
    data_json: e.payload.kind === 'data' ? e.payload.json : null,
    ref: e.payload.kind === 'ref' ? JSON.stringify(e.payload.ref satisfies PayloadRef) : null,
    published_at: new Date(e.publishedAtMs),
  };
}

/** Splits rows so no statement grows past the row or byte budget. */
function chunks(entries: readonly ChannelEntry[]): ChannelEntry[][] {
  const out: ChannelEntry[][] = [];
  let current: ChannelEntry[] = [];
  let bytes = 0;
  for (const e of entries) {
    const size = e.payload.kind === 'data' ? e.payload.json.length : 256;
    if (
      current.length > 0 &&
      (current.length >= HISTORY_ROWS_PER_INSERT || bytes + size > HISTORY_BYTES_PER_INSERT)
    ) {
      out.push(current);
      current = [];
      bytes = 0;
    }
    current.push(e);
    bytes += size;
  }
  if (current.length > 0) out.push(current);
  return out;
}

async function writeState(trx: Knex.Transaction, c: ChannelCommit): Promise<number> {
  const values = {
    epoch: c.state.epoch,
    top_offset: c.state.topOffset,
    applied_partition: c.applied.partition,
    applied_offset: c.applied.offset.toString(),
    recent_message_ids: JSON.stringify(c.state.recentMessageIds),
  };
  if (c.expected === null) {
    const res = await trx.raw(
      `insert into channel_state (product_id, environment, channel, epoch, top_offset, applied_partition,
         applied_offset, recent_message_ids)
       values (?, ?, ?, ?, ?, ?, ?, ?::jsonb) on conflict do nothing`,
      [
        c.id.productId,
        c.id.environment,
        c.id.channel,
        values.epoch,
        values.top_offset,
        values.applied_partition,
        values.applied_offset,
        values.recent_message_ids,
      ],
    );
    return res.rowCount ?? 0;
  }
  return trx('channel_state')
    .where({
      ...where(c.id),
      applied_partition: c.expected.partition,
      applied_offset: c.expected.offset.toString(),
    })
    .update({ ...values, updated_at: trx.fn.now() });
}

/**
 * Fenced state UPDATEs plus their history INSERTs for several channels as ONE statement (data-
 * modifying CTEs): each channel's rows are written only if its own fence matched, so every commit
 * still succeeds or fails on its own, atomically (one statement is one transaction). Returns the
 * indexes of the commits whose fence matched.
 */
async function commitGroup(db: Knex, group: readonly ChannelCommit[]): Promise<Set<number>> {
  // Two json parameters for all rows: cheap to bind, whatever the number of rows.
  const states = JSON.stringify(
    group.map((c, i) => ({
      i,
      product_id: c.id.productId,
      environment: c.id.environment,
      channel: c.id.channel,
      epoch: c.state.epoch,
      top_offset: c.state.topOffset,
      applied_partition: c.applied.partition,
      applied_offset: c.applied.offset.toString(),
      recent_message_ids: c.state.recentMessageIds,
      expected_partition: c.expected!.partition,
      expected_offset: c.expected!.offset.toString(),
    })),
  );
  const history = JSON.stringify(
    group.flatMap((c, i) =>
      c.history.map((e) => ({
        i,
        offset: e.offset,
        epoch: e.epoch,
        message_id: e.id,
        name: e.name,
        data_json: e.payload.kind === 'data' ? e.payload.json : null,
        ref: e.payload.kind === 'ref' ? (e.payload.ref satisfies PayloadRef) : null,
        published_at: new Date(e.publishedAtMs).toISOString(),
      })),
    ),
  );
  const res = await db.raw(
    `with c as (
       select * from json_to_recordset(?::json) as c(i int, product_id uuid, environment text, channel text,
         epoch text, top_offset bigint, applied_partition int, applied_offset bigint, recent_message_ids jsonb,
         expected_partition int, expected_offset bigint)
     ), s as (
       update channel_state t set epoch = c.epoch, top_offset = c.top_offset,
         applied_partition = c.applied_partition, applied_offset = c.applied_offset,
         recent_message_ids = c.recent_message_ids, updated_at = now()
       from c
       where t.product_id = c.product_id and t.environment = c.environment and t.channel = c.channel
         and t.applied_partition = c.expected_partition and t.applied_offset = c.expected_offset
       returning c.i, c.product_id, c.environment, c.channel
     ), h as (
       insert into channel_history (product_id, environment, channel, "offset", epoch, message_id, name,
         data_json, ref, published_at)
       select s.product_id, s.environment, s.channel, x."offset", x.epoch, x.message_id, x.name, x.data_json,
         x.ref::jsonb, x.published_at
       from json_to_recordset(?::json) as x(i int, "offset" bigint, epoch text, message_id text, name text,
         data_json text, ref json, published_at timestamptz)
       join s on s.i = x.i
     )
     select i from s`,
    [states, history],
  );
  return new Set((res.rows as Array<{ i: number }>).map((r) => r.i));
}

/** Commits of one group: together they stay within one INSERT's row and byte budget. */
const GROUP_MAX_COMMITS = 64;

interface Waiting {
  commit: ChannelCommit;
  rows: number;
  bytes: number;
  resolve(matched: boolean): void;
  reject(err: unknown): void;
}

/**
 * Group commit for the steady state (a known channel, history rows only): commits asked for in
 * the same event-loop turn (the actor host applies a batch's keys concurrently, so they arrive
 * together; a turn batcher gathers them) go out as one statement instead of one transaction each
 * (BEGIN, UPDATE, INSERT, COMMIT). PostgreSQL round trips were most of the actors' cost per message. If a group's
 * statement fails, its commits are retried one by one, so one bad channel fails only itself.
 */
function createCommitGrouper(db: Knex) {
  async function run(group: Waiting[]): Promise<void> {
    try {
      const matched = await commitGroup(
        db,
        group.map((w) => w.commit),
      );
      for (const [i, w] of group.entries()) w.resolve(matched.has(i));
    } catch (err) {
      if (group.length === 1) {
        group[0]!.reject(err);
        return;
      }
      await Promise.all(group.map((w) => run([w])));
    }
  }

  function flush(all: Waiting[]): void {
    let group: Waiting[] = [];
    let rows = 0;
    let bytes = 0;
    for (const w of all) {
      if (
        group.length > 0 &&
        (group.length >= GROUP_MAX_COMMITS ||
          rows + w.rows > HISTORY_ROWS_PER_INSERT ||
          bytes + w.bytes > HISTORY_BYTES_PER_INSERT)
      ) {
        void run(group);
        group = [];
        rows = 0;
        bytes = 0;
      }
      group.push(w);
      rows += w.rows;
      bytes += w.bytes;
    }
    if (group.length > 0) void run(group);
  }

  const waiting = createTurnBatcher(flush);
  return (commit: ChannelCommit, bytes: number): Promise<boolean> =>
    new Promise((resolve, reject) => {
      waiting.add({ commit, rows: commit.history.length, bytes, resolve, reject });
    });
}

export function createPostgresChannelStore(db: Knex): ChannelStore {
  const grouped = createCommitGrouper(db);
  return {
    async load(id): Promise<StoredChannel | null> {
      const row = (await db('channel_state').where(where(id)).first()) as StateRow | undefined;
      if (!row) return null;
      const rows = (await db('channel_presence').where(where(id)).orderBy('connection_id')) as PresenceRow[];
      const connections = new Map<string, PresenceConnection>();
      for (const r of rows) {
        connections.set(r.connection_id, {
          connectionId: r.connection_id,
          identity: r.identity,
          gatewayId: r.gateway_id,
          expiresAtMs: r.expires_at.getTime(),
          infoJson: r.info_json,
        });
      }
      return {
        state: {
          epoch: row.epoch,
          topOffset: Number(row.top_offset),
          connections,
          recentMessageIds: row.recent_message_ids,
        },
        applied: { partition: row.applied_partition, offset: BigInt(row.applied_offset) },
      };
    },

    async commit(c) {
      // The steady state (a known channel, history rows only, one INSERT's worth) is group-
      // committed (createCommitGrouper); a fenced commit writes nothing, as before.
      if (c.expected !== null && !c.created && c.presencePut.length === 0 && c.presenceRemove.length === 0) {
        const parts = chunks(c.history);
        if (parts.length <= 1) {
          const bytes = c.history.reduce(
            (n, e) => n + (e.payload.kind === 'data' ? e.payload.json.length : 256),
            0,
          );
          if (!(await grouped(c, bytes))) throw new ChannelFencedError(c.id);
          return;
        }
      }
      await db.transaction(async (trx) => {
        if ((await writeState(trx, c)) !== 1) throw new ChannelFencedError(c.id);
        if (c.created) {
          // Rows left by a lost state belong to an older epoch; the new epoch starts at offset 1.
          await trx('channel_history').where(where(c.id)).delete();
          await trx('channel_presence').where(where(c.id)).delete();
        }
        for (const chunk of chunks(c.history)) {
          await trx('channel_history').insert(chunk.map((e) => historyRow(c.id, e)));
        }
        if (c.presenceRemove.length > 0) {
          await trx('channel_presence')
            .where(where(c.id))
            .whereIn('connection_id', [...c.presenceRemove])
            .delete();
        }
        if (c.presencePut.length > 0) {
          await trx('channel_presence')
            .insert(
              c.presencePut.map((p) => ({
                ...where(c.id),
                connection_id: p.connectionId,
                identity: p.identity,
                info_json: p.infoJson,
                gateway_id: p.gatewayId,
                expires_at: new Date(p.expiresAtMs),
              })),
            )
            .onConflict(['product_id', 'environment', 'channel', 'connection_id'])
            .merge(['identity', 'info_json', 'gateway_id', 'expires_at']);
        }
      });
    },
  };
}
