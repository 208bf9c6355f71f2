// Every transition of the product public key's state table (spec "States and transitions →
// Product public key") as the edge serves it, on both environments: a created key refused until
// the next snapshot and accepted after it (or early, on a change notification), a scope edit
// taking effect, and a revoked key passing → 403 public_key_scope → 401 public_key_invalid.
import { Agent, request } from 'node:http';
import { ENVIRONMENTS, sha256Hex, sleep } from '@lattice/core';
import { uniqueName } from '@lattice/core/testing';
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
  nextSnapshot,
  waitFor,
} from './edge/harness.ts';

const outcome = (a: Answer) => (a.status === 200 ? 'passed' : `${a.status} ${errorOf(a).code}`);

describe('public edge: key state transitions', function () {
  this.timeout(30_000);
  let suite: EdgeSuite;

  before(async () => {
    suite = await edgeSuite();
  });
  afterEach(async () => suite.closeEdges());
  after(async () => suite?.close());

  for (const environment of ENVIRONMENTS) {
    describe(`${environment} edge`, () => {
      it('create: a new key is refused until the next snapshot, and accepted from it on', async () => {
        const refreshMs = 1500;
        const edge = await suite.startEdge(environment, {
          config: { snapshotRefreshMs: refreshMs },
          notifications: false,
          toolkits: echoToolkits(),
        });
        const productId = await suite.newProduct();
        const send = (secret: string) => call(edge, 'POST', `/${productId}/mail/emails`, bearer(secret));
        // Right after a load, so the next one is a full window away.
        await nextSnapshot(edge);
        const generation = edge.snapshots.generation();
        const { secret } = await suite.createKey({ productId, environment });
        const createdAtMs = Date.now();
        const before = await send(secret);
        expect(edge.snapshots.generation(), 'no snapshot load in between').to.equal(generation);
        expect(outcome(before)).to.equal('401 public_key_invalid');

        await nextSnapshot(edge, refreshMs * 2);
        expect(outcome(await send(secret))).to.equal('passed');
        // The next periodic load, not a later one (that would start 2 × refreshMs after the last).
        expect(Date.now() - createdAtMs).to.be.below(refreshMs + 1000);
      });

      it('create: a change notification refreshes early, long before the period', async () => {
        const redisKeyPrefix = `${uniqueName('edge-test')}:`;
        const edge = await suite.startEdge(environment, {
          config: { snapshotRefreshMs: 60_000, redisKeyPrefix },
          notifications: true,
          toolkits: echoToolkits(),
        });
        const productId = await suite.newProduct();
        const { secret } = await suite.createKey({ productId, environment });
        const send = () => call(edge, 'POST', `/${productId}/mail/emails`, bearer(secret));
        expect(outcome(await send())).to.equal('401 public_key_invalid');

        // The other environment's channel is not this edge's business.
        const other = environment === 'production' ? 'development' : 'production';
        const generation = edge.snapshots.generation();
        await suite.redis.publish(keyChangesChannel(redisKeyPrefix, other), '{}');
        await sleep(300);
        expect(edge.snapshots.generation()).to.equal(generation);

        const startedMs = Date.now();
        await suite.redis.publish(
          keyChangesChannel(redisKeyPrefix, environment),
          JSON.stringify({ product_id: productId, environment, key_ids: [], change: 'created' }),
        );
        const after = await waitFor(send, (a) => a.status === 200, 3000);
        expect(outcome(after)).to.equal('passed');
        expect(Date.now() - startedMs).to.be.below(2000);
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
        await nextSnapshot(edge);
        expect(outcome(await send('POST', '/realtime/tokens/issue'))).to.equal('passed');
        expect(outcome(await send('GET', '/realtime/channels/a:b/history'))).to.equal('passed');
        expect(outcome(await send('POST', '/mail/emails'))).to.equal('403 public_key_scope');

        await suite.keys.updateScope(productId, record.id, { kind: 'product' });
        await nextSnapshot(edge);
        expect(outcome(await send('POST', '/mail/emails'))).to.equal('passed');
        expect(outcome(await send('GET', '/realtime/channels/a:b/presence/stats'))).to.equal('passed');
      });

      it('revoke: passes until the next snapshot, then 403 public_key_scope for one window, then 401 for good', async () => {
        // Revoke, reload and the request must fit in one window on a busy machine.
        const refreshMs = 2500;
        const edge = await suite.startEdge(environment, {
          config: { snapshotRefreshMs: refreshMs },
          notifications: false,
          toolkits: echoToolkits(),
        });
        const productId = await suite.newProduct();
        const { secret, record } = await suite.createKey({ productId, environment });
        // A replacement key, as the spec's rotation advice has it: both valid in between.
        const replacement = await suite.createKey({ productId, environment });
        await edge.snapshots.reload();
        const send = (key = secret) => call(edge, 'POST', `/${productId}/realtime/messages`, bearer(key));
        expect(outcome(await send())).to.equal('passed');
        expect(outcome(await send(replacement.secret))).to.equal('passed');

        await nextSnapshot(edge);
        const generation = edge.snapshots.generation();
        const revoked = await suite.keys.revoke(productId, record.id);
        const revokedAtMs = revoked!.revokedAt!.getTime();
        const stillServed = await send();
        if (edge.snapshots.generation() === generation) expect(outcome(stillServed)).to.equal('passed');

        await edge.snapshots.reload();
        expect(outcome(await send())).to.equal('403 public_key_scope');
        const seen: string[] = [];
        const first401 = await waitFor(
          async () => {
            const a = await send();
            seen.push(outcome(a));
            return a;
          },
          (a) => a.status === 401,
          refreshMs * 4,
        );
        expect(outcome(first401)).to.equal('401 public_key_invalid');
        expect(Date.now() - revokedAtMs).to.be.at.least(refreshMs - 50);
        // Between the 403 and the first 401 nothing else was answered (no pass, no flip-flop).
        expect(seen.slice(0, -1).filter((o) => o !== '403 public_key_scope')).to.deep.equal([]);
        // Permanent: later snapshots no longer hold the key at all, and it stays refused.
        await nextSnapshot(edge);
        await nextSnapshot(edge);
        expect(edge.snapshots.current()?.get(sha256Hex(secret))).to.equal(undefined);
        expect(outcome(await send())).to.equal('401 public_key_invalid');
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
