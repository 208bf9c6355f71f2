// ChannelStore on PostgreSQL (tables of migrations 0003 and 0004).
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

export function createPostgresChannelStore(db: Knex): ChannelStore {
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
