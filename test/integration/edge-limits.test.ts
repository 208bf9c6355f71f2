// The edge's per-IP limit (spec "Limits": 100 requests per minute per IP address; decisions.md:
// Retry-After in whole seconds ≥ 1 plus the RateLimit-Policy / RateLimit headers): both sides of
// the bound, the client address behind trusted and untrusted proxies, separate counts per
// environment, and a Redis outage answered by the local limiter (still limiting, never a 5xx).
import { createLogger, ENVIRONMENTS } from '@lattice/core';
import { ManualClock, uniqueName } from '@lattice/core/testing';
import type { RunningEdge } from '@lattice/edge';
import { closeRedis, createRedis } from '@lattice/redis';
import { expect } from 'chai';
import { Registry } from 'prom-client';
import { type Answer, call, type EdgeSuite, echoToolkits, edgeSuite, errorOf } from './edge/harness.ts';

const LIMIT = 100;
// Inside one aligned minute, 20 s before it rolls: a slow run can never cross a window boundary.
const fixedClock = () => new ManualClock(Math.floor(Date.now() / 60_000) * 60_000 + 40_000);

async function burst(edge: RunningEdge, path: string, count: number, headers: Record<string, string> = {}) {
  const answers: Answer[] = [];
  for (let i = 0; i < count; i++) answers.push(await call(edge, 'GET', path, headers));
  return answers;
}

function expectLimited(answer: Answer): void {
  expect(answer.status, JSON.stringify(answer.body)).to.equal(429);
  expect(errorOf(answer)).to.include({ code: 'rate_limited', step: 'per_ip_limit' });
  expect(answer.headers.get('retry-after')).to.equal('20');
  expect(answer.headers.get('ratelimit-policy')).to.equal('"per-ip";q=100;w=60');
  expect(answer.headers.get('ratelimit')).to.equal('"per-ip";r=0;t=20');
}

describe('public edge: per-IP limit', function () {
  this.timeout(30_000);
  let suite: EdgeSuite;
  let productId: string;

  before(async () => {
    suite = await edgeSuite();
    productId = await suite.newProduct();
  });
  afterEach(async () => suite.closeEdges());
  after(async () => suite?.close());

  for (const environment of ENVIRONMENTS) {
    it(`${environment}: the 100th request in a minute passes, the 101st gets 429 with Retry-After and RateLimit headers`, async () => {
      const edge = await suite.startEdge(environment, {
        config: { perIpRequestsPerMinute: LIMIT },
        clock: fixedClock(),
        toolkits: echoToolkits(),
      });
      // A keyed route without a key: the limit comes first, so refusals count like passes.
      const answers = await burst(edge, `/${productId}/mail/emails/1`, LIMIT);
      answers.forEach((a, i) => {
        expect(a.status, `request ${i + 1}`).to.equal(401);
        expect(a.headers.get('ratelimit-policy')).to.equal('"per-ip";q=100;w=60');
        expect(a.headers.get('ratelimit')).to.equal(`"per-ip";r=${LIMIT - i - 1};t=20`);
        expect(a.headers.get('retry-after')).to.equal(null);
      });
      expectLimited(await call(edge, 'GET', `/${productId}/mail/emails/1`));
      // Every route under the edge counts: keyless ones, unknown paths and wrong methods too.
      expectLimited(await call(edge, 'GET', `/${productId}/mail/t/open/tok`));
      expectLimited(await call(edge, 'GET', `/${productId}/nothing/here`));
      expectLimited(await call(edge, 'PUT', `/${productId}/mail/emails`));
      // A refused request consumes nothing: the count stays at the limit.
      expectLimited(await call(edge, 'GET', `/${productId}/mail/emails/1`));
    });
  }

  it('counts each environment separately, under the same policy name', async () => {
    const redisKeyPrefix = `${uniqueName('edge-test')}:`;
    const clock = fixedClock();
    const config = { perIpRequestsPerMinute: LIMIT, redisKeyPrefix };
    const production = await suite.startEdge('production', { config, clock });
    const development = await suite.startEdge('development', { config, clock });
    await burst(production, `/${productId}/mail/t/open/x`, LIMIT);
    expectLimited(await call(production, 'GET', `/${productId}/mail/t/open/x`));
    const dev = await call(development, 'GET', `/${productId}/mail/t/open/x`);
    expect(dev.status).to.equal(501);
    expect(dev.headers.get('ratelimit')).to.equal('"per-ip";r=99;t=20');
    expect(dev.headers.get('ratelimit-policy')).to.equal('"per-ip";q=100;w=60');
  });

  it('behind a trusted proxy, limits the address X-Forwarded-For names', async () => {
    const edge = await suite.startEdge('production', {
      config: { perIpRequestsPerMinute: LIMIT, trustProxy: 'loopback' },
      clock: fixedClock(),
    });
    const path = `/${productId}/mail/t/open/x`;
    const client = { 'x-forwarded-for': '203.0.113.7' };
    await burst(edge, path, LIMIT, client);
    expectLimited(await call(edge, 'GET', path, client));
    // The proxy appends the address it saw; the rightmost untrusted one is the client.
    expectLimited(await call(edge, 'GET', path, { 'x-forwarded-for': '198.51.100.1, 203.0.113.7' }));
    const other = await call(edge, 'GET', path, { 'x-forwarded-for': '203.0.113.8' });
    expect(other.status).to.equal(501);
    expect(other.headers.get('ratelimit')).to.equal('"per-ip";r=99;t=20');
    // The proxy's own address (no header) is another client.
    expect((await call(edge, 'GET', path)).status).to.equal(501);
  });

  it('without a trusted proxy, ignores X-Forwarded-For: a client cannot dodge the limit by forging it', async () => {
    const edge = await suite.startEdge('production', {
      config: { perIpRequestsPerMinute: LIMIT, trustProxy: 'false' },
      clock: fixedClock(),
    });
    const path = `/${productId}/mail/t/open/x`;
    for (let i = 0; i < LIMIT; i++) {
      const a = await call(edge, 'GET', path, { 'x-forwarded-for': `203.0.113.${i}` });
      expect(a.status).to.equal(501);
    }
    expectLimited(await call(edge, 'GET', path, { 'x-forwarded-for': '198.51.100.99' }));
  });

  it('with Redis down, the local limiter still limits: never a 5xx, never an open door', async () => {
    const logger = createLogger({ name: 'edge-test', level: 'silent' });
    // Nothing listens on port 1: every Redis call fails at once.
    const down = createRedis({ url: 'redis://127.0.0.1:1', logger, name: 'edge-test-down' });
    const registry = new Registry();
    try {
      const edge = await suite.startEdge('development', {
        config: { perIpRequestsPerMinute: LIMIT },
        clock: fixedClock(),
        redis: down,
        logger,
        registry,
        notifications: false,
      });
      const answers = await burst(edge, `/${productId}/realtime/messages`, LIMIT);
      for (const a of answers) {
        expect(a.status).to.equal(405);
        expect(a.headers.get('ratelimit-policy')).to.equal('"per-ip";q=100;w=60');
      }
      expect(answers.at(-1)!.headers.get('ratelimit')).to.equal('"per-ip";r=0;t=20');
      expectLimited(await call(edge, 'GET', `/${productId}/realtime/messages`));
      const metrics = await registry.getSingleMetricAsString('lattice_edge_rate_limit_fallbacks_total');
      expect(metrics).to.include(
        'lattice_edge_rate_limit_fallbacks_total{environment="development",policy="per-ip"} 101',
      );
    } finally {
      await suite.closeEdges();
      await closeRedis(down);
    }
  });
});
