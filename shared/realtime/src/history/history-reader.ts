// History reads (decisions.md "Public edge routes"): a window read (`lastN` or `lastMs`) answers
// the latest entries with `recovered: true`; a cursor read (`offset` + `epoch`) answers the
// entries after `offset`, with `recovered: false` when the epoch differs or entries after the
// offset are no longer served (they aged out of the window, were purged, or were never kept
// because the namespace retains nothing). Only entries inside the namespace's history window
// are served, oldest first, at most HISTORY_READ_MAX_ENTRIES per answer (a cursor reader pages
// on from the last offset it got). A namespace with history off answers an empty result.
import type { Environment } from '@lattice/core';
import type { Knex } from 'knex';
import { type ChannelEntry, type HistoryEntryJson, historyEntryJson } from '../channel/channel-entry.ts';
import type { ChannelId } from '../channel/channel-id.ts';
import type { NamespacePolicyLookup } from '../channel/policy-cache.ts';
import { namespaceOf } from '../names.ts';
import type { PayloadRef } from '../payload/payload-store.ts';

export const HISTORY_LAST_N_MAX = 1000;
export const HISTORY_READ_MAX_ENTRIES = 1000;
/** The epoch reported for a channel that has no state yet (nothing was ever published or entered). */
export const EMPTY_CHANNEL_EPOCH = '';

export type HistoryWindow = { lastN: number } | { lastMs: number };
export interface HistoryCursor {
  offset: number;
  epoch: string;
}

export interface HistoryReadInput {
  productId: string;
  environment: Environment;
  channel: string;
  /** Exactly one of window and cursor. */
  window?: HistoryWindow;
  cursor?: HistoryCursor;
  nowMs: number;
}

export interface HistoryAnswer {
  data: HistoryEntryJson[];
  epoch: string;
  top_offset: number;
  recovered: boolean;
}

/** `namespace_not_found` → 404. */
export type HistoryReadResult = HistoryAnswer | { refused: 'namespace_not_found' };

export interface HistoryReader {
  read(input: HistoryReadInput): Promise<HistoryReadResult>;
}

interface HistoryRow {
  offset: string;
  epoch: string;
  message_id: string;
  name: string | null;
  data_json: string | null;
  ref: PayloadRef | null;
  published_at: Date;
}

function toEntry(r: HistoryRow): ChannelEntry {
  return {
    id: r.message_id,
    offset: Number(r.offset),
    epoch: r.epoch,
    name: r.name,
    payload: r.data_json !== null ? { kind: 'data', json: r.data_json } : { kind: 'ref', ref: r.ref! },
    publishedAtMs: r.published_at.getTime(),
  };
}

function checkInput(input: HistoryReadInput): void {
  if ((input.window === undefined) === (input.cursor === undefined)) {
    throw new TypeError('a history read takes exactly one of window and cursor');
  }
  const w = input.window;
  if (w && 'lastN' in w && !(Number.isInteger(w.lastN) && w.lastN >= 1 && w.lastN <= HISTORY_LAST_N_MAX)) {
    throw new RangeError(`lastN must be an integer from 1 to ${HISTORY_LAST_N_MAX}`);
  }
  if (w && 'lastMs' in w && !(w.lastMs > 0)) throw new RangeError('lastMs must be positive');
  if (input.cursor && !(Number.isSafeInteger(input.cursor.offset) && input.cursor.offset >= 0)) {
    throw new RangeError('cursor offset must be a non-negative integer');
  }
}

/**
 * Whether a cursor read recovered: the epoch matches (a cursor at offset 0 of the empty-channel
 * epoch saw nothing, so any epoch matches it) and the entries after the offset are all there.
 */
/** The cursor is of this epoch, or was taken before the channel's first message (offset 0, ""). */
export function cursorEpochMatches(cursor: HistoryCursor, epoch: string): boolean {
  return cursor.epoch === epoch || (cursor.offset === 0 && cursor.epoch === EMPTY_CHANNEL_EPOCH);
}

export function cursorRecovered(
  cursor: HistoryCursor,
  epoch: string,
  topOffset: number,
  servedOffsets: readonly number[],
): boolean {
  if (!cursorEpochMatches(cursor, epoch) || cursor.offset > topOffset) return false;
  const expected = Math.min(topOffset - cursor.offset, HISTORY_READ_MAX_ENTRIES);
  return servedOffsets.length === expected && servedOffsets.every((o, i) => o === cursor.offset + 1 + i);
}

export function createHistoryReader(opts: { db: Knex; policies: NamespacePolicyLookup }): HistoryReader {
  const { db } = opts;
  return {
    async read(input) {
      checkInput(input);
      const policy = await opts.policies.get(input.productId, namespaceOf(input.channel));
      if (policy === null) return { refused: 'namespace_not_found' };
      const id: ChannelId = {
        productId: input.productId,
        environment: input.environment,
        channel: input.channel,
      };
      const where = { product_id: id.productId, environment: id.environment, channel: id.channel };
      const state = (await db('channel_state').where(where).first('epoch', 'top_offset')) as
        | { epoch: string; top_offset: string }
        | undefined;
      const epoch = state?.epoch ?? EMPTY_CHANNEL_EPOCH;
      const topOffset = Number(state?.top_offset ?? 0);
      const cursor = input.cursor;
      const windowMs = policy.historyWindowSeconds * 1000;

      let rows: HistoryRow[] = [];
      const served = windowMs > 0 && state !== undefined;
      if (served && (!cursor || cursorEpochMatches(cursor, epoch))) {
        // Rows of this epoch up to the top we report, inside the window: a concurrent reset or
        // append between the two queries cannot make the answer disagree with itself.
        let cutoffMs = input.nowMs - windowMs;
        const w = input.window;
        if (w && 'lastMs' in w) cutoffMs = Math.max(cutoffMs, input.nowMs - w.lastMs);
        const q = db('channel_history')
          .where(where)
          .andWhere('epoch', epoch)
          .andWhere('offset', '<=', topOffset)
          .andWhere('published_at', '>=', new Date(cutoffMs))
          .select('offset', 'epoch', 'message_id', 'name', 'data_json', 'ref', 'published_at');
        if (cursor) {
          rows = (await q
            .andWhere('offset', '>', cursor.offset)
            .orderBy('offset', 'asc')
            .limit(HISTORY_READ_MAX_ENTRIES)) as HistoryRow[];
        } else {
          const limit = w && 'lastN' in w ? w.lastN : HISTORY_READ_MAX_ENTRIES;
          rows = ((await q.orderBy('offset', 'desc').limit(limit)) as HistoryRow[]).reverse();
        }
      }
      const entries = rows.map(toEntry);
      return {
        data: entries.map(historyEntryJson),
        epoch,
        top_offset: topOffset,
        recovered: cursor
          ? cursorRecovered(
              cursor,
              epoch,
              topOffset,
              entries.map((e) => e.offset),
            )
          : true,
      };
    },
  };
}
