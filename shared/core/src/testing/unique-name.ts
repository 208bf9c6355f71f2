// Names no other test, run or process uses, so tests sharing one Kafka, Redis and PostgreSQL
// never see each other's topics, keys or products.
import { randomBytes } from 'node:crypto';

let counter = 0;

/**
 * A name valid as a Kafka topic (letters, digits, . _ -), a Redis key part and a product name.
 * Lowercase, prefix first so logs stay readable. A Redis key prefix is `${uniqueName('x')}:`.
 */
export function uniqueName(prefix: string): string {
  counter += 1;
  const parts = [
    prefix,
    process.pid.toString(36),
    Date.now().toString(36),
    counter.toString(36),
    randomBytes(3).toString('hex'),
  ];
  return parts.join('-').toLowerCase();
}
