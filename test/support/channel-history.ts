// A channel's history rows as the system of record holds them (PostgreSQL), for the tests and the
// soak that check what clients were answered against what was applied.
import type { Db } from '@lattice/store';

export interface HistoryRow {
  offset: string;
  epoch: string;
  message_id: string;
  data_json: string;
}

export function channelHistory(db: Db, productId: string, channel: string): Promise<HistoryRow[]> {
  return db('channel_history')
    .where({ product_id: productId, environment: 'production', channel })
    .orderBy('offset')
    .select('offset', 'epoch', 'message_id', 'data_json');
}
