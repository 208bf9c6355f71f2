// A fix for kafkajs 2.2.4's request queue (issues tulios/kafkajs#1556, #1604, #1704, unfixed
// upstream): after every response, `scheduleCheckPendingRequests` arms a timer even when no
// request waits and the connection is not throttled, with a negative delay (`throttledUntil` is
// -1), which Node runs after 1 ms (the TimeoutNegativeWarning this project used to silence); the
// timer re-arms itself. So every connection that ever got an answer polls 1000 times a second
// forever: an idle client with two connections burns about 6% of a core, and the actors process
// (5 consumer groups, producers, admins: ~15 connections) wakes its event loop about as often as
// it can, which at 100 webhook events a second cost it more than all of its real work.
//
// The check is only needed while a request waits in the queue (pushed while the connection was
// throttled or at its in-flight limit) or while the connection is throttled; in both cases the
// original schedules it as before (a pushed request arms it, and so does each response). Nothing
// else changes, so a kafkajs that fixes it upstream is left as it is by this wrapper.
import { createRequire } from 'node:module';

interface RequestQueueLike {
  pending: unknown[];
  throttledUntil: number;
  scheduleCheckPendingRequests(): void;
}

const PATCHED = Symbol.for('lattice.kafkajs.requestQueue.noIdlePolling');

type RequestQueueClass = { prototype: RequestQueueLike & { [PATCHED]?: true } };

/** kafkajs's RequestQueue class (not exported by its index: read from its source tree). */
export function kafkajsRequestQueue(): RequestQueueClass {
  const require = createRequire(import.meta.url);
  return require('kafkajs/src/network/requestQueue/index.js') as RequestQueueClass;
}

/** Idempotent: the prototype is patched once per process (every kafkajs client shares it). */
export function stopIdleRequestQueuePolling(): void {
  const proto = kafkajsRequestQueue().prototype;
  if (proto[PATCHED] || typeof proto.scheduleCheckPendingRequests !== 'function') return;
  const original = proto.scheduleCheckPendingRequests;
  proto.scheduleCheckPendingRequests = function (this: RequestQueueLike): void {
    // Nothing waits and nothing throttles: a push or the next response checks the queue again.
    if (this.pending.length === 0 && this.throttledUntil <= Date.now()) return;
    original.call(this);
  };
  proto[PATCHED] = true;
}
