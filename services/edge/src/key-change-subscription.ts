// Early snapshot refreshes: the management API publishes on keyChangesChannel(prefix, environment)
// after creating, re-scoping or revoking a key, and the edge reloads instead of waiting for the
// next period. The message body is not trusted or needed: any message means "reload".
//
// Notifications are an optimisation, never a requirement: the periodic refresh bounds staleness
// whatever happens here. So a failed subscribe is logged, not fatal; and after the subscriber
// reconnects (when messages may have been missed) the edge reloads once to catch up.
import { errorMessage, type Logger } from '@lattice/core';
import { subscribeChannels } from '@lattice/redis';
import type { Redis } from 'ioredis';

export interface KeyChangeSubscriptionOptions {
  /** A connection of its own: a subscribed connection can run nothing else. */
  subscriber: Redis;
  channel: string;
  onChange: () => void;
  logger: Logger;
}

export interface KeyChangeSubscription {
  close(): Promise<void>;
}

export function subscribeKeyChanges(opts: KeyChangeSubscriptionOptions): KeyChangeSubscription {
  const { subscriber, channel, onChange } = opts;
  const log = opts.logger.child({ component: 'key-changes', channel });
  let connectedBefore = subscriber.status === 'ready';

  const onMessage = (from: string) => {
    if (from === channel) onChange();
  };
  const subscribe = () => {
    subscribeChannels(subscriber, channel).then(
      () => log.debug('subscribed to key change notifications'),
      (err: unknown) =>
        log.warn(
          { err: errorMessage(err) },
          'key change subscription failed; relying on the periodic refresh',
        ),
    );
  };
  const onReady = () => {
    // ioredis resubscribes by itself after a reconnect only if the first subscribe succeeded.
    subscribe();
    if (connectedBefore) onChange();
    connectedBefore = true;
  };

  subscriber.on('message', onMessage);
  subscriber.on('ready', onReady);
  if (subscriber.status === 'ready') subscribe();

  return {
    async close() {
      subscriber.off('message', onMessage);
      subscriber.off('ready', onReady);
      if (subscriber.status === 'ready') await subscriber.unsubscribe(channel).catch(() => {});
    },
  };
}
