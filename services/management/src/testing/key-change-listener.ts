// Integration-test helper: listens on the key change channels of a test management server, the
// way an edge does, and waits for announcements.
import { createLogger, type Environment } from '@lattice/core';
import { closeRedis, createRedis, keyChangesChannel } from '@lattice/redis';
import { startTestManagement, type TestManagement } from './test-management.ts';

export interface KeyChangeMessage {
  channel: string;
  product_id: string;
  environment: Environment;
  key_ids: string[];
  change: string;
}

export interface KeyChangeListener {
  readonly received: KeyChangeMessage[];
  /** The first message (already received or still to come) matching `match`; rejects after timeoutMs. */
  waitFor(match: (m: KeyChangeMessage) => boolean, timeoutMs?: number): Promise<KeyChangeMessage>;
  close(): Promise<void>;
}

export async function listenForKeyChanges(t: TestManagement): Promise<KeyChangeListener> {
  const logger = createLogger({ name: 'key-change-listener', level: 'warn' });
  const subscriber = createRedis({ url: t.config.redisUrl, logger, name: 'key-change-listener' });
  const received: KeyChangeMessage[] = [];
  const waiters = new Set<() => void>();
  subscriber.on('message', (channel: string, message: string) => {
    received.push({ channel, ...(JSON.parse(message) as Omit<KeyChangeMessage, 'channel'>) });
    for (const wake of waiters) wake();
  });
  await subscriber.subscribe(
    keyChangesChannel(t.config.redisKeyPrefix, 'production'),
    keyChangesChannel(t.config.redisKeyPrefix, 'development'),
  );
  return {
    received,
    waitFor(match, timeoutMs = 5000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const found = received.find(match);
          if (!found) return;
          cleanup();
          resolve(found);
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(new Error(`no matching key change within ${timeoutMs} ms; got ${JSON.stringify(received)}`));
        }, timeoutMs);
        const cleanup = () => {
          clearTimeout(timer);
          waiters.delete(check);
        };
        waiters.add(check);
        check();
      });
    },
    close: () => closeRedis(subscriber),
  };
}

export interface ManagementWithKeyChanges {
  readonly t: TestManagement;
  readonly changes: KeyChangeListener;
}

/**
 * Registers the hooks of a suite on one test management server whose key change announcements
 * it listens to: both start before the suite's first test and close after its last.
 */
export function useManagementWithKeyChanges(): ManagementWithKeyChanges {
  let started: ManagementWithKeyChanges | undefined;
  before(async () => {
    const t = await startTestManagement();
    started = { t, changes: await listenForKeyChanges(t) };
  });
  after(async () => {
    await started?.changes.close();
    await started?.t.close();
  });
  return {
    get t() {
      if (!started) throw new Error('the test management server runs only inside its suite');
      return started.t;
    },
    get changes() {
      if (!started) throw new Error('the test management server runs only inside its suite');
      return started.changes;
    },
  };
}
