// Client events and presence over the gateway, against real Kafka, Redis and PostgreSQL: both
// sides of every bound (32 768 / 32 769 bytes of event data, the 10th / 11th event of a burst,
// the 100th / 101st member, 10 240 / 10 241 bytes of info), pushes to the right connections, and
// entries kept alive while a connection lives and left when it closes.
import { expect } from 'chai';
import {
  ALL_OPS,
  createGatewayBase,
  type GatewayBase,
  type TestGateway,
  type TestProduct,
} from './gateway/harness.ts';
import { errorCode, type Frame, TestSocket } from './gateway/ws-client.ts';

describe('gateway: client events and presence', function () {
  this.timeout(120_000);
  let h: GatewayBase;
  let gw: TestGateway;
  let product: TestProduct;

  before(async () => {
    h = await createGatewayBase('gw-presence');
    gw = await h.startGateway();
    product = await h.newProduct({ room: {}, plain: { presence: false, clientEvents: false } });
  });
  after(async () => {
    await h?.close();
  });

  const connect = async (subject: string, channel: string, ops = ALL_OPS) => {
    const token = await product.token(subject, [{ name: channel, ops }]);
    return (await TestSocket.authed(gw.url, token)).socket;
  };

  it('pushes a client event to the other subscribers, never back to its publisher, and stores nothing', async () => {
    const a = await connect('ann', 'room:ev');
    const b = await connect('bob', 'room:ev');
    for (const s of [a, b]) await s.request({ action: 'subscribe', channel: 'room:ev' });
    expect(
      (await a.request({ action: 'publish', channel: 'room:ev', data: { typing: true } })).result,
    ).to.deep.equal({});
    const event = await b.waitFor((f) => f.push === 'event');
    expect(event).to.deep.equal({
      push: 'event',
      channel: 'room:ev',
      from: 'ext:ann',
      data: { typing: true },
    });
    // A publisher that is not subscribed reaches the subscribers too.
    const c = await connect('cat', 'room:ev', ['publish']);
    await c.request({ action: 'publish', channel: 'room:ev', data: 'hi' });
    await b.waitForCount((f) => f.push === 'event', 2);
    await a.waitFor((f) => f.push === 'event' && f.from === 'ext:cat');
    expect(a.pushes('event').map((f) => f.from)).to.deep.equal(['ext:cat']);
    const history = (await a.request({ action: 'history', channel: 'room:ev', last_n: 10 })).result as Frame;
    expect(history.data).to.deep.equal([]);
    for (const s of [a, b, c]) s.close();
  });

  it('takes 32 768 bytes of event data and refuses 32 769 as invalid', async () => {
    const a = await connect('ann', 'room:size');
    const b = await connect('bob', 'room:size');
    await b.request({ action: 'subscribe', channel: 'room:size' });
    // A JSON string of n characters serializes to n + 2 bytes.
    const atLimit = 'x'.repeat(32_766);
    expect(
      (await a.request({ action: 'publish', channel: 'room:size', data: atLimit })).result,
    ).to.deep.equal({});
    const over = await a.request({ action: 'publish', channel: 'room:size', data: `${atLimit}y` });
    expect(errorCode(over)).to.equal('invalid');
    const got = await b.waitFor((f) => f.push === 'event');
    expect((got.data as string).length).to.equal(32_766);
    expect(a.ws.readyState).to.equal(a.ws.OPEN);
    a.close();
    b.close();
  });

  it('refuses client events and presence where the namespace does not enable them (the token lacks the op)', async () => {
    const token = await product.token('ann', [{ name: 'plain:x', ops: ALL_OPS }]);
    const { socket } = await TestSocket.authed(gw.url, token);
    expect(errorCode(await socket.request({ action: 'publish', channel: 'plain:x', data: 1 }))).to.equal(
      'forbidden',
    );
    expect(errorCode(await socket.request({ action: 'presence.enter', channel: 'plain:x' }))).to.equal(
      'forbidden',
    );
    expect((await socket.request({ action: 'subscribe', channel: 'plain:x' })).result).to.include({
      recovered: true,
    });
    socket.close();
  });

  it('enters, updates and leaves presence with pushes to subscribers holding the presence op', async () => {
    const watcher = await connect('wat', 'room:p');
    const blind = await connect('bli', 'room:p', ['subscribe']);
    for (const s of [watcher, blind]) await s.request({ action: 'subscribe', channel: 'room:p' });
    const ann = await connect('ann', 'room:p');
    expect(
      (await ann.request({ action: 'presence.enter', channel: 'room:p', info: { name: 'Ann' } })).result,
    ).to.deep.equal({});
    const join = await watcher.waitFor((f) => f.push === 'presence');
    expect(join).to.deep.equal({
      push: 'presence',
      channel: 'room:p',
      action: 'join',
      member: { identity: 'ext:ann', connections: 1, info: { name: 'Ann' } },
    });
    const get = (await watcher.request({ action: 'presence.get', channel: 'room:p' })).result;
    expect(get).to.deep.equal({ data: [{ identity: 'ext:ann', connections: 1, info: { name: 'Ann' } }] });
    expect((await watcher.request({ action: 'presence.stats', channel: 'room:p' })).result).to.deep.equal({
      members: 1,
      connections: 1,
    });
    // A second connection of the same member: an update, not a join.
    const ann2 = await connect('ann', 'room:p');
    await ann2.request({ action: 'presence.enter', channel: 'room:p', info: { name: 'Ann' } });
    await ann.request({ action: 'presence.update', channel: 'room:p', info: { name: 'Ann B.' } });
    await ann.request({ action: 'presence.leave', channel: 'room:p' });
    // The last connection closes: the gateway leaves for it.
    ann2.close();
    const pushes = await watcher.waitForCount((f) => f.push === 'presence', 5);
    expect(
      pushes.map((p) => [p.action, (p.member as Frame).connections, (p.member as Frame).info]),
    ).to.deep.equal([
      ['join', 1, { name: 'Ann' }],
      ['update', 2, { name: 'Ann' }],
      ['update', 2, { name: 'Ann B.' }],
      ['update', 1, { name: 'Ann B.' }],
      ['leave', 0, { name: 'Ann B.' }],
    ]);
    expect(blind.pushes('presence')).to.deep.equal([]);
    // An update from a connection not in the roster is invalid.
    const bob = await connect('bob', 'room:p');
    expect(errorCode(await bob.request({ action: 'presence.update', channel: 'room:p', info: 1 }))).to.equal(
      'invalid',
    );
    for (const s of [watcher, blind, ann, bob]) s.close();
  });

  it('takes info of 10 240 bytes and refuses 10 241; lifetimes 1..3600', async () => {
    const a = await connect('ann', 'room:info');
    const info = 'i'.repeat(10_238);
    expect((await a.request({ action: 'presence.enter', channel: 'room:info', info })).result).to.deep.equal(
      {},
    );
    expect(
      errorCode(await a.request({ action: 'presence.update', channel: 'room:info', info: `${info}j` })),
    ).to.equal('invalid');
    expect(
      errorCode(await a.request({ action: 'presence.enter', channel: 'room:info', info: `${info}j` })),
    ).to.equal('invalid');
    for (const ttl of [0, 3601, 1.5]) {
      const reply = await a.request({ action: 'presence.enter', channel: 'room:info', ttl_seconds: ttl });
      expect(errorCode(reply), String(ttl)).to.equal('invalid');
    }
    for (const ttl of [1, 3600]) {
      const reply = await a.request({ action: 'presence.enter', channel: 'room:info', ttl_seconds: ttl });
      expect(reply.result, String(ttl)).to.deep.equal({});
    }
    a.close();
  });

  it('keeps an entry alive past its lifetime while the connection lives, announcing nothing', async () => {
    const watcher = await connect('wat', 'room:alive');
    await watcher.request({ action: 'subscribe', channel: 'room:alive' });
    const a = await connect('ann', 'room:alive');
    await a.request({ action: 'presence.enter', channel: 'room:alive', ttl_seconds: 1 });
    // Three lifetimes later the entry is still there: the gateway refreshed it.
    await new Promise((r) => setTimeout(r, 3_000));
    const stats = (await a.request({ action: 'presence.stats', channel: 'room:alive' })).result;
    expect(stats).to.deep.equal({ members: 1, connections: 1 });
    // The refreshes were not announced: one join, no update.
    expect(watcher.pushes('presence').map((f) => f.action)).to.deep.equal(['join']);
    a.close();
    watcher.close();
  });

  it('admits the 100th member and refuses the 101st as rate_limited; a member already in may add a connection', async () => {
    const members: TestSocket[] = [];
    for (let i = 0; i < 100; i++) {
      const s = await connect(`m${i}`, 'room:full');
      expect(
        (await s.request({ action: 'presence.enter', channel: 'room:full' })).result,
        `member ${i + 1}`,
      ).to.deep.equal({});
      members.push(s);
    }
    const late = await connect('late', 'room:full');
    expect(errorCode(await late.request({ action: 'presence.enter', channel: 'room:full' }))).to.equal(
      'rate_limited',
    );
    const again = await connect('m0', 'room:full');
    expect((await again.request({ action: 'presence.enter', channel: 'room:full' })).result).to.deep.equal(
      {},
    );
    expect((await again.request({ action: 'presence.stats', channel: 'room:full' })).result).to.deep.equal({
      members: 100,
      connections: 101,
    });
    for (const s of [...members, late, again]) s.close();
  });
});
