// Close codes and timers of the gateway, against real services: 4001 (no auth in time, the token's
// expiry, a swapped token's later expiry), token swaps, 4200 for a reader that stops reading,
// 1009 and 1003, the heartbeat, the Origin check, and Redis outages filled from history. The
// protocol's timers run on a ManualScheduler: time moves only when a test says.

import { connect } from 'node:net';
import { ManualScheduler } from '@lattice/core/testing';
import { encodeFanOutMessage } from '@lattice/realtime-protocol';
import { fanOutChannel } from '@lattice/redis';
import { startTcpProxy } from '@lattice/redis/testing';
import { expect } from 'chai';
import {
  ALL_OPS,
  createGatewayBase,
  type GatewayBase,
  type TestGateway,
  type TestProduct,
} from './gateway/harness.ts';
import { errorCode, type Frame, TestSocket } from './gateway/ws-client.ts';

const settle = () => new Promise((r) => setTimeout(r, 50));

describe('gateway: close codes, timers and outages', function () {
  this.timeout(120_000);
  let h: GatewayBase;
  let product: TestProduct;
  let scheduler: ManualScheduler;
  let gw: TestGateway;

  before(async () => {
    h = await createGatewayBase('gw-closes');
    scheduler = new ManualScheduler(Date.now());
    gw = await h.startGateway({ scheduler, limits: { pingIntervalMs: 25_000 } });
    product = await h.newProduct({ room: {} });
  });
  after(async () => {
    await h?.close();
  });

  it('closes with 4001 when no auth frame came within 10 s, not before', async () => {
    const socket = await TestSocket.open(gw.url);
    await settle();
    scheduler.advance(9_999);
    await settle();
    expect(socket.ws.readyState).to.equal(socket.ws.OPEN);
    scheduler.advance(1);
    expect((await socket.closed).code).to.equal(4001);
  });

  it("closes with 4001 at the token's exp, and a swapped token moves the close to its own exp", async () => {
    const short = await product.token('ann', [{ name: 'room:a', ops: ALL_OPS }], { ttlSeconds: 60 });
    const { socket } = await TestSocket.authed(gw.url, short);
    const longer = await product.token('ann', [{ name: 'room:a', ops: ALL_OPS }], { ttlSeconds: 120 });
    const swapped = (await socket.request({ action: 'auth', token: longer })).result as Frame;
    expect(swapped.subject).to.equal('ext:ann');
    scheduler.advance(61_000);
    expect(
      (await socket.request({ action: 'history', channel: 'room:a', last_n: 1 })).result,
    ).to.include.keys('data');
    scheduler.advance(60_000);
    expect((await socket.closed).code).to.equal(4001);

    // The first token was minted ~121 s ago in scheduler time: it is past its exp already.
    const plain = await TestSocket.open(gw.url);
    plain.send({ id: 1, action: 'auth', token: short });
    expect((await plain.closed).code).to.equal(4001);
    expect(plain.frames).to.deep.equal([]);
  });

  it('refuses a failed swap (invalid, or forbidden for another subject or product) and keeps the old token', async () => {
    const token = await product.token('ann', [{ name: 'room:s', ops: ALL_OPS }]);
    const { socket } = await TestSocket.authed(gw.url, token);
    const other = await h.newProduct({ room: {} });
    const devToken = await product.token('ann', [{ name: 'room:s', ops: ALL_OPS }], {
      environment: 'development',
    });
    expect(errorCode(await socket.request({ action: 'auth', token: 'x.y.z' }))).to.equal('invalid');
    expect(errorCode(await socket.request({ action: 'auth', token: devToken }))).to.equal('invalid');
    const bob = await product.token('bob', [{ name: 'room:s', ops: ALL_OPS }]);
    expect(errorCode(await socket.request({ action: 'auth', token: bob }))).to.equal('forbidden');
    const elsewhere = await other.token('ann', [{ name: 'room:s', ops: ALL_OPS }]);
    expect(errorCode(await socket.request({ action: 'auth', token: elsewhere }))).to.equal('forbidden');
    expect((await socket.request({ action: 'subscribe', channel: 'room:s' })).result).to.include({
      recovered: true,
    });
    socket.close();
  });

  it('ends subscriptions a swapped-in token no longer grants with unsubscribed (forbidden)', async () => {
    const both = await product.token('ann', [
      { name: 'room:k1', ops: ALL_OPS },
      { name: 'room:k2', ops: ALL_OPS },
    ]);
    const { socket } = await TestSocket.authed(gw.url, both);
    await socket.request({ action: 'subscribe', channel: 'room:k1' });
    await socket.request({ action: 'subscribe', channel: 'room:k2' });
    const narrower = await product.token('ann', [
      { name: 'room:k1', ops: ['subscribe'] },
      { name: 'room:k2', ops: ['history'] },
    ]);
    expect((await socket.request({ action: 'auth', token: narrower })).result).to.include({
      subject: 'ext:ann',
    });
    expect(socket.pushes('unsubscribed')).to.deep.equal([
      { push: 'unsubscribed', channel: 'room:k2', reason: 'forbidden' },
    ]);
    await product.publish('room:k2', 'no');
    await product.publish('room:k1', 'yes');
    const got = await socket.waitFor((f) => f.push === 'message');
    expect(got.channel).to.equal('room:k1');
    expect(socket.pushes('message', 'room:k2')).to.deep.equal([]);
    socket.close();
  });

  it('closes with 1009 on a text frame over 65 536 bytes, not at 65 536, and with 1003 on a binary frame', async () => {
    const token = await product.token('ann', [{ name: 'room:f', ops: ALL_OPS }]);
    const { socket } = await TestSocket.authed(gw.url, token);
    // Exactly 65 536 bytes: a frame the gateway reads (and refuses: its data is over 32 KiB).
    const head = '{"id":7,"action":"publish","channel":"room:f","data":"';
    const atLimit = `${head}${'x'.repeat(65_536 - head.length - 2)}"}`;
    expect(Buffer.byteLength(atLimit)).to.equal(65_536);
    socket.send(atLimit);
    expect(errorCode(await socket.waitFor((f) => f.id === 7))).to.equal('invalid');
    socket.send(`${atLimit.slice(0, -2)}x"}`);
    expect((await socket.closed).code).to.equal(1009);

    const { socket: binary } = await TestSocket.authed(gw.url, token);
    binary.ws.send(Buffer.from('{"id":1}'), { binary: true });
    expect((await binary.closed).code).to.equal(1003);
  });

  it('pings every period and drops a connection that missed two pongs; one that answers stays', async () => {
    const token = await product.token('ann', [{ name: 'room:hb', ops: ALL_OPS }]);
    const { socket: alive } = await TestSocket.authed(gw.url, token);
    const silent = await TestSocket.open(gw.url);
    // Stop answering pings: the socket's automatic pong is switched off.
    (silent.ws as unknown as { _autoPong: boolean })._autoPong = false;
    silent.send({ id: 1, action: 'auth', token });
    await silent.waitFor((f) => f.id === 1);
    let pings = 0;
    alive.ws.on('ping', () => pings++);
    for (let i = 0; i < 2; i++) {
      const pinged = new Promise((resolve) => alive.ws.once('ping', resolve));
      scheduler.advance(25_000);
      // The answering client's pong is on its way back once it saw the ping.
      await pinged;
      await settle();
    }
    expect(silent.ws.readyState).to.equal(silent.ws.OPEN);
    scheduler.advance(25_000);
    expect((await silent.closed).code).to.equal(1006);
    expect(pings).to.be.at.least(2);
    expect(alive.ws.readyState).to.equal(alive.ws.OPEN);
    alive.close();
  });

  it('closes a reader that stops reading with 4200 once its send buffer passes the bound, after the data already queued', async () => {
    const slow = await h.startGateway({ limits: { sendBufferMaxBytes: 256 * 1024 } });
    const token = await product.token('ann', [{ name: 'room:slow', ops: ALL_OPS }]);
    const { socket } = await TestSocket.authed(slow.url, token);
    const start = (await socket.request({ action: 'subscribe', channel: 'room:slow' })).result as Frame;
    // The reader stops reading: the kernel buffers fill, then the gateway's send buffer.
    const tcp = (socket.ws as unknown as { _socket: { pause(): void; resume(): void } })._socket;
    tcp.pause();
    const ref = { productId: product.productId, environment: 'production', channel: 'room:slow' };
    const data = JSON.stringify('d'.repeat(100_000));
    for (let offset = 1; offset <= 300; offset++) {
      const text = encodeFanOutMessage({
        type: 'publication',
        channel: 'room:slow',
        entry: {
          id: `m${offset}`,
          offset: (start.offset as number) + offset,
          epoch: start.epoch as string,
          name: null,
          payload: { kind: 'data', json: data },
          publishedAtMs: Date.now(),
        },
      });
      await h.base.redis.publish(fanOutChannel(h.base.config.redisKeyPrefix, ref), text);
    }
    await settle();
    tcp.resume();
    expect((await socket.closed).code).to.equal(4200);
    const received = socket.pushes('message').map((f) => f.offset as number);
    expect(received.length).to.be.greaterThan(0).and.lessThan(300);
    expect(received).to.deep.equal(received.map((_, i) => (start.offset as number) + i + 1));
    // The gateway counts the close once the closing handshake is done on its side too.
    while (slow.gateway.connections() > 0) await settle();
    const metrics = await slow.registry.metrics();
    expect(metrics).to.match(/lattice_gateway_closes_total\{environment="production",code="4200"\} 1/);
    expect(metrics).to.match(/lattice_gateway_dropped_messages_total\{environment="production"\} [1-9]/);
    await slow.close();
  });

  it('refills the client-event bucket at 5 a second: 200 ms after the burst, exactly one more', async () => {
    const token = await product.token('ann', [{ name: 'room:bucket', ops: ALL_OPS }]);
    const { socket } = await TestSocket.authed(gw.url, token);
    const publish = () => socket.request({ action: 'publish', channel: 'room:bucket', data: 1 });
    const burst = await socket.requestAll(
      Array.from({ length: 11 }, () => ({ action: 'publish', channel: 'room:bucket', data: 1 })),
    );
    expect(burst.map((r) => errorCode(r) ?? 'ok')).to.deep.equal([...Array(10).fill('ok'), 'rate_limited']);
    // Refused publishes took nothing: 199 ms later there is still no token, at 200 ms one.
    expect(errorCode(await publish())).to.equal('rate_limited');
    scheduler.advance(199);
    expect(errorCode(await publish())).to.equal('rate_limited');
    scheduler.advance(1);
    expect((await publish()).result).to.deep.equal({});
    expect(errorCode(await publish())).to.equal('rate_limited');
    socket.close();
  });

  it('survives a peer that resets its connection while its upgrade is refused', async () => {
    const strict = await h.startGateway({ limits: { allowedOrigins: ['https://app.example'] } });
    for (let i = 0; i < 20; i++) {
      const raw = connect(strict.gateway.port, '127.0.0.1');
      await new Promise((resolve) => raw.once('connect', resolve));
      raw.write(
        'GET / HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n' +
          'Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nOrigin: https://evil.example\r\n\r\n',
      );
      raw.resetAndDestroy();
    }
    await settle();
    const token = await product.token('ann', [{ name: 'room:o', ops: ALL_OPS }]);
    const ok = await TestSocket.open(strict.url, { origin: 'https://app.example' });
    ok.send({ id: 1, action: 'auth', token });
    expect((await ok.waitFor((f) => f.id === 1)).result).to.include({ subject: 'ext:ann' });
    ok.close();
    await strict.close();
  });

  it('leaves presence on channels a swapped-in token no longer grants presence for, after the reply', async () => {
    const token = await product.token('ann', [{ name: 'room:sp', ops: ALL_OPS }]);
    const watcherToken = await product.token('wat', [{ name: 'room:sp', ops: ALL_OPS }]);
    const { socket: watcher } = await TestSocket.authed(gw.url, watcherToken);
    await watcher.request({ action: 'subscribe', channel: 'room:sp' });
    const { socket } = await TestSocket.authed(gw.url, token);
    await socket.request({ action: 'subscribe', channel: 'room:sp' });
    await socket.request({ action: 'presence.enter', channel: 'room:sp' });
    await watcher.waitFor((f) => f.push === 'presence' && f.action === 'join');
    const narrower = await product.token('ann', [{ name: 'room:sp', ops: ['subscribe'] }]);
    const mark = socket.frames.length;
    expect((await socket.request({ action: 'auth', token: narrower })).result).to.include({
      subject: 'ext:ann',
    });
    expect(socket.frames[mark]?.result, 'the reply comes first').to.include({ subject: 'ext:ann' });
    const left = await watcher.waitFor((f) => f.push === 'presence' && f.action === 'leave');
    expect((left.member as Frame).identity).to.equal('ext:ann');
    // Still subscribed (subscribe is granted), but no presence pushes without the presence op.
    await socket
      .request({ action: 'subscribe', channel: 'room:sp' })
      .then((r) => expect(errorCode(r)).to.equal('invalid'));
    await watcher.request({ action: 'presence.enter', channel: 'room:sp' });
    await product.publish('room:sp', 'after');
    await socket.waitFor((f) => f.push === 'message');
    expect(
      socket
        .pushes('presence')
        .filter((f) => f.action === 'join' && (f.member as Frame).identity === 'ext:wat'),
    ).to.deep.equal([]);
    socket.close();
    watcher.close();
  });

  it('refuses upgrades from origins not listed when GATEWAY_ALLOWED_ORIGINS is set, and speaks no subprotocol', async () => {
    const strict = await h.startGateway({ limits: { allowedOrigins: ['https://app.example'] } });
    const token = await product.token('ann', [{ name: 'room:o', ops: ALL_OPS }]);
    let refused = '';
    await TestSocket.open(strict.url, { origin: 'https://evil.example' }).catch((e: Error) => {
      refused = e.message;
    });
    expect(refused).to.match(/403/);
    // The refusal is the JSON error body, as every answer that is not a success.
    const raw = connect(strict.gateway.port, '127.0.0.1');
    await new Promise((resolve) => raw.once('connect', resolve));
    let answer = '';
    raw.on('data', (d: Buffer) => {
      answer += d.toString('utf8');
    });
    raw.write(
      'GET / HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n' +
        'Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nOrigin: https://evil.example\r\n\r\n',
    );
    await new Promise((resolve) => raw.once('close', resolve));
    expect(answer).to.match(/^HTTP\/1\.1 403 /);
    expect(answer).to.match(/\r\nContent-Type: application\/json/);
    expect(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)).error.code).to.equal(
      'origin_not_allowed',
    );
    const ok = await TestSocket.open(strict.url, { origin: 'https://app.example' });
    ok.send({ id: 1, action: 'auth', token });
    expect((await ok.waitFor((f) => f.id === 1)).result).to.include({ subject: 'ext:ann' });
    ok.close();
    let noProtocol = '';
    await TestSocket.open(strict.url, { origin: 'https://app.example', protocols: ['chat'] }).catch(
      (e: Error) => {
        noProtocol = e.message;
      },
    );
    expect(noProtocol).to.match(/protocol/i);
    await strict.close();
  });

  it('after a Redis outage, pushes from history what was published meanwhile, in order', async () => {
    const proxy = await startTcpProxy('127.0.0.1', Number(new URL(h.base.config.redisUrl).port || 6379));
    const behind = await h.startGateway({ config: { redisUrl: `redis://127.0.0.1:${proxy.port}` } });
    try {
      const token = await product.token('ann', [
        { name: 'room:out', ops: ALL_OPS },
        { name: 'room:gone', ops: ALL_OPS },
      ]);
      const { socket } = await TestSocket.authed(behind.url, token);
      await socket.request({ action: 'subscribe', channel: 'room:out' });
      await socket.request({ action: 'subscribe', channel: 'room:gone' });
      const gone = fanOutChannel(h.base.config.redisKeyPrefix, {
        productId: product.productId,
        environment: 'production',
        channel: 'room:gone',
      });
      const numsub = async () => Number(((await h.base.redis.pubsub('NUMSUB', gone)) as [string, number])[1]);
      expect(await numsub()).to.equal(1);
      await product.publish('room:out', 1);
      await socket.waitForCount((f) => f.push === 'message', 1);
      expect(behind.gateway.health()).to.deep.equal({ ok: true });
      await proxy.stop();
      while (behind.gateway.health().ok) await settle();
      expect(behind.gateway.health().reason).to.match(/^fan-out connection to Redis is/);
      for (let i = 2; i <= 4; i++) await product.publish('room:out', i);
      await product.applied('room:out', 4);
      // Unsubscribed while Redis is out of reach: the UNSUBSCRIBE cannot go through now.
      expect((await socket.request({ action: 'unsubscribe', channel: 'room:gone' })).result).to.deep.equal(
        {},
      );
      await proxy.start();
      // Nothing published after the outage shows a gap: the resync alone brings 2..4.
      const all = await socket.waitForCount((f) => f.push === 'message', 4);
      expect(all.map((f) => f.offset)).to.deep.equal([1, 2, 3, 4]);
      expect(all.map((f) => f.data)).to.deep.equal([1, 2, 3, 4]);
      await product.publish('room:out', 5);
      await socket.waitForCount((f) => f.push === 'message', 5);
      expect(socket.pushes('message').map((f) => f.offset)).to.deep.equal([1, 2, 3, 4, 5]);
      // The channel nobody holds any more is not subscribed again after the reconnect.
      const deadline = Date.now() + 5_000;
      while ((await numsub()) !== 0 && Date.now() < deadline) await settle();
      expect(await numsub()).to.equal(0);
      socket.close();
    } finally {
      await behind.close();
      await proxy.close();
    }
  });

  it('ends a subscription with unsubscribed (recover) on a gap history cannot fill, or another epoch', async () => {
    const token = await product.token('ann', [{ name: 'room:gap', ops: ALL_OPS }]);
    const { socket } = await TestSocket.authed(gw.url, token);
    await product.publish('room:gap', 1);
    const { epoch } = await product.applied('room:gap', 1);
    await socket.request({ action: 'subscribe', channel: 'room:gap' });
    const ref = { productId: product.productId, environment: 'production', channel: 'room:gap' };
    const forged = (offset: number, e: string) =>
      encodeFanOutMessage({
        type: 'publication',
        channel: 'room:gap',
        entry: {
          id: 'x',
          offset,
          epoch: e,
          name: null,
          payload: { kind: 'data', json: '1' },
          publishedAtMs: 0,
        },
      });
    // Offset 3 while history holds 1: the gap (2) cannot be filled.
    await h.base.redis.publish(fanOutChannel(h.base.config.redisKeyPrefix, ref), forged(3, epoch));
    expect(await socket.waitFor((f) => f.push === 'unsubscribed')).to.deep.equal({
      push: 'unsubscribed',
      channel: 'room:gap',
      reason: 'recover',
    });
    expect(socket.pushes('message')).to.deep.equal([]);
    // Resubscribed: another epoch is a gap too.
    await socket.request({ action: 'subscribe', channel: 'room:gap' });
    await h.base.redis.publish(
      fanOutChannel(h.base.config.redisKeyPrefix, ref),
      forged(2, 'ffffffffffffffff'),
    );
    await socket.waitForCount((f) => f.push === 'unsubscribed', 2);
    socket.close();
  });
});
