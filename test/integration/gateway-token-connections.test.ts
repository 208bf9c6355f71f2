// Live connections per token across gateways (docs/realtime.md "The gateway"; token-slots.ts): with
// GATEWAY_MAX_CONNECTIONS_PER_TOKEN at 3 on two gateways sharing Redis, the 4th authentication of
// one token, on either gateway, is closed with 4429 (never 4001, after which clients retry at
// once) while the first three keep working; a closed connection gives its slot back; another
// token of the same subject has slots of its own.
import { CLOSE_CODES, reconnectRuleOf } from '@lattice/realtime-protocol';
import { expect } from 'chai';
import {
  ALL_OPS,
  createGatewayBase,
  type GatewayBase,
  type TestGateway,
  type TestProduct,
} from './gateway/harness.ts';
import { TestSocket } from './gateway/ws-client.ts';

describe('gateway: live connections per token', function () {
  this.timeout(120_000);
  let h: GatewayBase;
  let a: TestGateway;
  let b: TestGateway;
  let product: TestProduct;

  before(async () => {
    h = await createGatewayBase('gw-token-conns');
    a = await h.startGateway({ limits: { maxConnectionsPerToken: 3 } });
    b = await h.startGateway({ limits: { maxConnectionsPerToken: 3 } });
    product = await h.newProduct({ room: {} });
  });
  after(async () => {
    await h?.close();
  });

  it('closes the 4th connection of a token with 4429 on any gateway; the first three keep working', async () => {
    const token = await product.token('ann', [{ name: 'room:x', ops: ALL_OPS }]);
    const first = [
      (await TestSocket.authed(a.url, token)).socket,
      (await TestSocket.authed(a.url, token)).socket,
      (await TestSocket.authed(b.url, token)).socket,
    ];
    for (const gw of [a, b]) {
      const fourth = await TestSocket.open(gw.url);
      fourth.send({ id: 1, action: 'auth', token });
      const closed = await fourth.closed;
      expect(closed.code).to.equal(4429);
      expect(closed.code).to.equal(CLOSE_CODES.tooManyConnections);
      expect(reconnectRuleOf(closed.code)).to.equal('backoff');
    }
    for (const s of first) {
      expect((await s.request({ action: 'subscribe', channel: 'room:x' })).result).to.include({
        recovered: true,
      });
    }

    // Another token of the same subject is a token of its own.
    const other = await product.token('ann', [{ name: 'room:x', ops: ALL_OPS }], { ttlSeconds: 600 });
    const separate = (await TestSocket.authed(b.url, other)).socket;

    // A slot given back is taken again.
    first[0]!.close();
    await first[0]!.closed;
    let again = await TestSocket.open(a.url);
    again.send({ id: 99, action: 'auth', token });
    // The gateway gives the slot back when it sees the close, a moment after the client: an auth
    // racing it is refused and asked again.
    for (;;) {
      const reply = await Promise.race([again.waitFor((f) => f.id === 99), again.closed]);
      if (!('code' in reply)) break;
      expect(reply.code).to.equal(4429);
      again = await TestSocket.open(a.url);
      again.send({ id: 99, action: 'auth', token });
    }
    expect((await again.request({ action: 'subscribe', channel: 'room:x' })).result).to.include({
      recovered: true,
    });
    for (const s of [...first.slice(1), separate, again]) s.close();
  });
});
