// The behaviour every DeliveryStore must share, written once and run against each (memory in the
// unit tests, PostgreSQL in the integration tests): the head read, the fence on `attempts`, the
// endpoint effects and the auto-disable threshold, failing without a request, and the due scan.
import { expect } from 'chai';
import type { AttemptDecision } from '../webhooks/delivery-logic.ts';
import type { AttemptOutcome, DeliveryStore, RecordedAttempt } from '../webhooks/delivery-store.ts';

export interface StoredDelivery {
  status: 'pending' | 'succeeded' | 'failed';
  attempts: number;
  nextAttemptAtMs: number | null;
  lastAttemptAtMs: number | null;
  responseStatus: number | null;
  lastError: string | null;
}

/** A fresh store with ways to arrange rows and read them back. */
export interface DeliveryStoreFixture {
  store: DeliveryStore;
  /** The product the fixture's endpoints belong to. */
  productId: string;
  endpoint(over?: { enabled?: boolean; deleted?: boolean; consecutiveFailures?: number }): Promise<string>;
  /** A pending delivery (unless said), the newest of its endpoint, due at `nextAttemptAtMs`. */
  delivery(
    endpointId: string,
    over?: { status?: StoredDelivery['status']; attempts?: number; nextAttemptAtMs?: number },
  ): Promise<string>;
  read(deliveryId: string): Promise<StoredDelivery>;
  endpointState(endpointId: string): Promise<{ enabled: boolean; consecutiveFailures: number }>;
  setEnabled(endpointId: string, enabled: boolean): Promise<void>;
}

const NOW = 1_795_000_000_000;

const decision = (over: Partial<AttemptDecision>): AttemptDecision => ({
  status: 'pending',
  nextAttemptAtMs: NOW + 5_000,
  responseStatus: null,
  lastError: 'no answer within 10000 ms',
  endpoint: 'none',
  ...over,
});
const failedForGood = decision({
  status: 'failed',
  nextAttemptAtMs: null,
  responseStatus: 500,
  lastError: 'HTTP 500',
  endpoint: 'failed_for_good',
});

export function describeDeliveryStore(name: string, factory: () => Promise<DeliveryStoreFixture>): void {
  describe(`DeliveryStore conformance: ${name}`, () => {
    let f: DeliveryStoreFixture;
    const record = async (outcome: AttemptOutcome): Promise<RecordedAttempt> =>
      (await f.store.recordAttempts([outcome]))[0]!;
    beforeEach(async () => {
      f = await factory();
    });

    it('reads a window of pending deliveries in seq order with their endpoint; none without one', async () => {
      const ep = await f.endpoint();
      await f.delivery(ep, { status: 'succeeded', attempts: 1 });
      const first = await f.delivery(ep);
      const second = await f.delivery(ep);
      const third = await f.delivery(ep);
      const win = await f.store.window(ep, 2);
      expect(win!.deliveries.map((d) => d.id)).to.deep.equal([first, second]);
      expect(win!.deliveries[0]).to.include({ attempts: 0, maxAttempts: 5, nextAttemptAtMs: NOW });
      expect(win!.endpoint).to.include({ id: ep, live: true });
      expect((await f.store.window(ep, 32))!.deliveries.map((d) => d.id)).to.deep.equal([
        first,
        second,
        third,
      ]);
      expect(await f.store.window(await f.endpoint(), 32)).to.equal(null);
      const off = await f.endpoint({ enabled: false });
      await f.delivery(off);
      expect((await f.store.window(off, 32))!.endpoint.live).to.equal(false);
    });

    it('stores a group of outcomes in one write, answering each in order with its endpoint as it now is', async () => {
      const a = await f.endpoint();
      const b = await f.endpoint();
      const c = await f.endpoint();
      const [da, db, dc] = [await f.delivery(a), await f.delivery(b), await f.delivery(c)];
      await f.setEnabled(b, false);
      const answers = await f.store.recordAttempts([
        { deliveryId: da, endpointId: a, seenAttempts: 0, attemptedAtMs: NOW, decision: decision({}) },
        { deliveryId: db, endpointId: b, seenAttempts: 0, attemptedAtMs: NOW, decision: decision({}) },
        // Fenced out: the delivery had no attempt 3.
        { deliveryId: dc, endpointId: c, seenAttempts: 3, attemptedAtMs: NOW, decision: decision({}) },
      ]);
      expect(answers.map((x) => [x.recorded, x.endpoint?.id, x.endpoint?.live])).to.deep.equal([
        [true, a, true],
        [true, b, false],
        [false, c, true],
      ]);
      expect((await f.read(dc)).attempts).to.equal(0);
      expect(await f.store.recordAttempts([])).to.deep.equal([]);
    });

    it('stores an outcome once, fenced on the attempts read', async () => {
      const ep = await f.endpoint();
      const id = await f.delivery(ep);
      const input = {
        deliveryId: id,
        endpointId: ep,
        seenAttempts: 0,
        attemptedAtMs: NOW,
        decision: decision({}),
      };
      expect(await record(input)).to.deep.include({ recorded: true, disabledEndpoint: null });
      expect(await record(input)).to.deep.include({ recorded: false, disabledEndpoint: null });
      expect(await f.read(id)).to.deep.equal({
        status: 'pending',
        attempts: 1,
        nextAttemptAtMs: NOW + 5_000,
        lastAttemptAtMs: NOW,
        responseStatus: null,
        lastError: 'no answer within 10000 ms',
      });
    });

    it('disables the endpoint on the third delivery failed for good in a row, and says so once', async () => {
      const ep = await f.endpoint();
      const outcomes: Array<string | null> = [];
      for (let i = 1; i <= 4; i++) {
        const id = await f.delivery(ep, { attempts: 4 });
        const out = await record({
          deliveryId: id,
          endpointId: ep,
          seenAttempts: 4,
          attemptedAtMs: NOW,
          decision: failedForGood,
        });
        outcomes.push(out.disabledEndpoint);
        if (i < 4)
          expect(await f.endpointState(ep)).to.deep.equal({ enabled: i < 3, consecutiveFailures: i });
      }
      expect(outcomes).to.deep.equal([null, null, 'failures', null]);
    });

    it('a success resets the count; a 410 disables as gone; a retry with attempts left changes nothing', async () => {
      const ep = await f.endpoint({ consecutiveFailures: 2 });
      await record({
        deliveryId: await f.delivery(ep),
        endpointId: ep,
        seenAttempts: 0,
        attemptedAtMs: NOW,
        decision: decision({ status: 'pending' }),
      });
      expect(await f.endpointState(ep)).to.deep.equal({ enabled: true, consecutiveFailures: 2 });
      await record({
        deliveryId: await f.delivery(ep),
        endpointId: ep,
        seenAttempts: 0,
        attemptedAtMs: NOW,
        decision: decision({
          status: 'succeeded',
          nextAttemptAtMs: null,
          responseStatus: 200,
          lastError: null,
          endpoint: 'reset',
        }),
      });
      expect(await f.endpointState(ep)).to.deep.equal({ enabled: true, consecutiveFailures: 0 });
      const gone = await record({
        deliveryId: await f.delivery(ep),
        endpointId: ep,
        seenAttempts: 0,
        attemptedAtMs: NOW,
        decision: { ...failedForGood, responseStatus: 410, lastError: 'HTTP 410', endpoint: 'gone' },
      });
      expect(gone.disabledEndpoint).to.equal('gone');
      expect((await f.endpointState(ep)).enabled).to.equal(false);
    });

    it('fails due pending deliveries without a request only while the endpoint is disabled or deleted', async () => {
      const ep = await f.endpoint();
      const waiting = await f.delivery(ep, { nextAttemptAtMs: NOW + 1 });
      const heldBack = await f.delivery(ep, { nextAttemptAtMs: NOW - 10 });
      const done = await f.delivery(ep, { status: 'succeeded', attempts: 1 });
      expect(await f.store.failWithoutRequest(ep, NOW)).to.equal(0);
      await f.setEnabled(ep, false);
      expect(await f.store.failWithoutRequest(ep, NOW)).to.equal(1);
      expect(await f.read(heldBack)).to.include({
        status: 'failed',
        attempts: 0,
        lastError: 'endpoint disabled',
      });
      expect((await f.read(waiting)).status).to.equal('pending');
      expect((await f.read(done)).status).to.equal('succeeded');
      expect(await f.store.failWithoutRequest(ep, NOW + 1)).to.equal(1);
      const deleted = await f.endpoint({ deleted: true });
      const d = await f.delivery(deleted);
      expect(await f.store.failWithoutRequest(deleted, NOW)).to.equal(1);
      expect((await f.read(d)).lastError).to.equal('endpoint deleted');
    });

    it('lists endpoints whose oldest pending delivery is due, of the given products', async () => {
      const due = await f.endpoint();
      const waiting = await f.endpoint();
      await f.delivery(due, { nextAttemptAtMs: NOW - 1 });
      await f.delivery(waiting, { nextAttemptAtMs: NOW + 60_000 });
      await f.delivery(waiting, { nextAttemptAtMs: NOW - 60_000 });
      const found = await f.store.endpointsDue(NOW, 100_000, [f.productId]);
      expect(found).to.include(due).and.not.include(waiting);
    });
  });
}
