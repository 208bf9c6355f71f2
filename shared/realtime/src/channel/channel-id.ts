// A channel is identified by product, environment and name: development and production never
// share a channel, and two products never do. The Kafka record key spells the identity out, so
// all commands of one channel land on one partition, in order.
import { ENVIRONMENTS, type Environment } from '@lattice/core';

export interface ChannelId {
  productId: string;
  environment: Environment;
  channel: string;
}

/** Record key of the channel's commands: `product_id:environment:channel`. */
export function channelCommandKey(id: ChannelId): string {
  return `${id.productId}:${id.environment}:${id.channel}`;
}

/**
 * The identity a record key names, or null when the key is not one. Product ids and
 * environments hold no colon, so the first two colons split the key; the channel keeps its own.
 */
export function parseChannelCommandKey(key: string): ChannelId | null {
  const first = key.indexOf(':');
  const second = first < 0 ? -1 : key.indexOf(':', first + 1);
  if (first <= 0 || second < 0 || second === key.length - 1) return null;
  const environment = key.slice(first + 1, second);
  if (!(ENVIRONMENTS as readonly string[]).includes(environment)) return null;
  return {
    productId: key.slice(0, first),
    environment: environment as Environment,
    channel: key.slice(second + 1),
  };
}

export function sameChannel(a: ChannelId, b: ChannelId): boolean {
  return a.productId === b.productId && a.environment === b.environment && a.channel === b.channel;
}
