// Coalesces rate-limit calls into one Redis round trip per event-loop turn. Each request arrives
// in its own I/O callback, and ioredis auto-pipelining only merges commands issued within one
// tick, so without help every request pays its own socket write and read (on loopback a write
// syscall also runs the kernel's delivery to Redis: the largest single cost of the edge's hot
// path). Here calls wait for a setImmediate, then all of them are issued synchronously in one
// tick, which auto-pipelining sends as one write. Each call still gets its own exact answer;
// the price is the wait for the end of the current poll phase (well under a millisecond).
import type { RateLimiter, RateLimitResult } from '@lattice/redis';

interface Pending {
  bucketId: string;
  cost: number;
  resolve: (result: RateLimitResult) => void;
  reject: (err: unknown) => void;
}

export function createBatchedRateLimiter(inner: RateLimiter): RateLimiter {
  let queue: Pending[] = [];
  let scheduled = false;

  function flush(): void {
    scheduled = false;
    const batch = queue;
    queue = [];
    for (const p of batch) inner.consume(p.bucketId, p.cost).then(p.resolve, p.reject);
  }

  return {
    policy: inner.policy,
    consume(bucketId, cost = 1) {
      return new Promise((resolve, reject) => {
        queue.push({ bucketId, cost, resolve, reject });
        if (!scheduled) {
          scheduled = true;
          setImmediate(flush);
        }
      });
    },
  };
}
