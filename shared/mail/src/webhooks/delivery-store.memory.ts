// DeliveryStore in memory, for the endpoint loops' unit tests only (the platform's is .postgres):
// the same fencing and endpoint effects, on plain objects the tests arrange and inspect.
import { AUTO_DISABLE_AFTER_FAILURES } from './delivery-logic.ts';
import type { DeliveryStore, DeliveryWindow, EndpointForAttempt, RecordedAttempt } from './delivery-store.ts';

export interface MemoryEndpoint {
  id: string;
  productId: string;
  url: string;
  enabled: boolean;
  deleted: boolean;
  secretSealed: string;
  consecutiveFailures: number;
}

export interface MemoryDelivery {
  id: string;
  seq: number;
  endpointId: string;
  eventType: string;
  payload: string;
  status: 'pending' | 'succeeded' | 'failed';
  attempts: number;
  maxAttempts: number;
  nextAttemptAtMs: number | null;
  lastAttemptAtMs: number | null;
  responseStatus: number | null;
  lastError: string | null;
}

export interface MemoryDeliveryStore extends DeliveryStore {
  endpoints: Map<string, MemoryEndpoint>;
  deliveries: MemoryDelivery[];
  /** Makes the next `count` calls of every method reject (a database outage). */
  failNext(count: number): void;
}

const endpointView = (e: MemoryEndpoint): EndpointForAttempt => ({
  id: e.id,
  url: e.url,
  live: e.enabled && !e.deleted,
  secretSealed: e.secretSealed,
});

export function createMemoryDeliveryStore(): MemoryDeliveryStore {
  const endpoints = new Map<string, MemoryEndpoint>();
  const deliveries: MemoryDelivery[] = [];
  let failures = 0;
  const maybeFail = () => {
    if (failures > 0) {
      failures--;
      throw new Error('database unavailable');
    }
  };
  const pendingOf = (endpointId: string) =>
    deliveries
      .filter((d) => d.endpointId === endpointId && d.status === 'pending')
      .sort((a, b) => a.seq - b.seq);

  return {
    endpoints,
    deliveries,
    failNext(count) {
      failures = count;
    },
    async window(endpointId, limit): Promise<DeliveryWindow | null> {
      maybeFail();
      const e = endpoints.get(endpointId);
      const pending = pendingOf(endpointId).slice(0, limit);
      if (!e || pending.length === 0) return null;
      return {
        endpoint: endpointView(e),
        deliveries: pending.map((d) => ({
          id: d.id,
          seq: d.seq,
          eventType: d.eventType,
          payload: d.payload,
          attempts: d.attempts,
          maxAttempts: d.maxAttempts,
          nextAttemptAtMs: d.nextAttemptAtMs ?? 0,
        })),
      };
    },
    async failWithoutRequest(endpointId, nowMs) {
      maybeFail();
      const e = endpoints.get(endpointId);
      if (!e || (e.enabled && !e.deleted)) return 0;
      const pending = pendingOf(endpointId).filter((d) => (d.nextAttemptAtMs ?? 0) <= nowMs);
      for (const d of pending) {
        d.status = 'failed';
        d.nextAttemptAtMs = null;
        d.lastError = e.deleted ? 'endpoint deleted' : 'endpoint disabled';
      }
      return pending.length;
    },
    async recordAttempts(outcomes) {
      maybeFail();
      return outcomes.map(
        ({ deliveryId, endpointId, seenAttempts, attemptedAtMs, decision }): RecordedAttempt => {
          const e = endpoints.get(endpointId);
          const d = deliveries.find((x) => x.id === deliveryId);
          if (d?.status !== 'pending' || d.attempts !== seenAttempts) {
            return { recorded: false, disabledEndpoint: null, endpoint: e ? endpointView(e) : null };
          }
          Object.assign(d, {
            attempts: d.attempts + 1,
            status: decision.status,
            nextAttemptAtMs: decision.nextAttemptAtMs,
            lastAttemptAtMs: attemptedAtMs,
            responseStatus: decision.responseStatus,
            lastError: decision.lastError,
          });
          let disabledEndpoint: 'gone' | 'failures' | null = null;
          if (e) {
            if (decision.endpoint === 'reset') e.consecutiveFailures = 0;
            if (decision.endpoint === 'gone' && e.enabled) {
              e.enabled = false;
              disabledEndpoint = 'gone';
            }
            if (decision.endpoint === 'failed_for_good') {
              e.consecutiveFailures++;
              if (e.consecutiveFailures >= AUTO_DISABLE_AFTER_FAILURES && e.enabled) {
                e.enabled = false;
                disabledEndpoint = 'failures';
              }
            }
          }
          return { recorded: true, disabledEndpoint, endpoint: e ? endpointView(e) : null };
        },
      );
    },
    async endpointsDue(nowMs, limit, productIds) {
      maybeFail();
      const heads = [...endpoints.values()]
        .filter((e) => !productIds || productIds.includes(e.productId))
        .map((e) => pendingOf(e.id)[0]);
      return heads
        .filter((d) => d !== undefined && (d.nextAttemptAtMs ?? 0) <= nowMs)
        .map((d) => d!.endpointId)
        .slice(0, limit);
    },
  };
}
