// SUBSCRIBE and PSUBSCRIBE that never race ioredis's handshake. ioredis 5 writes commands that
// Redis allows while loading (SUBSCRIBE and PSUBSCRIBE among them) as soon as the socket is up,
// before its ready check: a subscribe sent in that window puts the connection in subscriber mode,
// the ready check's INFO is then refused ("Connection in subscriber mode"), and ioredis drops and
// reconnects it, losing what is published meanwhile. Sent only once the connection is past the
// handshake, a subscribe waits in the offline queue like any command (and fails as fast).
import type { Redis } from 'ioredis';

/** Resolves at once unless `redis` is mid-handshake; then when it is ready, or has given up. */
export function afterHandshake(redis: Redis): Promise<void> {
  if (redis.status !== 'connect') return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      redis.off('ready', done);
      redis.off('close', done);
      redis.off('end', done);
      resolve();
    };
    redis.on('ready', done);
    redis.on('close', done);
    redis.on('end', done);
  });
}

export async function subscribeChannels(redis: Redis, ...channels: string[]): Promise<unknown> {
  await afterHandshake(redis);
  return redis.subscribe(...channels);
}

export async function subscribePatterns(redis: Redis, ...patterns: string[]): Promise<unknown> {
  await afterHandshake(redis);
  return redis.psubscribe(...patterns);
}
