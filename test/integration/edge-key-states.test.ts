// Every transition of the product public key's state table (spec "States and transitions →
// Product public key") as the edge serves it, on both environments: a created key refused until
// the next snapshot and accepted after it (or early, on a change notification), a scope edit
// taking effect, and a revoked key passing → 403 public_key_scope → 401 public_key_invalid.
// The tests of when a snapshot loads drive the edge's snapshot timers (and clock) with a
// ManualScheduler: a load starts exactly when the test moves the scheduler to it, and the test
// only waits for the load's database I/O to finish, so no bound depends on the machine's speed.
import { Agent, request } from 'node:http';
import { ENVIRONMENTS, type Environment, sha256Hex } from '@lattice/core';
import { ManualScheduler, uniqueName } from '@lattice/core/testing';
import { keyChangesChannel } from '@lattice/redis';
import { expect } from 'chai';
import {
  type Answer,
  bearer,
  call,
  type EdgeSuite,
  echoToolkits,
  edgeSuite,
  errorOf,
  snapshotLoaded,
  type TestEdgeOptions,
  waitFor,
} from './edge/harness.ts';

const outcome = (a: Answer) => (a.status === 200 ? 'passed' : `${a.status} ${errorOf(a).code}`);

/** The snapshot holder's default quiet time after a change notification (key-snapshot-holder.ts). */
const DEBOUNCE_MS = 50;

/**
 * Why an unchanged count of pending timers means nothing loaded: a refresh or debounce timer that
 * falls due leaves the scheduler, and the refresh is set again only once its load is done.
 */
const NO_TIMER_RAN = 'no timer of the edge fell due';

describe('public edge: key state transitions', function () {
  this.timeout(30_000);
  let suite: EdgeSuite;

  before(async () => {
    suite = await edgeSuite();
  });
  afterEach(async () => suite.closeEdges());
  after(async () => suite?.close());

  /**
   * An edge whose clock and snapshot timers are a ManualScheduler started at real now, once its
   * first load is done: its next periodic load is then due exactly refreshMs from the scheduler's
   * time, and runs when the test advances the scheduler that far.
   */
  async function startManualEdge(environment: Environment, opts: TestEdgeOptions) {
    const scheduler = new ManualScheduler(Date.now());
    const edge = await suite.startEdge(environment, { toolkits: echoToolkits(), ...opts, scheduler });
    await snapshotLoaded(edge, 0);
    return { edge, scheduler };
  }

  for (const environment of ENVIRONMENTS) {
    describe(`${environment} edge`, () => {
      it('create: a new key is refused until the next snapshot, and accepted from it on', async () => {
        // The period is long, but costs no waiting: the refresh runs on the manual scheduler, so the
        // next periodic load starts exactly when the test moves it a period past the last load.
        const refreshMs = 30_000;
        const { edge, scheduler } = await startManualEdge(environment, {
          config: { snapshotRefreshMs: refreshMs },
          notifications: false,
        });
        const productId = await suite.newProduct();
        const send = (secret: string) => call(edge, 'POST', `/${productId}/mail/emails`, bearer(secret));
        // The start's load is done and the scheduler has not moved: the next load is a period away.
        const generation = edge.snapshots.generation();
        const pending = scheduler.pendingTimers();
        const { secret } = await suite.createKey({ productId, environment });
        expect(outcome(await send(secret))).to.equal('401 public_key_invalid');

        // One ms short of the period: no timer falls due, nothing loads, the key is still refused.
        scheduler.advance(refreshMs - 1);
        expect(scheduler.pendingTimers(), NO_TIMER_RAN).to.equal(pending);
        expect(outcome(await send(secret))).to.equal('401 public_key_invalid');
        expect(edge.snapshots.generation(), 'no snapshot load').to.equal(generation);

        // The period: the next periodic load (not a later one) starts, and from it on the key passes.
        scheduler.advance(1);
        await snapshotLoaded(edge, generation);
        expect(edge.snapshots.generation(), 'one snapshot load').to.equal(generation + 1);
        expect(outcome(await send(secret))).to.equal('passed');
      });

      it('create: a change notification refreshes early, long before the period', async () => {
        const redisKeyPrefix = `${uniqueName('edge-test')}:`;
        const refreshMs = 60_000;
        const { edge, scheduler } = await startManualEdge(environment, {
          config: { snapshotRefreshMs: refreshMs, redisKeyPrefix },
          notifications: true,
        });
        const productId = await suite.newProduct();
        const { secret } = await suite.createKey({ productId, environment });
        const send = () => call(edge, 'POST', `/${productId}/mail/emails`, bearer(secret));
        expect(outcome(await send())).to.equal('401 public_key_invalid');

        // The edge subscribes after it starts; wait until it has (a sync point, not a bound).
        const channel = keyChangesChannel(redisKeyPrefix, environment);
        const subscribers = async (name: string) => Number((await suite.redis.pubsub('NUMSUB', name))[1]);
        expect(
          await waitFor(
            () => subscribers(channel),
            (n) => n === 1,
          ),
        ).to.equal(1);
        const generation = edge.snapshots.generation();
        const pending = scheduler.pendingTimers();

        // The other environment's channel is not this edge's business: no connection of it receives
        // the message (PUBLISH answers how many did), so nothing arms the debounce and moving the
        // scheduler past it loads nothing.
        const other = environment === 'production' ? 'development' : 'production';
        expect(await suite.redis.publish(keyChangesChannel(redisKeyPrefix, other), '{}')).to.equal(0);
        scheduler.advance(DEBOUNCE_MS);
        expect(scheduler.pendingTimers(), NO_TIMER_RAN).to.equal(pending);
        expect(edge.snapshots.generation(), 'no snapshot load').to.equal(generation);

        // This environment's channel: the edge receives it and arms the debounce on its scheduler.
        const received = await suite.redis.publish(
          channel,
          JSON.stringify({ product_id: productId, environment, key_ids: [], change: 'created' }),
        );
        expect(received).to.equal(1);
        const armed = await waitFor(
          async () => scheduler.pendingTimers(),
          (n) => n > pending,
        );
        expect(armed, 'the debounce armed').to.equal(pending + 1);
        // One ms short of the debounce: nothing loads.
        scheduler.advance(DEBOUNCE_MS - 1);
        expect(scheduler.pendingTimers(), NO_TIMER_RAN).to.equal(pending + 1);
        expect(outcome(await send())).to.equal('401 public_key_invalid');
        expect(edge.snapshots.generation(), 'no snapshot load').to.equal(generation);
        // At the debounce's end the load starts: 2 × DEBOUNCE_MS into a period of refreshMs.
        scheduler.advance(1);
        await snapshotLoaded(edge, generation);
        expect(edge.snapshots.generation(), 'one snapshot load').to.equal(generation + 1);
        expect(outcome(await send())).to.equal('passed');
      });

      it('edit scope: the new scope applies from the next snapshot on', async () => {
        const edge = await suite.startEdge(environment, {
          config: { snapshotRefreshMs: 500 },
          notifications: false,
          toolkits: echoToolkits(),
        });
        const productId = await suite.newProduct();
        const { secret, record } = await suite.createKey({
          productId,
          environment,
          scope: { kind: 'route', toolkit: 'realtime', method: 'POST', path: '/messages' },
        });
        await edge.snapshots.reload();
        const send = (method: string, path: string) =>
          call(edge, method, `/${productId}${path}`, bearer(secret));
        expect(outcome(await send('POST', '/realtime/messages'))).to.equal('passed');
        expect(outcome(await send('POST', '/realtime/tokens/issue'))).to.equal('403 public_key_scope');
        expect(outcome(await send('GET', '/realtime/channels/a:b/history'))).to.equal('403 public_key_scope');

        await suite.keys.updateScope(productId, record.id, { kind: 'toolkit', toolkit: 'realtime' });
        await edge.snapshots.reload();
        expect(outcome(await send('POST', '/realtime/tokens/issue'))).to.equal('passed');
        expect(outcome(await send('GET', '/realtime/channels/a:b/history'))).to.equal('passed');
        expect(outcome(await send('POST', '/mail/emails'))).to.equal('403 public_key_scope');

        await suite.keys.updateScope(productId, record.id, { kind: 'product' });
        await edge.snapshots.reload();
        expect(outcome(await send('POST', '/mail/emails'))).to.equal('passed');
        expect(outcome(await send('GET', '/realtime/channels/a:b/presence/stats'))).to.equal('passed');
      });

      it('revoke: passes until the next snapshot, then 403 public_key_scope for one window, then 401 for good', async () => {
        // The edge's clock and its snapshot timers are one manual scheduler, started at real now.
        // The key check compares a revoked key's revokedAt, which is database time (Postgres's
        // now() at the revocation, on this host's clock), with the edge's clock: 403 while
        // clock − revokedAt ≤ refreshMs, 401 after. The manual clock stands still unless the test
        // moves it, while real time (and so revokedAt) goes on: the revocation lands ahead of the
        // edge's clock, inside the first period. The test then moves the clock deliberately: to
        // the next periodic load (inside the window), to revokedAt + refreshMs (the window's last
        // ms), one ms past it, and on to the loads after.
        const refreshMs = 60_000;
        const { edge, scheduler } = await startManualEdge(environment, {
          config: { snapshotRefreshMs: refreshMs },
          notifications: false,
        });
        const productId = await suite.newProduct();
        const { secret, record } = await suite.createKey({ productId, environment });
        // A replacement key, as the spec's rotation advice has it: both valid in between.
        const replacement = await suite.createKey({ productId, environment });
        // Loads now, and sets the next periodic load a period from now (the scheduler has not moved).
        await edge.snapshots.reload();
        const loadedMs = scheduler.nowMs();
        const send = (key = secret) => call(edge, 'POST', `/${productId}/realtime/messages`, bearer(key));
        expect(outcome(await send())).to.equal('passed');
        expect(outcome(await send(replacement.secret))).to.equal('passed');

        const generation = edge.snapshots.generation();
        const pending = scheduler.pendingTimers();
        const revoked = await suite.keys.revoke(productId, record.id);
        const revokedAtMs = revoked!.revokedAt!.getTime();
        // The placement the steps below rely on (see above): after the last load, in the first half
        // of the period, so the next periodic load finds the key revoked less than a window ago.
        expect(revokedAtMs)
          .to.be.above(loadedMs)
          .and.below(loadedMs + refreshMs / 2);

        // Until the next snapshot it still passes, up to the period's last ms.
        expect(outcome(await send())).to.equal('passed');
        scheduler.advance(refreshMs - 1);
        expect(scheduler.pendingTimers(), NO_TIMER_RAN).to.equal(pending);
        expect(outcome(await send())).to.equal('passed');
        expect(edge.snapshots.generation(), 'no snapshot load').to.equal(generation);

        // The next periodic load holds it as revoked, less than a window ago by the edge's clock: 403.
        scheduler.advance(1);
        await snapshotLoaded(edge, generation);
        expect(scheduler.nowMs() - revokedAtMs).to.be.below(refreshMs);
        expect(outcome(await send())).to.equal('403 public_key_scope');
        expect(outcome(await send(replacement.secret))).to.equal('passed');

        // Still 403 on the window's last ms (before the next load, due a period after this one)...
        const loaded = edge.snapshots.generation();
        scheduler.set(revokedAtMs + refreshMs);
        expect(scheduler.pendingTimers(), NO_TIMER_RAN).to.equal(pending);
        expect(outcome(await send())).to.equal('403 public_key_scope');
        // ...and 401 one ms after: judged by time, while the snapshot still holds the key.
        scheduler.advance(1);
        expect(edge.snapshots.current()?.get(sha256Hex(secret))?.revokedAtMs).to.equal(revokedAtMs);
        expect(outcome(await send())).to.equal('401 public_key_invalid');
        expect(edge.snapshots.generation(), 'no snapshot load').to.equal(loaded);

        // Permanent: the later periodic loads no longer hold the key at all, and it stays refused.
        for (let i = 0; i < 2; i += 1) {
          const before = edge.snapshots.generation();
          scheduler.set(edge.snapshots.current()!.loadedAtMs + refreshMs);
          await snapshotLoaded(edge, before);
          expect(edge.snapshots.current()?.get(sha256Hex(secret))).to.equal(undefined);
          expect(outcome(await send())).to.equal('401 public_key_invalid');
        }
        expect(outcome(await send(replacement.secret))).to.equal('passed');
      });

      it('one keep-alive connection: a key found once is still judged on every snapshot (scope edit, revoke)', async () => {
        const edge = await suite.startEdge(environment, {
          config: { snapshotRefreshMs: 60_000 },
          notifications: false,
          toolkits: echoToolkits(),
        });
        const productId = await suite.newProduct();
        const { secret, record } = await suite.createKey({ productId, environment });
        const other = await suite.createKey({ productId, environment });
        await edge.snapshots.reload();
        const agent = new Agent({ keepAlive: true, maxSockets: 1 });
        try {
          const send = (key = secret) => sendOn(agent, edge, `/${productId}/realtime/messages`, key);
          const first = await send();
          expect(first.status).to.equal(200);
          // The connection's cached key answers again; another value on it is looked up afresh.
          expect(await send()).to.deep.equal({ status: 200, reused: true });
          expect(await send(other.secret)).to.deep.equal({ status: 200, reused: true });
          expect(await send(`${secret.slice(0, -1)}${secret.endsWith('0') ? '1' : '0'}`)).to.deep.equal({
            status: 401,
            reused: true,
          });
          expect(await send()).to.deep.equal({ status: 200, reused: true });

          await suite.keys.updateScope(productId, record.id, { kind: 'toolkit', toolkit: 'mail' });
          await edge.snapshots.reload();
          expect(await send()).to.deep.equal({ status: 403, reused: true });

          await suite.keys.updateScope(productId, record.id, { kind: 'product' });
          await edge.snapshots.reload();
          expect(await send()).to.deep.equal({ status: 200, reused: true });

          await suite.keys.revoke(productId, record.id);
          await edge.snapshots.reload();
          expect(await send()).to.deep.equal({ status: 403, reused: true });
          expect(await send(other.secret)).to.deep.equal({ status: 200, reused: true });
        } finally {
          agent.destroy();
        }
      });
    });
  }
});

/** One request over `agent`'s connection: its status, and whether the connection was reused. */
function sendOn(
  agent: Agent,
  edge: { url: string },
  path: string,
  key: string,
): Promise<{ status: number; reused: boolean }> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${edge.url}${path}`,
      { method: 'POST', agent, headers: { ...bearer(key), 'content-type': 'application/json' } },
      (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode ?? 0, reused: req.reusedSocket }));
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify({ channel: 'chat:edge', data: 1 }));
  });
}
