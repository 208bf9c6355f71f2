// The endpoint actor's effects: per endpoint, one loop that sends its deliveries one at a time in
// `seq` order, holding later ones back while the oldest waits for its retry (decisions.md
// "Webhook delivery defaults"). Records on `mail.webhook-deliveries` only wake a loop; the truth
// (what is pending, when it is due) is the delivery rows, so a crash or a rebalance loses no due
// time: the partition's next owner is woken by its assignment and the wake sweep.
//
// An attempt's outcome is stored fenced on the attempts the delivery had when read: a process that
// dies between the request and storing its outcome leaves the attempt to be made again (at least
// once, same webhook-id) and counted once; two owners overlapping in a rebalance count it once.
import {
  type Logger,
  openSecret,
  retryWithBackoff,
  type Scheduler,
  type SecretKeyring,
  type Timer,
} from '@lattice/core';
import type { WebhookStages } from '../mail-stages.ts';
import { type AttemptAnswer, decideAfterAttempt, type RetrySchedule } from './delivery-logic.ts';
import type { DeliveryMetrics } from './delivery-metrics.ts';
import type { DeliveryStore, EndpointForAttempt, PendingDelivery } from './delivery-store.ts';
import { createOutcomeWriter } from './outcome-writer.ts';
import { signWebhook, WEBHOOK_SECRET_PURPOSE, webhookSecretKey } from './webhook-signature.ts';

/** Sends one signed attempt (webhook-request.ts in production). */
export interface WebhookPoster {
  post(url: string, headers: Record<string, string>, body: string): Promise<AttemptAnswer>;
}

/** Pending deliveries read at once; the next window is read when these are done. */
const WINDOW_SIZE = 32;

export interface EndpointWorkersDeps {
  store: DeliveryStore;
  poster: WebhookPoster;
  keyring: SecretKeyring;
  schedule: RetrySchedule;
  scheduler: Scheduler;
  logger: Logger;
  metrics: DeliveryMetrics;
  /** The jitter's draw; tests fix it. */
  random?: () => number;
  /** Wait before a loop whose database read failed is tried again. Default 1 000. */
  storeRetryMs?: number;
  /** Observes `event_attempted` of first attempts (docs/architecture.md "Where the time goes"). */
  stages?: WebhookStages;
}

export interface EndpointWorkers {
  /**
   * The endpoint (on `partition`) may have work: attempt what is due, wait for what is not.
   * False when this host does not run that endpoint (the partition is not its own, or the
   * endpoint is placed on another one): the wake is ignored.
   */
  wake(endpointId: string, partition: number): boolean;
  /** This host now owns exactly these partitions; loops of others stop after their attempt. */
  own(partitions: readonly number[]): void;
  owns(partition: number): boolean;
  /**
   * Where endpoints are placed now (a re-partitioned topic moves some): a loop whose endpoint
   * moved to another partition stops after its attempt, and wakes that name the old partition
   * are ignored, so the endpoint's new owner is the only one to run it.
   */
  placeBy(partitionOf: (endpointId: string) => number): void;
  /** Endpoints with a loop running or waiting for a due time. */
  active(): number;
  close(): Promise<void>;
}

interface Loop {
  endpointId: string;
  partition: number;
  running: Promise<void> | null;
  /** Woken while running: read the head again before going idle. */
  dirty: boolean;
  stopped: boolean;
  timer: Timer | undefined;
}

export function createEndpointWorkers(deps: EndpointWorkersDeps): EndpointWorkers {
  const { store, scheduler, metrics } = deps;
  const log = deps.logger.child({ component: 'webhook-endpoints' });
  const random = deps.random ?? Math.random;
  const storeRetryMs = deps.storeRetryMs ?? 1_000;
  const loops = new Map<string, Loop>();
  const secretKeys = new Map<string, Buffer>();
  let owned = new Set<number>();
  let placed: ((endpointId: string) => number) | null = null;
  let closed = false;
  const outcomes = createOutcomeWriter(store);

  function secretKeyOf(sealed: string): Buffer {
    let key = secretKeys.get(sealed);
    if (!key) {
      key = webhookSecretKey(openSecret(deps.keyring, WEBHOOK_SECRET_PURPOSE, sealed));
      if (secretKeys.size > 10_000) secretKeys.clear();
      secretKeys.set(sealed, key);
    }
    return key;
  }

  function wake(endpointId: string, partition: number): boolean {
    if (closed || !owned.has(partition) || (placed !== null && placed(endpointId) !== partition))
      return false;
    let loop = loops.get(endpointId);
    if (!loop) {
      loop = { endpointId, partition, running: null, dirty: false, stopped: false, timer: undefined };
      loops.set(endpointId, loop);
    }
    loop.partition = partition;
    loop.stopped = false;
    loop.dirty = true;
    scheduler.clearTimer(loop.timer);
    loop.timer = undefined;
    if (!loop.running) loop.running = run(loop);
    return true;
  }

  async function run(loop: Loop): Promise<void> {
    try {
      while (loop.dirty && !loop.stopped && !closed) {
        loop.dirty = false;
        await drain(loop);
      }
    } catch (err) {
      log.warn(
        { err, endpointId: loop.endpointId, retryInMs: storeRetryMs },
        'webhook endpoint loop failed; retrying',
      );
      if (!loop.stopped && !closed) wakeLater(loop, storeRetryMs);
    } finally {
      loop.running = null;
      // Idle (nothing pending) or no longer ours: forget the loop; a later wake starts a new one.
      if (loop.timer === undefined || loop.stopped || closed) {
        scheduler.clearTimer(loop.timer);
        loop.timer = undefined;
        if (loops.get(loop.endpointId) === loop) loops.delete(loop.endpointId);
      }
    }
  }

  /** One timer per loop: a new one replaces the last, and a replaced one does nothing if it fires. */
  function wakeLater(loop: Loop, delayMs: number): void {
    scheduler.clearTimer(loop.timer);
    const timer = scheduler.setTimeout(
      () => {
        if (loop.timer !== timer) return;
        loop.timer = undefined;
        wake(loop.endpointId, loop.partition);
      },
      Math.max(0, delayMs),
      { unref: true },
    );
    loop.timer = timer;
  }

  /**
   * Attempts the endpoint's due deliveries in order until none is left or the oldest must wait.
   * Deliveries are read a window at a time; the endpoint's state for each attempt is the one the
   * previous outcome's write answered, so a disable or a new URL applies from the next attempt.
   * A window shorter than WINDOW_SIZE held every pending delivery there was when it was read: once
   * it is done, nothing is read again. A delivery recorded (or put back) since comes with a wake,
   * which marks the loop dirty and makes run() drain again, so no read per loop goes empty.
   */
  async function drain(loop: Loop): Promise<void> {
    let idleFailures = 0;
    for (;;) {
      if (loop.stopped || closed) return;
      const window = await store.window(loop.endpointId, WINDOW_SIZE);
      if (!window) return;
      let endpoint = window.endpoint;
      let done = 0;
      for (const delivery of window.deliveries) {
        if (loop.stopped || closed) return;
        const nowMs = scheduler.nowMs();
        const dueInMs = delivery.nextAttemptAtMs - nowMs;
        if (dueInMs > 0) {
          wakeLater(loop, dueInMs);
          return;
        }
        // Disabled or deleted: what is due now fails without a request (spec "Webhook delivery":
        // "Attempt due"); an oldest delivery waiting for its retry waits on, so a short disable
        // does not throw the backlog away.
        if (!endpoint.live) {
          const failed = await store.failWithoutRequest(loop.endpointId, nowMs);
          metrics.deliveries.inc({ status: 'failed_without_request' }, failed);
          // Zero: re-enabled meanwhile; read again, but never spin on a disagreement.
          if (failed === 0 && ++idleFailures > 2) return;
          break;
        }
        const outcome = await attempt(loop, endpoint, delivery);
        // Another owner stored this attempt, or the delivery waits for a retry: read again.
        if (!outcome.recorded || outcome.pending) break;
        if (outcome.endpoint) endpoint = outcome.endpoint;
        done++;
      }
      if (done === window.deliveries.length && done < WINDOW_SIZE) return;
    }
  }

  async function attempt(
    loop: Loop,
    endpoint: EndpointForAttempt,
    delivery: PendingDelivery,
  ): Promise<{ recorded: boolean; pending: boolean; endpoint: EndpointForAttempt | null }> {
    let answer: AttemptAnswer;
    try {
      const key = secretKeyOf(endpoint.secretSealed);
      const sentAtMs = scheduler.nowMs();
      const signed = signWebhook(key, delivery.id, sentAtMs / 1000, delivery.payload);
      // A first attempt is due from the moment its event's fan-out stored the delivery.
      if (delivery.attempts === 0)
        deps.stages?.observe('event_attempted', sentAtMs - delivery.nextAttemptAtMs);
      answer = await deps.poster.post(endpoint.url, { ...signed }, delivery.payload);
    } catch (err) {
      // A secret the keyring cannot open (a removed kid), or a bug in the poster: an attempt
      // that sent nothing, recorded like a connection failure so it is visible in the log.
      log.error(
        { err, endpointId: endpoint.id, deliveryId: delivery.id },
        'webhook attempt could not be made',
      );
      answer = {
        ok: false,
        responseStatus: null,
        error: 'the attempt could not be made (see the actors log)',
        retryAfterMs: null,
      };
    }
    metrics.attempts.inc({
      outcome: answer.ok ? 'success' : answer.responseStatus === null ? 'no_answer' : 'http_error',
    });
    const attemptedAtMs = scheduler.nowMs();
    const decision = decideAfterAttempt(delivery, answer, attemptedAtMs, deps.schedule, random());
    // The request was made: store its outcome until it is stored or this host loses the endpoint
    // (then its next owner makes the attempt again; it counts once).
    const recorded = await retryWithBackoff(
      () =>
        outcomes.record({
          deliveryId: delivery.id,
          endpointId: endpoint.id,
          seenAttempts: delivery.attempts,
          attemptedAtMs,
          decision,
        }),
      {
        scheduler,
        backoff: { initialMs: 100, maxMs: 5_000, jitterRatio: 0.2 },
        beforeRetry(err, n) {
          if (loop.stopped || closed) throw err;
          log.warn(
            { err, deliveryId: delivery.id, attempt: n },
            'storing a webhook attempt failed; retrying',
          );
          return undefined;
        },
      },
    );
    if (!recorded.recorded) {
      metrics.overtaken.inc();
      return { recorded: false, pending: false, endpoint: recorded.endpoint };
    }
    if (decision.status !== 'pending') metrics.deliveries.inc({ status: decision.status });
    if (recorded.disabledEndpoint) {
      metrics.disabled.inc({ reason: recorded.disabledEndpoint });
      log.warn({ endpointId: endpoint.id, reason: recorded.disabledEndpoint }, 'webhook endpoint disabled');
    }
    return { recorded: true, pending: decision.status === 'pending', endpoint: recorded.endpoint };
  }

  return {
    wake,
    own(partitions) {
      owned = new Set(partitions);
      for (const loop of loops.values()) {
        if (owned.has(loop.partition)) continue;
        loop.stopped = true;
        scheduler.clearTimer(loop.timer);
        loop.timer = undefined;
        if (!loop.running) loops.delete(loop.endpointId);
      }
    },
    owns: (partition) => owned.has(partition),
    placeBy(partitionOf) {
      placed = partitionOf;
      for (const loop of loops.values()) {
        if (partitionOf(loop.endpointId) === loop.partition) continue;
        loop.stopped = true;
        scheduler.clearTimer(loop.timer);
        loop.timer = undefined;
        if (!loop.running) loops.delete(loop.endpointId);
      }
    },
    active: () => loops.size,
    async close() {
      closed = true;
      for (const loop of loops.values()) {
        loop.stopped = true;
        scheduler.clearTimer(loop.timer);
      }
      await Promise.all([...loops.values()].map((l) => l.running));
      loops.clear();
    },
  };
}
