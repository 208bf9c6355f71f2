// Expired presence entries leave on the channel's next command; for a quiet channel the sweep
// supplies that command. It finds channels holding expired entries and produces one PresenceLeave
// with reason `expired` for each: the channel actor (the single writer) then drops every expired
// entry and fans out the leave events. An entry refreshed in between is kept (channel-logic.ts).
import { type Clock, type Logger, newId, systemClock } from '@lattice/core';
import type { Codec, RecordProducer } from '@lattice/kafka';
import type { Knex } from 'knex';
import {
  type ChannelCommandRecord,
  PRESENCE_EXPIRED_REASON,
  presenceCommandRecord,
} from '../channel/channel-command.ts';
import { type ChannelId, channelCommandKey } from '../channel/channel-id.ts';

export interface PresenceSweepOptions {
  db: Knex;
  producer: RecordProducer;
  /** The channel command topic, with the deployment prefix. */
  topic: string;
  codec: Codec<ChannelCommandRecord>;
  logger: Logger;
  clock?: Clock;
  /** Channels woken per run at most. */
  maxChannels?: number;
  /** Sweep only these products' channels (default: every product). */
  productIds?: readonly string[];
}

export interface PresenceSweep {
  runOnce(): Promise<{ channels: number }>;
}

export function createPresenceSweep(opts: PresenceSweepOptions): PresenceSweep {
  const clock = opts.clock ?? systemClock;
  const log = opts.logger.child({ component: 'presence-sweep' });
  return {
    async runOnce() {
      const nowMs = clock.nowMs();
      const q = opts.db('channel_presence').where('expires_at', '<=', new Date(nowMs));
      if (opts.productIds) q.whereIn('product_id', [...opts.productIds]);
      const rows = (await q
        .groupBy('product_id', 'environment', 'channel')
        .select('product_id', 'environment', 'channel', opts.db.raw('min(connection_id) as connection_id'))
        .limit(opts.maxChannels ?? 1_000)) as Array<{
        product_id: string;
        environment: ChannelId['environment'];
        channel: string;
        connection_id: string;
      }>;
      if (rows.length === 0) return { channels: 0 };
      const records = rows.map((r) => {
        const id: ChannelId = { productId: r.product_id, environment: r.environment, channel: r.channel };
        return {
          key: channelCommandKey(id),
          value: presenceCommandRecord(id, newId(), nowMs, {
            action: 'leave',
            connectionId: r.connection_id,
            reason: PRESENCE_EXPIRED_REASON,
          }),
        };
      });
      await opts.producer.send(opts.topic, opts.codec, records);
      log.info({ channels: rows.length }, 'presence sweep woke channels with expired entries');
      return { channels: rows.length };
    },
  };
}
