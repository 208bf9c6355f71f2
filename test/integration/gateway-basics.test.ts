// The gateway against real Kafka, Redis and PostgreSQL: authentication, subscribe and the live
// stream, every reply and push of decisions.md's table, error frames and their causes.
import { expect } from 'chai';
import {
  ALL_OPS,
  createGatewayBase,
  type GatewayBase,
  type TestGateway,
  type TestProduct,
} from './gateway/harness.ts';
import { type Frame, TestSocket } from './gateway/ws-client.ts';

describe('gateway: authentication, subscriptions and frames', function () {
  this.timeout(60_000);
  let h: GatewayBase;
  let gw: TestGateway;
  let product: TestProduct;

  before(async () => {
    h = await createGatewayBase('gw-basics');
    gw = await h.startGateway();
    product = await h.newProduct({
      chat: {},
      quiet: { presence: false, clientEvents: false, historyWindowSeconds: 0 },
    });
  });
  after(async () => {
    await h?.close();
  });

  it('authenticates with the first frame and answers client, subject and expiry', async () => {
    const token = await product.token('ann', [{ name: 'chat:a', ops: ['subscribe'] }]);
    const { socket, reply } = await TestSocket.authed(gw.url, token);
    const result = reply.result as { client: string; subject: string; expires_at: string };
    expect(result.subject).to.equal('ext:ann');
    expect(result.client).to.match(new RegExp(`^${gw.gateway.gatewayId}\\.`));
    expect(Date.parse(result.expires_at) - Date.now()).to.be.within(3_500_000, 3_600_000);
    expect(result.expires_at).to.match(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    socket.close();
  });

  it('closes with 4001 when the first frame is not a valid auth, or its token is refused', async () => {
    const prodToken = await product.token('ann', [{ name: 'chat:a', ops: ['subscribe'] }]);
    const devToken = await product.token('ann', [{ name: 'chat:a', ops: ['subscribe'] }], {
      environment: 'development',
    });
    const firsts: Array<Frame | string> = [
      { id: 1, action: 'subscribe', channel: 'chat:a' },
      'not json',
      { id: 1, action: 'auth' },
      { id: 1, action: 'auth', token: 'a.b.c' },
      { id: 1, action: 'auth', token: `${prodToken.slice(0, -2)}xx` },
      // A token minted by the other environment is refused here.
      { id: 1, action: 'auth', token: devToken },
      // A valid token spelled another way (padding, the standard alphabet): one spelling only.
      { id: 1, action: 'auth', token: `${prodToken}=` },
      {
        id: 1,
        action: 'auth',
        token: `${prodToken.slice(0, prodToken.lastIndexOf('.'))}.${Buffer.from(prodToken.split('.')[2]!, 'base64url').toString('base64')}`,
      },
    ];
    for (const first of firsts) {
      const socket = await TestSocket.open(gw.url);
      socket.send(first);
      const closed = await socket.closed;
      expect(closed.code, JSON.stringify(first)).to.equal(4001);
      expect(socket.frames, 'no reply before the close').to.deep.equal([]);
    }
  });

  it('subscribes, answers the position, and pushes published messages in order', async () => {
    const token = await product.token('ann', [{ name: 'chat:live', ops: ALL_OPS }]);
    const { socket } = await TestSocket.authed(gw.url, token);
    const reply = await socket.request({ action: 'subscribe', channel: 'chat:live' });
    expect(reply.result).to.deep.equal({ epoch: '', offset: 0, recovered: true, messages: [] });
    const ids = [];
    for (let i = 1; i <= 5; i++) ids.push(await product.publish('chat:live', { n: i }));
    const pushes = await socket.waitForCount((f) => f.push === 'message', 5);
    expect(pushes.map((p) => [p.offset, (p.data as { n: number }).n, p.id])).to.deep.equal(
      ids.map((id, i) => [i + 1, i + 1, id]),
    );
    const first = pushes[0]!;
    expect(Object.keys(first).sort()).to.deep.equal([
      'channel',
      'data',
      'epoch',
      'id',
      'offset',
      'published_at',
      'push',
    ]);
    expect(first.channel).to.equal('chat:live');
    expect(first.epoch).to.match(/^[0-9a-f]{16}$/);
    // A second subscription starts at the channel's top.
    const { socket: late } = await TestSocket.authed(gw.url, token);
    const lateReply = await late.request({ action: 'subscribe', channel: 'chat:live' });
    expect(lateReply.result).to.deep.equal({ epoch: first.epoch, offset: 5, recovered: true, messages: [] });
    socket.close();
    late.close();
  });

  it('recovers from a cursor: replays what was missed in the reply, then continues live', async () => {
    const token = await product.token('ann', [{ name: 'chat:rec', ops: ALL_OPS }]);
    for (let i = 1; i <= 3; i++) await product.publish('chat:rec', { n: i });
    await product.applied('chat:rec', 3);
    const { socket: a } = await TestSocket.authed(gw.url, token);
    const first = (await a.request({ action: 'subscribe', channel: 'chat:rec' })).result as {
      epoch: string;
      offset: number;
    };
    expect(first.offset).to.equal(3);
    a.close();
    for (let i = 4; i <= 6; i++) await product.publish('chat:rec', { n: i });
    await product.applied('chat:rec', 6);
    const { socket: b } = await TestSocket.authed(gw.url, token);
    const reply = (
      await b.request({
        action: 'subscribe',
        channel: 'chat:rec',
        recover: { offset: 3, epoch: first.epoch },
      })
    ).result as { epoch: string; offset: number; recovered: boolean; messages: Frame[] };
    expect(reply.recovered).to.equal(true);
    expect(reply.offset).to.equal(6);
    expect(reply.messages.map((m) => m.offset)).to.deep.equal([4, 5, 6]);
    expect(reply.messages[0]).to.include.keys('id', 'epoch', 'data', 'published_at');
    await product.publish('chat:rec', { n: 7 });
    const live = await b.waitFor((f) => f.push === 'message');
    expect(live.offset).to.equal(7);
    await product.applied('chat:rec', 7);
    // Another epoch: not recovered, nothing replayed, live from the top.
    const { socket: c } = await TestSocket.authed(gw.url, token);
    const stale = (
      await c.request({
        action: 'subscribe',
        channel: 'chat:rec',
        recover: { offset: 2, epoch: 'ffffffffffffffff' },
      })
    ).result;
    expect(stale).to.deep.equal({ epoch: first.epoch, offset: 7, recovered: false, messages: [] });
    // Epoch "" with an offset above 0 is no cursor of this channel.
    const { socket: d } = await TestSocket.authed(gw.url, token);
    const bogus = (
      await d.request({ action: 'subscribe', channel: 'chat:rec', recover: { offset: 1, epoch: '' } })
    ).result;
    expect(bogus).to.deep.equal({ epoch: first.epoch, offset: 7, recovered: false, messages: [] });
    // The cursor taken before the channel's first message recovers from that message.
    const { socket: e } = await TestSocket.authed(gw.url, token);
    const fromStart = (
      await e.request({ action: 'subscribe', channel: 'chat:rec', recover: { offset: 0, epoch: '' } })
    ).result as { recovered: boolean; messages: Frame[] };
    expect(fromStart.recovered).to.equal(true);
    expect(fromStart.messages.map((m) => m.offset)).to.deep.equal([1, 2, 3, 4, 5, 6, 7]);
    for (const s of [b, c, d, e]) s.close();
  });

  it('replays 1 000 missed messages in a recovering subscribe, and none when 1 001 were missed', async () => {
    const token = await product.token('ann', [{ name: 'chat:many', ops: ALL_OPS }]);
    const publishAll = async (from: number, to: number) => {
      for (let n = from; n <= to; n += 50) {
        await Promise.all(
          Array.from({ length: Math.min(50, to - n + 1) }, (_, i) => product.publish('chat:many', n + i)),
        );
      }
    };
    await publishAll(1, 1000);
    const { epoch } = await product.applied('chat:many', 1000);
    const { socket } = await TestSocket.authed(gw.url, token);
    const all = (
      await socket.request({ action: 'subscribe', channel: 'chat:many', recover: { offset: 0, epoch } })
    ).result as { recovered: boolean; offset: number; messages: Frame[] };
    expect(all.recovered).to.equal(true);
    expect(all.messages.map((m) => m.offset)).to.deep.equal(Array.from({ length: 1000 }, (_, i) => i + 1));
    await publishAll(1001, 1001);
    await product.applied('chat:many', 1001);
    const { socket: late } = await TestSocket.authed(gw.url, token);
    const over = (
      await late.request({ action: 'subscribe', channel: 'chat:many', recover: { offset: 0, epoch } })
    ).result;
    expect(over).to.deep.equal({ epoch, offset: 1001, recovered: false, messages: [] });
    // Live from the top: the next message is pushed.
    await product.publish('chat:many', 1002);
    expect((await late.waitFor((f) => f.push === 'message')).offset).to.equal(1002);
    socket.close();
    late.close();
  });

  it('joins replay and live stream at the seam with no duplicate and no hole while messages keep coming', async () => {
    const channel = 'chat:seam';
    const token = await product.token('ann', [{ name: channel, ops: ALL_OPS }]);
    await product.publish(channel, 1);
    const { epoch } = await product.applied(channel, 1);
    let published = 1;
    const publishing = (async () => {
      while (published < 400) {
        const batch = Array.from({ length: Math.min(10, 400 - published) }, (_, i) => published + i + 1);
        published += batch.length;
        await Promise.all(batch.map((n) => product.publish(channel, n)));
      }
    })();
    // Subscribers recover from cursors taken at different moments, while publishing goes on.
    const subscribers: Array<{ socket: TestSocket; from: number }> = [];
    for (let i = 0; i < 8; i++) {
      await new Promise((r) => setTimeout(r, 40));
      // A cursor a client could hold: a little behind the channel's top as applied now.
      const from = Math.max(1, (await product.applied(channel, 1)).top - 5);
      const { socket } = await TestSocket.authed(gw.url, token);
      socket.send({ id: 'sub', action: 'subscribe', channel, recover: { offset: from, epoch } });
      subscribers.push({ socket, from });
    }
    await publishing;
    for (const { socket, from } of subscribers) {
      // Offset 400 arrives replayed in the reply (a late subscriber) or pushed.
      const reaches400 = (f: Frame) =>
        (f.push === 'message' && f.offset === 400) ||
        (f.id === 'sub' &&
          ((f.result as { messages?: Frame[] })?.messages ?? []).some((m) => m.offset === 400));
      await socket.waitFor(reaches400, 30_000, 'offset 400');
      const replyAt = socket.frames.findIndex((f) => f.id === 'sub');
      const firstPush = socket.frames.findIndex((f) => f.push === 'message');
      const reply = socket.frames[replyAt]!.result as { recovered: boolean; messages: Frame[] };
      expect(reply.recovered).to.equal(true);
      if (firstPush >= 0) expect(replyAt, 'the reply before any push').to.be.lessThan(firstPush);
      const offsets = [
        ...reply.messages.map((m) => m.offset),
        ...socket.pushes('message').map((f) => f.offset),
      ];
      expect(offsets).to.deep.equal(Array.from({ length: 400 - from }, (_, i) => from + i + 1));
      socket.close();
    }
  });

  it('answers invalid for an unparseable frame (without id), a second subscribe, and a bad channel', async () => {
    const token = await product.token('ann', [{ name: 'chat:x', ops: ALL_OPS }]);
    const { socket } = await TestSocket.authed(gw.url, token);
    socket.send('{"broken');
    const noId = await socket.waitFor((f) => 'error' in f);
    expect(noId).to.deep.equal({ error: { code: 'invalid', message: (noId.error as Frame).message } });
    expect(Object.hasOwn(noId, 'id')).to.equal(false);
    // A JSON object without an id: the error has no id key either.
    const before = socket.frames.length;
    socket.send({ action: 'unsubscribe', channel: 'chat:x' });
    const objectNoId = await socket.waitFor((f) => 'error' in f, 15_000, 'an error', before);
    expect(Object.hasOwn(objectNoId, 'id')).to.equal(false);
    await socket.request({ action: 'subscribe', channel: 'chat:x' });
    const again = await socket.request({ action: 'subscribe', channel: 'chat:x' });
    expect((again.error as Frame).code).to.equal('invalid');
    // The refused second subscribe leaves the first one live.
    await product.publish('chat:x', 'still here');
    expect((await socket.waitFor((f) => f.push === 'message')).data).to.equal('still here');
    const bad = await socket.request({ action: 'subscribe', channel: 'nocolon' });
    expect((bad.error as Frame).code).to.equal('invalid');
    const missing = await socket.request({ action: 'subscribe' });
    expect((missing.error as Frame).code).to.equal('invalid');
    // An id of any JSON type is echoed as sent, with the same type.
    const ids = ['str-id', { nested: [1] }, null, false, 0, 7.5];
    for (const id of ids) socket.send({ id, action: 'unsubscribe', channel: 'chat:none' });
    const replies = await socket.waitForCount((f) => JSON.stringify(f.result) === '{}', ids.length);
    expect(replies.map((f) => f.id)).to.deep.equal(ids);
    socket.close();
  });

  it('answers forbidden for every action whose op the token does not carry', async () => {
    const token = await product.token('ann', [{ name: 'chat:y', ops: ['history'] }]);
    const { socket } = await TestSocket.authed(gw.url, token);
    for (const frame of [
      { action: 'subscribe', channel: 'chat:y' },
      { action: 'publish', channel: 'chat:y', data: 1 },
      { action: 'presence.enter', channel: 'chat:y' },
      { action: 'presence.update', channel: 'chat:y', info: 1 },
      { action: 'presence.leave', channel: 'chat:y' },
      { action: 'presence.get', channel: 'chat:y' },
      { action: 'presence.stats', channel: 'chat:y' },
      { action: 'history', channel: 'chat:other', last_n: 1 },
    ]) {
      const reply = await socket.request(frame);
      expect((reply.error as Frame | undefined)?.code, JSON.stringify(frame)).to.equal('forbidden');
    }
    const history = await socket.request({ action: 'history', channel: 'chat:y', last_n: 1 });
    expect(history.result).to.include.keys('data', 'epoch', 'top_offset', 'recovered');
    socket.close();
  });

  it('reads history over the socket as the HTTP read answers it', async () => {
    const token = await product.token('ann', [{ name: 'chat:h', ops: ['history'] }]);
    for (let i = 1; i <= 4; i++) await product.publish('chat:h', { n: i });
    await product.applied('chat:h', 4);
    const { socket } = await TestSocket.authed(gw.url, token);
    const window = (await socket.request({ action: 'history', channel: 'chat:h', last_n: 2 })).result as {
      epoch: string;
      data: Frame[];
    };
    expect(window.data.map((e) => [e.offset, e.data])).to.deep.equal([
      [3, { n: 3 }],
      [4, { n: 4 }],
    ]);
    const after = (
      await socket.request({ action: 'history', channel: 'chat:h', offset: 1, epoch: window.epoch })
    ).result as Frame;
    expect((after.data as Frame[]).map((e) => e.offset)).to.deep.equal([2, 3, 4]);
    expect(after).to.include({ recovered: true, top_offset: 4, epoch: window.epoch });
    const half = await socket.request({ action: 'history', channel: 'chat:h', offset: 1 });
    expect((half.error as Frame).code).to.equal('invalid');
    socket.close();
  });
});
