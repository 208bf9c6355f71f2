// The realtime client (@lattice/realtime-client, in Node with its global WebSocket) against the
// real gateway, Kafka, Redis and PostgreSQL: 1 000 messages published while the client is forced
// to reconnect 5 times (gateway restarts and dropped connections) end with offsets 1..1000
// exactly once and in order; a token's expiry brings a fresh token and the stream continues;
// client events, presence and history through the client's promises.
import { sleep } from '@lattice/core';
import { ManualScheduler } from '@lattice/core/testing';
import { connect, type MessagePush, type RealtimeClient } from '@lattice/realtime-client';
import { startTcpProxy } from '@lattice/redis/testing';
import { expect } from 'chai';
import {
  ALL_OPS,
  createGatewayBase,
  type GatewayBase,
  type TestGateway,
  type TestProduct,
} from './gateway/harness.ts';

const until = async (check: () => boolean, what: string, timeoutMs = 30_000) => {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out: ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
};

describe('realtime client against the gateway', function () {
  this.timeout(180_000);
  let h: GatewayBase;
  let product: TestProduct;
  const clients: RealtimeClient[] = [];

  before(async () => {
    h = await createGatewayBase('rt-client');
    product = await h.newProduct({ feed: {}, chat: {} });
  });
  afterEach(async () => {
    for (const c of clients.splice(0)) await c.close();
  });
  after(async () => {
    await h?.close();
  });

  it('receives at least 1 000 messages exactly once and in order across 5 forced reconnects', async () => {
    let gw: TestGateway = await h.startGateway();
    // The client reaches the gateway through a TCP proxy that a test can cut (a network loss).
    const proxy = await startTcpProxy('127.0.0.1', gw.gateway.port);
    const url = `ws://127.0.0.1:${proxy.port}`;
    const channel = 'feed:load';
    const client = connect({
      url,
      getToken: () => product.token('reader', [{ name: channel, ops: ['subscribe'] }]),
      backoff: { initialMs: 50, maxMs: 500 },
    });
    clients.push(client);
    const received: MessagePush[] = [];
    const disconnects: number[] = [];
    client.on('disconnected', ({ code }) => disconnects.push(code));
    await client.subscribe(channel, { onMessage: (m) => received.push(m) });

    // About 400 a second, and on until the last reconnect is done (then up to 1 000 at least), so
    // every reconnect below happens while messages keep coming, however slow the machine.
    let published = 0;
    let reconnectsDone = false;
    const publishing = (async () => {
      while (!reconnectsDone || published < 1000) {
        const batch = Array.from({ length: 10 }, (_, i) => published + i + 1);
        published += batch.length;
        await Promise.all([...batch.map((n) => product.publish(channel, { n })), sleep(25)]);
      }
    })();
    // Five reconnects while publishing: three gateway restarts (4100 on its drain, then nothing
    // listening for a moment) and two connections dropped without a close frame (1006).
    for (let i = 0; i < 5; i++) {
      await until(() => received.length >= (i + 1) * 150, `progress before reconnect ${i + 1}`);
      const before = disconnects.length;
      if (i % 2 === 0) {
        const settings = gw.settings;
        await gw.close();
        gw = await h.startGateway(settings);
      } else {
        await proxy.stop();
        await proxy.start();
      }
      await until(() => disconnects.length > before, `disconnect ${i + 1}`);
      await until(() => client.state === 'connected', `reconnect ${i + 1}`);
    }
    reconnectsDone = true;
    await publishing;
    const total = published;
    expect(total).to.be.at.least(1000);
    await until(() => received.length >= total, `all ${total} messages`, 60_000);
    await new Promise((r) => setTimeout(r, 200));
    // Each restart is a 4100, then attempts refused (1006) until the gateway listens again.
    expect(disconnects.filter((c) => c === 4100)).to.have.length(3);
    expect(disconnects.filter((c) => c === 1006).length).to.be.at.least(2);
    const offsets = received.map((m) => m.offset);
    expect(offsets).to.deep.equal(Array.from({ length: total }, (_, i) => i + 1));
    expect(new Set(received.map((m) => m.epoch)).size).to.equal(1);
    expect(new Set(received.map((m) => (m.data as { n: number }).n)).size).to.equal(total);
    await gw.close();
    await proxy.close();
  });

  it("fetches a fresh token when the gateway closes with 4001 at the token's exp, and goes on", async () => {
    const scheduler = new ManualScheduler(Date.now());
    const gw = await h.startGateway({ scheduler });
    const channel = 'feed:exp';
    let tokens = 0;
    const client = connect({
      url: gw.url,
      // Minted on the gateway's clock, so its exp is in the gateway's time.
      getToken: async () => {
        tokens++;
        const issued = await gw.realtime.tokens.issue({
          productId: product.productId,
          environment: 'production',
          body: { subject: 'exp', channels: [{ name: channel, ops: ['subscribe'] }], ttlSeconds: 60 },
        });
        return issued.token;
      },
      backoff: { initialMs: 50, maxMs: 200 },
      // No swap ahead of exp: this test wants the 4001.
      refreshBeforeExpiryMs: 0,
    });
    clients.push(client);
    const received: number[] = [];
    const closes: number[] = [];
    client.on('disconnected', ({ code }) => closes.push(code));
    await client.subscribe(channel, { onMessage: (m) => received.push(m.offset) });
    await product.publish(channel, 1);
    await until(() => received.length === 1, 'first message');
    scheduler.advance(60_000);
    await until(() => closes.length === 1, 'the 4001');
    expect(closes).to.deep.equal([4001]);
    await until(() => client.state === 'connected' && tokens === 2, 'reconnected with a fresh token');
    await product.publish(channel, 2);
    await until(() => received.length === 2, 'message after the fresh token');
    expect(received).to.deep.equal([1, 2]);
    await gw.close();
  });

  it('publishes client events, enters presence and reads history through its promises', async () => {
    const gw = await h.startGateway();
    const channel = 'chat:room';
    const make = (subject: string) => {
      const c = connect({
        url: gw.url,
        getToken: () => product.token(subject, [{ name: channel, ops: ALL_OPS }]),
      });
      clients.push(c);
      return c;
    };
    const ann = make('ann');
    const bob = make('bob');
    const events: unknown[] = [];
    const presence: string[] = [];
    await bob.subscribe(channel, {
      onEvent: (e) => events.push([e.from, e.data]),
      onPresence: (p) => presence.push(`${p.action}:${p.member.identity}`),
    });
    // Client events are not queued while connecting (the client refuses them): wait for Ann's.
    await until(() => ann.state === 'connected', 'ann connected');
    await ann.publish(channel, { typing: true });
    await ann.presence.enter(channel, { info: { name: 'Ann' } });
    await until(() => events.length === 1 && presence.length === 1, 'event and join');
    expect(events).to.deep.equal([['ext:ann', { typing: true }]]);
    expect(presence).to.deep.equal(['join:ext:ann']);
    expect(await bob.presence.get(channel)).to.deep.equal({
      data: [{ identity: 'ext:ann', connections: 1, info: { name: 'Ann' } }],
    });
    await product.publish(channel, 'stored');
    await product.applied(channel, 1);
    const history = await ann.history(channel, { last_n: 5 });
    expect(history.data.map((e) => e.data)).to.deep.equal(['stored']);
    const refused = await ann.publish('chat:elsewhere', 1).catch((e: { code: string }) => e.code);
    expect(refused).to.equal('forbidden');
    await gw.close();
  });
});
