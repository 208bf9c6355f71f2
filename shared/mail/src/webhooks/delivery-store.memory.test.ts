// The memory DeliveryStore (the endpoint loops' unit tests use it) keeps the shared contract.
import { describeDeliveryStore } from '../testing/delivery-store-conformance.ts';
import { createMemoryDeliveryStore, type MemoryDelivery } from './delivery-store.memory.ts';

const NOW = 1_795_000_000_000;

describeDeliveryStore('memory', async () => {
  const store = createMemoryDeliveryStore();
  let n = 0;
  const byId = (id: string) => store.deliveries.find((d) => d.id === id)!;
  return {
    store,
    productId: 'p1',
    async endpoint(over = {}) {
      const id = `e${++n}`;
      store.endpoints.set(id, {
        id,
        productId: 'p1',
        url: 'https://receiver.example/hook',
        enabled: over.enabled ?? true,
        deleted: over.deleted ?? false,
        secretSealed: 'sealed',
        consecutiveFailures: over.consecutiveFailures ?? 0,
      });
      return id;
    },
    async delivery(endpointId, over = {}) {
      const d: MemoryDelivery = {
        id: `d${++n}`,
        seq: n,
        endpointId,
        eventType: 'email.delivered',
        payload: '{}',
        status: over.status ?? 'pending',
        attempts: over.attempts ?? 0,
        maxAttempts: 5,
        nextAttemptAtMs: over.nextAttemptAtMs ?? NOW,
        lastAttemptAtMs: null,
        responseStatus: null,
        lastError: null,
      };
      store.deliveries.push(d);
      return d.id;
    },
    async read(id) {
      const d = byId(id);
      return {
        status: d.status,
        attempts: d.attempts,
        nextAttemptAtMs: d.nextAttemptAtMs,
        lastAttemptAtMs: d.lastAttemptAtMs,
        responseStatus: d.responseStatus,
        lastError: d.lastError,
      };
    },
    async endpointState(id) {
      const e = store.endpoints.get(id)!;
      return { enabled: e.enabled, consecutiveFailures: e.consecutiveFailures };
    },
    async setEnabled(id, enabled) {
      store.endpoints.get(id)!.enabled = enabled;
    },
  };
});
