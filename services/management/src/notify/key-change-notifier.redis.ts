// Key change announcements over Redis pub/sub, on keyChangesChannel(prefix, environment). The
// message is JSON ({"product_id", "environment", "key_ids", "change"}) for logs and tools;
// edges treat any message on their channel as "reload".
import { ENVIRONMENTS, type Environment, errorMessage, type Logger } from '@lattice/core';
import { keyChangesChannel } from '@lattice/redis';
import type { KeyChangeNotifier } from './key-change-notifier.ts';

/** The one Redis command the notifier needs; an ioredis client satisfies it. */
export interface RedisPublisher {
  publish(channel: string, message: string): Promise<number>;
}

export function createRedisKeyChangeNotifier(deps: {
  redis: RedisPublisher;
  keyPrefix: string;
  logger: Logger;
}): KeyChangeNotifier {
  const log = deps.logger.child({ component: 'key-change-notifier' });
  // Built up front, so a bad prefix fails at startup rather than on the first change.
  const channels = Object.fromEntries(
    ENVIRONMENTS.map((env) => [env, keyChangesChannel(deps.keyPrefix, env)]),
  ) as Record<Environment, string>;
  return {
    async keyChanged(change) {
      const message = JSON.stringify({
        product_id: change.productId,
        environment: change.environment,
        key_ids: change.keyIds,
        change: change.change,
      });
      try {
        await deps.redis.publish(channels[change.environment], message);
      } catch (err) {
        log.warn(
          { err: errorMessage(err), environment: change.environment, change: change.change },
          'could not announce a public key change; edges pick it up on their next refresh',
        );
      }
    },
  };
}
