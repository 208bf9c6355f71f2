// Every status of the spec's "Realtime HTTP statuses" table, through both surfaces: the public
// edge with a real public key, and the management API with an owner token and with an rtk_ key.
// Each answer carries the platform's error body, and the surfaces agree on status and code.
import { ManualClock } from '@lattice/core/testing';
import { expect } from 'chai';
import {
  type Answer,
  type Caller,
  callers,
  errorOf,
  paddedJson,
  publicKey,
  putNamespace,
  type RealtimeHttpProduct,
  startRealtimeHttpProduct,
} from './realtime-http/harness.ts';

function expectError(answer: Answer, status: number, code: string, who: string): void {
  expect(answer.status, `${who}: ${JSON.stringify(answer.body).slice(0, 300)}`).to.equal(status);
  expect(errorOf(answer).code, who).to.equal(code);
  expect(errorOf(answer).message, who).to.be.a('string');
}

describe('realtime HTTP statuses through the edge and the management API', function () {
  this.timeout(120_000);
  let rt: RealtimeHttpProduct;
  let all: Caller[];

  before(async () => {
    rt = await startRealtimeHttpProduct(
      'rt-statuses',
      {
        chat: { presence: true, history_window_seconds: 3600 },
        quiet: { presence: false, history_window_seconds: 0 },
      },
      { stack: { payloads: 'none' } },
    );
    all = callers(rt.stack, rt.product, rt.key);
  });
  after(async () => rt?.base.close());

  it('400: malformed channel, half cursor, cursor and window together, missing field; the body names the fields', async () => {
    for (const c of all) {
      const badChannel = await c.publish({ channel: 'no-namespace', data: 1 });
      expectError(badChannel, 400, 'validation_error', `${c.name} publish`);
      expect(
        errorOf(badChannel).fields?.map((f) => f.path),
        c.name,
      ).to.include('body.channel');

      const half = await c.history('chat:room', 'offset=3');
      expectError(half, 400, 'validation_error', `${c.name} half cursor`);
      expect(
        errorOf(half).fields?.map((f) => f.path),
        c.name,
      ).to.deep.equal(['query.epoch']);

      const both = await c.history('chat:room', 'offset=3&epoch=abc&last_n=5');
      expectError(both, 400, 'validation_error', `${c.name} cursor and window`);
      expect(
        errorOf(both).fields?.map((f) => f.path),
        c.name,
      ).to.include('query.last_n');

      const missing = await c.issueToken({ channels: [{ name: 'chat:room', ops: ['subscribe'] }] });
      expectError(missing, 400, 'validation_error', `${c.name} token without subject`);
      expect(
        errorOf(missing).fields?.map((f) => f.path),
        c.name,
      ).to.deep.equal(['body.subject']);

      const badName = await c.history('chat', 'last_n=1');
      expectError(badName, 400, 'validation_error', `${c.name} history of a malformed channel`);
      expect(
        errorOf(badName).fields?.map((f) => f.path),
        c.name,
      ).to.deep.equal(['params.channel']);
    }
  });

  it('403: presence not enabled for the namespace', async () => {
    for (const c of all) expectError(await c.presence('quiet:room'), 403, 'presence_disabled', c.name);
  });

  it('404: the namespace is not registered (publish, history, presence)', async () => {
    for (const c of all) {
      expectError(await c.publish({ channel: 'ghost:room', data: 1 }), 404, 'namespace_not_found', c.name);
      expectError(await c.history('ghost:room', 'last_n=10'), 404, 'namespace_not_found', c.name);
      expectError(await c.presence('ghost:room'), 404, 'namespace_not_found', c.name);
    }
  });

  it('413: body over the cap of the route (64 KiB on token issuing)', async () => {
    const body = paddedJson(
      { subject: 'ann', channels: [{ name: 'chat:room', ops: ['subscribe'] }] },
      65_537,
    );
    for (const c of all) expectError(await c.issueToken(body), 413, 'payload_too_large', c.name);
  });

  it('422: every declared capability stripped by namespace policy', async () => {
    const body = {
      subject: 'ann',
      channels: [
        { name: 'quiet:room', ops: ['presence', 'publish', 'history'] },
        { name: 'ghost:room', ops: ['subscribe'] },
      ],
    };
    for (const c of all) expectError(await c.issueToken(body), 422, 'no_capabilities', c.name);
  });

  it('429: a publish beyond the hard quota, with Retry-After (seconds until the window rolls) and RateLimit headers', async () => {
    const windowStart = Math.floor(Date.now() / 10_000) * 10_000;
    const quotaStack = await rt.base.startStack({
      quota: { sustainedPerSecond: 0, windowMs: 10_000, burstPerWindow: 1, hardLimitPerWindow: 3 },
      clock: new ManualClock(windowStart + 3_500),
    });
    const p = await rt.base.newProduct(quotaStack.management);
    await putNamespace(quotaStack, p, 'chat', { history_window_seconds: 60 });
    const quotaCallers = callers(quotaStack, p, await publicKey(quotaStack, p));
    // The quota is the product's, whichever surface publishes: three pass in all.
    for (const [i, c] of quotaCallers.entries()) {
      const ok = await c.publish({ channel: 'chat:room', data: { i } });
      expect(ok.status, c.name).to.equal(202);
      expect(ok.headers.get('ratelimit'), c.name).to.contain(`"publish";r=${2 - i};t=7`);
    }
    for (const c of quotaCallers) {
      const refused = await c.publish({ channel: 'chat:room', data: 'one too many' });
      expectError(refused, 429, 'publish_quota_exceeded', c.name);
      expect(refused.headers.get('retry-after'), c.name).to.equal('7');
      expect(refused.headers.get('ratelimit-policy'), c.name).to.contain('"publish";q=3;w=10');
      expect(refused.headers.get('ratelimit'), c.name).to.contain('"publish";r=0;t=7');
    }
    // At the edge both limits apply: the per-IP policy is listed beside the quota.
    const edgeRefused = await quotaCallers[0]!.publish({ channel: 'chat:room', data: 1 });
    expect(edgeRefused.headers.get('ratelimit-policy')).to.match(/^"per-ip";q=\d+;w=60, "publish";q=3;w=10$/);
  });

  it('503: a payload over the inline cap with no payload storage (does not clear), and Kafka unavailable', async () => {
    const big = { channel: 'chat:room', data: 'x'.repeat(262_144) }; // serialized: 262 146 bytes
    for (const c of all.slice(1)) {
      // The edge's 256 KiB body cap makes such data unreachable there; the management API takes 16 MiB.
      expectError(await c.publish(big), 503, 'payload_storage_not_provisioned', c.name);
      expectError(await c.publish(big), 503, 'payload_storage_not_provisioned', `${c.name} again`);
    }
    const down = await rt.base.startStack({ kafkaUnavailable: true, publishTimeoutMs: 1500 });
    const p = await rt.base.newProduct(down.management);
    await putNamespace(down, p, 'chat', { history_window_seconds: 60 });
    for (const c of callers(down, p, await publicKey(down, p))) {
      const started = Date.now();
      const answer = await c.publish({ channel: 'chat:room', data: 'hello' });
      expectError(answer, 503, 'publish_unavailable', c.name);
      expect(answer.headers.get('retry-after'), c.name).to.equal('1');
      expect(Date.now() - started, c.name).to.be.lessThan(5_000);
    }
  });
});
