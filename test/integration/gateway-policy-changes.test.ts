// A namespace policy change reaches connections that are already open (docs/realtime.md "The gateway"):
// two real WebSocket clients hold tokens minted while client events and presence were on; the
// Owner switches them off, or deletes the namespace; the next client event and presence entry are
// refused `forbidden` and nothing reaches the other subscriber. The gateway reads policies through
// the deployment's policy cache (5 s by default, so within the 10 s allowed); these
// tests run it with the cache off, so the change applies from the next frame.
import { POLICY_CACHE_TTL_MS } from '@lattice/realtime';
import { expect } from 'chai';
import {
  ALL_OPS,
  createGatewayBase,
  type GatewayBase,
  type TestGateway,
  type TestProduct,
} from './gateway/harness.ts';
import { errorCode, TestSocket } from './gateway/ws-client.ts';

describe('gateway: namespace policy changes on open connections', function () {
  this.timeout(120_000);
  let h: GatewayBase;
  let gw: TestGateway;
  let product: TestProduct;

  before(async () => {
    h = await createGatewayBase('gw-policy');
    gw = await h.startGateway();
    product = await h.newProduct({ flip: {}, gone: {} });
  });
  after(async () => {
    await h?.close();
  });

  const connect = async (subject: string, channel: string) => {
    const token = await product.token(subject, [{ name: channel, ops: ALL_OPS }]);
    const { socket } = await TestSocket.authed(gw.url, token);
    await socket.request({ action: 'subscribe', channel });
    return socket;
  };

  /** A message published over HTTP reaches `socket`: everything pushed before it has arrived. */
  async function flushed(socket: TestSocket, channel: string): Promise<void> {
    const id = await product.publish(channel, { marker: true });
    await socket.waitFor((f) => f.push === 'message' && f.id === id);
  }

  it('the deployment default reads policies at most 5 s old, inside the 10 s allowed', () => {
    expect(POLICY_CACHE_TTL_MS).to.be.at.most(10_000);
  });

  it('client events and presence switched off: the next event and presence entry are refused, nothing is pushed', async () => {
    const a = await connect('ann', 'flip:room');
    const b = await connect('bob', 'flip:room');
    expect(
      (await a.request({ action: 'publish', channel: 'flip:room', data: 'before' })).result,
    ).to.deep.equal({});
    await b.waitFor((f) => f.push === 'event' && f.data === 'before');

    await gw.realtime.namespaces.put(product.productId, 'flip', {
      presence: false,
      clientEvents: false,
      historyWindowSeconds: 3600,
      archiveDays: 0,
    });
    expect(errorCode(await a.request({ action: 'publish', channel: 'flip:room', data: 'after' }))).to.equal(
      'forbidden',
    );
    expect(errorCode(await a.request({ action: 'presence.enter', channel: 'flip:room' }))).to.equal(
      'forbidden',
    );
    await flushed(b, 'flip:room');
    expect(b.pushes('event').map((f) => f.data)).to.deep.equal(['before']);
    expect(b.pushes('presence')).to.deep.equal([]);

    // Switched on again: the same open connections may publish again.
    await gw.realtime.namespaces.put(product.productId, 'flip', {
      presence: true,
      clientEvents: true,
      historyWindowSeconds: 3600,
      archiveDays: 0,
    });
    expect(
      (await a.request({ action: 'publish', channel: 'flip:room', data: 'again' })).result,
    ).to.deep.equal({});
    await b.waitFor((f) => f.push === 'event' && f.data === 'again');
    for (const s of [a, b]) s.close();
  });

  it('the namespace deleted: the next event is refused and nothing is pushed', async () => {
    const a = await connect('ann', 'gone:room');
    const b = await connect('bob', 'gone:room');
    expect(
      (await a.request({ action: 'publish', channel: 'gone:room', data: 'before' })).result,
    ).to.deep.equal({});
    await b.waitFor((f) => f.push === 'event' && f.data === 'before');
    expect(await gw.realtime.namespaces.delete(product.productId, 'gone')).to.equal(true);
    expect(errorCode(await a.request({ action: 'publish', channel: 'gone:room', data: 'after' }))).to.equal(
      'forbidden',
    );
    expect(errorCode(await a.request({ action: 'presence.enter', channel: 'gone:room' }))).to.equal(
      'forbidden',
    );
    // Registered again, a message published over HTTP reaches b after anything the gateway had
    // let through while it was gone.
    await gw.realtime.namespaces.put(product.productId, 'gone', {
      presence: true,
      clientEvents: true,
      historyWindowSeconds: 3600,
      archiveDays: 0,
    });
    await flushed(b, 'gone:room');
    expect(b.pushes('event').map((f) => f.data)).to.deep.equal(['before']);
    for (const s of [a, b]) s.close();
  });
});
