// Group commit of attempt outcomes: the endpoint loops' outcomes that arrive while a write is in
// flight (or in the same synchronous stretch) go out together in the next write, one statement
// and one commit for all of them. A loop waits for its own answer; a failed write rejects each outcome of
// its group, and each loop retries its own. Under load the groups grow by themselves; alone, an
// outcome waits for no one.
import type { AttemptOutcome, DeliveryStore, RecordedAttempt } from './delivery-store.ts';

export interface OutcomeWriter {
  record(outcome: AttemptOutcome): Promise<RecordedAttempt>;
}

interface Queued {
  outcome: AttemptOutcome;
  resolve(r: RecordedAttempt): void;
  reject(err: unknown): void;
}

/** Outcomes per statement at the most. */
const MAX_GROUP = 500;

export function createOutcomeWriter(store: Pick<DeliveryStore, 'recordAttempts'>): OutcomeWriter {
  let queue: Queued[] = [];
  let writing = false;
  let scheduled = false;

  async function flush(): Promise<void> {
    scheduled = false;
    if (writing || queue.length === 0) return;
    writing = true;
    const group = queue.slice(0, MAX_GROUP);
    queue = queue.slice(group.length);
    try {
      const answers = await store.recordAttempts(group.map((q) => q.outcome));
      for (const [i, q] of group.entries()) q.resolve(answers[i]!);
    } catch (err) {
      for (const q of group) q.reject(err);
    } finally {
      writing = false;
      if (queue.length > 0) void flush();
    }
  }

  return {
    record(outcome) {
      return new Promise<RecordedAttempt>((resolve, reject) => {
        queue.push({ outcome, resolve, reject });
        if (!writing && !scheduled) {
          scheduled = true;
          queueMicrotask(() => void flush());
        }
      });
    },
  };
}
