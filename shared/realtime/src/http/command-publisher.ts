// Producing channel commands for the HTTP surfaces and the gateways: the group-commit publisher
// of @lattice/kafka keyed by channel, with a size estimate the inline JSON dominates.
import {
  createGroupCommitPublisher,
  type GroupCommitPublisherOptions,
  PublishFailedError,
} from '@lattice/kafka';
import type { ChannelCommandRecord } from '../channel/channel-command.ts';
import { type ChannelId, channelCommandKey } from '../channel/channel-id.ts';

export { PublishFailedError };

export interface ChannelCommandPublisher {
  /**
   * Resolves once the record is acknowledged by all in-sync replicas; rejects otherwise.
   * `requestId`: the HTTP request it is produced for (the record's `lattice-request-id` header).
   */
  publish(id: ChannelId, record: ChannelCommandRecord, requestId?: string): Promise<void>;
  close(): Promise<void>;
}

export type ChannelCommandPublisherOptions = Omit<
  GroupCommitPublisherOptions<ChannelCommandRecord>,
  'sizeOf' | 'what'
>;

/** Encoded size estimate: the inline JSON dominates; the rest of a record is small. */
function sizeOf(record: ChannelCommandRecord): number {
  const body = record.body as { 'lattice.realtime.Publish'?: { data_json: string | null } };
  return (body['lattice.realtime.Publish']?.data_json?.length ?? 0) * 3 + 512;
}

export function createChannelCommandPublisher(opts: ChannelCommandPublisherOptions): ChannelCommandPublisher {
  const inner = createGroupCommitPublisher({ ...opts, sizeOf, what: 'channel commands' });
  return {
    publish: (id, record, requestId) => inner.publish(channelCommandKey(id), record, requestId),
    close: () => inner.close(),
  };
}
