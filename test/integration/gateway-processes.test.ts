// Gateways as separate processes (`lattice start gateway --env production`), as they are deployed:
// clients on two gateways receive every message and each other's client events, each gateway
// holds one Redis subscription per channel whatever its local subscribers, serves its metrics on
// a port of its own, and on SIGTERM sends 4100 to every connection and exits 0; while it drains its
// /healthz answers 503 "draining" and its /metrics are still served.
import type { ChildProcess } from 'node:child_process';
import type { Socket } from 'node:net';
import { fanOutChannel } from '@lattice/redis';
import { expect } from 'chai';
import { freePort, startPlatform, stopPlatform } from '../support/lattice-process.ts';
import { waitUntil } from '../support/wait-until.ts';
import { ALL_OPS, createGatewayBase, type GatewayBase, type TestProduct } from './gateway/harness.ts';
import { TestSocket } from './gateway/ws-client.ts';

interface GatewayProcess {
  child: ChildProcess;
  url: string;
  metricsUrl: string;
}

describe('gateway processes', function () {
  this.timeout(180_000);
  let h: GatewayBase;
  let product: TestProduct;
  const processes: GatewayProcess[] = [];

  async function startGatewayProcess(): Promise<GatewayProcess> {
    const port = await freePort();
    const metricsPort = await freePort();
    const { config } = h.base;
    const { child } = await startPlatform(
      {
        GATEWAY_URL: `ws://127.0.0.1:${port}`,
        GATEWAY_METRICS_PORT: String(metricsPort),
        REDIS_URL: config.redisUrl,
        REDIS_KEY_PREFIX: config.redisKeyPrefix,
        KAFKA_BROKERS: config.kafkaBrokers.join(','),
        KAFKA_TOPIC_PREFIX: config.kafkaTopicPrefix,
      },
      ['gateway', '--env', 'production'],
      'gateway-production-metrics role running',
    );
    const running = { child, url: `ws://127.0.0.1:${port}`, metricsUrl: `http://127.0.0.1:${metricsPort}` };
    processes.push(running);
    return running;
  }

  before(async () => {
    h = await createGatewayBase('gw-procs');
    product = await h.newProduct({ room: {} });
  });
  after(async () => {
    for (const p of processes) if (p.child.exitCode === null) await stopPlatform(p.child);
    await h?.close();
  });

  it('delivers every message to clients on both gateways, with one Redis subscription per channel each', async () => {
    const [a, b] = [await startGatewayProcess(), await startGatewayProcess()];
    const token = await product.token('ann', [{ name: 'room:two', ops: ALL_OPS }]);
    const clients: TestSocket[] = [];
    for (const g of [a, a, a, b, b]) {
      const { socket } = await TestSocket.authed(g.url, token);
      await socket.request({ action: 'subscribe', channel: 'room:two' });
      clients.push(socket);
    }
    const redisChannel = fanOutChannel(h.base.config.redisKeyPrefix, {
      productId: product.productId,
      environment: 'production',
      channel: 'room:two',
    });
    const numsub = async () =>
      Number(((await h.base.redis.pubsub('NUMSUB', redisChannel)) as [string, number])[1]);
    expect(await numsub(), 'one subscription per gateway process').to.equal(2);

    for (let i = 1; i <= 50; i++) await product.publish('room:two', { n: i });
    for (const c of clients) {
      const got = await c.waitForCount((f) => f.push === 'message', 50);
      expect(got.map((f) => f.offset)).to.deep.equal(Array.from({ length: 50 }, (_, i) => i + 1));
    }
    // A client event from gateway A reaches the clients of gateway B, and A's other clients.
    await clients[0]!.request({ action: 'publish', channel: 'room:two', data: 'hey' });
    for (const c of clients.slice(1)) await c.waitFor((f) => f.push === 'event');
    expect(clients[0]!.pushes('event')).to.deep.equal([]);

    // The gateway's metrics on its own port.
    const metrics = await (await fetch(`${a.metricsUrl}/metrics`)).text();
    expect(metrics).to.match(/^lattice_gateway_connections\{environment="production"\} 3$/m);
    expect(metrics).to.match(/^lattice_gateway_subscriptions\{environment="production"\} 3$/m);
    expect(metrics).to.match(
      /^lattice_gateway_pushes_total\{environment="production",push="message"\} 150$/m,
    );
    expect((await fetch(`${a.metricsUrl}/healthz`)).status).to.equal(200);
    // A gateway run alone serves no demo: its token route would mint without a credential.
    for (const path of ['/demo', '/demo/lattice-realtime.js']) {
      const res = await fetch(`${a.url.replace(/^ws/, 'http')}${path}`);
      expect(res.status, path).to.equal(426);
      // Not a success, so the JSON error body (docs/realtime.md "The gateway").
      expect(res.headers.get('content-type'), path).to.match(/^application\/json/);
      expect(((await res.json()) as { error: { code: string } }).error.code).to.equal('upgrade_required');
    }
    const demoToken = await fetch(`${a.url.replace(/^ws/, 'http')}/demo/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"name":"x"}',
    });
    expect(demoToken.status).to.equal(426);

    // The last local subscriber leaving drops the gateway's subscription.
    for (const c of clients.slice(0, 3)) await c.request({ action: 'unsubscribe', channel: 'room:two' });
    const deadline = Date.now() + 5_000;
    while ((await numsub()) !== 1 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(await numsub()).to.equal(1);
    for (const c of clients) c.close();
  });

  it('on SIGTERM sends 4100 to every connection and exits 0', async () => {
    const g = await startGatewayProcess();
    const token = await product.token('ann', [{ name: 'room:drain', ops: ALL_OPS }]);
    const clients = [];
    for (let i = 0; i < 3; i++) {
      const { socket } = await TestSocket.authed(g.url, token);
      await socket.request({ action: 'subscribe', channel: 'room:drain' });
      clients.push(socket);
    }
    const exited = stopPlatform(g.child);
    const codes = await Promise.all(clients.map(async (c) => (await c.closed).code));
    expect(codes).to.deep.equal([4100, 4100, 4100]);
    expect(await exited).to.equal(0);
  });

  it('while it drains: /healthz 503 "draining", new clients refused, still scraped until its last connection closed', async () => {
    const g = await startGatewayProcess();
    const token = await product.token('ann', [{ name: 'room:slow-drain', ops: ALL_OPS }]);
    const { socket } = await TestSocket.authed(g.url, token);
    await socket.request({ action: 'subscribe', channel: 'room:slow-drain' });
    expect((await fetch(`${g.metricsUrl}/healthz`)).status).to.equal(200);
    // The client stops reading: it does not see the gateway's 4100, so it does not answer it and
    // the drain waits for it (up to the 30 s closing handshake).
    const tcp = (socket.ws as unknown as { _socket: Socket })._socket;
    tcp.pause();
    const exited = stopPlatform(g.child);
    let health: { status: number; body: string } = { status: 0, body: '' };
    await waitUntil(
      '/healthz to say draining',
      async () => {
        const res = await fetch(`${g.metricsUrl}/healthz`);
        health = { status: res.status, body: await res.text() };
        return res.status !== 200;
      },
      10_000,
      50,
    );
    expect(health.status).to.equal(503);
    expect(JSON.parse(health.body)).to.deep.equal({
      status: 'unhealthy',
      reason: 'draining: closing its connections',
    });
    const scraped = await fetch(`${g.metricsUrl}/metrics`);
    expect(scraped.status).to.equal(200);
    expect(await scraped.text()).to.match(/^lattice_gateway_connections(\{[^}]*\})? 1$/m);
    const refused = await TestSocket.open(g.url).then(
      () => null,
      (err: Error) => err.message,
    );
    expect(refused).to.equal('upgrade refused: 503');
    expect(g.child.exitCode, 'still draining').to.equal(null);

    tcp.resume();
    expect((await socket.closed).code).to.equal(4100);
    expect(await exited).to.equal(0);
    const after = await fetch(`${g.metricsUrl}/healthz`).then(
      () => 'answered',
      () => 'closed',
    );
    expect(after, 'the metrics port once the process exited').to.equal('closed');
  });
});
