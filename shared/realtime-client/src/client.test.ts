// The connection flow against a scripted in-memory WebSocket: the frames the client sends, and
// what it does on each close code, push and reply. Timers and jitter are injected (random 0.5,
// so a backoff delay is half its window: 250 ms, then 500 ms, ... with the default 500 ms start).
import { expect } from 'chai';
import { connect } from './client.ts';
import { RealtimeError } from './errors.ts';
import { type FakeWebSocket, fakeWebSockets, ManualTimers, settle } from './testing.ts';
import type { ClientEvents, ConnectOptions, RealtimeClient } from './types.ts';

interface Harness {
  client: RealtimeClient;
  timers: ManualTimers;
  sockets: FakeWebSocket[];
  tokens: string[];
  events: { name: keyof ClientEvents; payload: unknown }[];
  /** The newest socket. */
  ws(): FakeWebSocket;
  /** Opens the newest socket and answers its auth frame; the token lives `lifetimeMs`. */
  authenticate(lifetimeMs?: number): Promise<void>;
}

async function harness(more: Partial<ConnectOptions> = {}): Promise<Harness> {
  const timers = new ManualTimers();
  const { WebSocket, sockets } = fakeWebSockets();
  const tokens: string[] = [];
  const client = connect({
    url: 'ws://gateway.test/',
    getToken: async () => {
      tokens.push(`token-${tokens.length + 1}`);
      return tokens[tokens.length - 1] as string;
    },
    WebSocket,
    timers,
    random: () => 0.5,
    ...more,
  });
  const events: Harness['events'] = [];
  for (const name of [
    'state',
    'connected',
    'disconnected',
    'error',
    'message',
    'event',
    'presence',
    'unsubscribed',
    'recovery',
  ] as const) {
    client.on(name, (payload) => events.push({ name, payload }));
  }
  await settle();
  const h: Harness = {
    client,
    timers,
    sockets,
    tokens,
    events,
    ws: () => {
      const last = sockets[sockets.length - 1];
      if (!last) throw new Error('no socket yet');
      return last;
    },
    authenticate: async (lifetimeMs = 3_600_000) => {
      const ws = h.ws();
      ws.open();
      const auth = ws.lastFrame();
      expect(auth.action).to.equal('auth');
      ws.receive({
        id: auth.id,
        result: {
          client: 'c1',
          subject: 'ext:ada',
          expires_at: new Date(timers.now() + lifetimeMs).toISOString(),
        },
      });
      await settle();
    },
  };
  return h;
}

const named = (h: Harness, name: keyof ClientEvents) =>
  h.events.filter((e) => e.name === name).map((e) => e.payload);

const message = (channel: string, offset: number, epoch = 'e1') => ({
  push: 'message',
  channel,
  id: `m${offset}`,
  offset,
  epoch,
  data: { n: offset },
  published_at: '2026-03-01T12:00:00.000Z',
});

/** Subscribes and answers with the given position; returns the subscription. */
/**
 * The gateway drains (4100); the client reconnects at once and authenticates again. Answers the
 * actions the client has sent on the new connection so far.
 */
async function reconnected(h: Harness): Promise<unknown[]> {
  h.ws().serverClose(4100);
  await settle();
  await h.authenticate();
  return h
    .ws()
    .frames()
    .map((f) => f.action);
}

async function subscribed(h: Harness, channel: string, epoch = 'e1', offset = 0, seen: number[] = []) {
  const pending = h.client.subscribe(channel, { onMessage: (m) => seen.push(m.offset) });
  const frame = h.ws().lastFrame();
  expect(frame).to.deep.equal({ id: frame.id, action: 'subscribe', channel });
  h.ws().receive({ id: frame.id, result: { epoch, offset, recovered: true, messages: [] } });
  return pending;
}

describe('realtime client connection flow', () => {
  it('authenticates with its first frame and reports connected', async () => {
    const h = await harness();
    expect(h.client.state).to.equal('connecting');
    expect(h.sockets).to.have.length(1);
    expect(h.ws().url).to.equal('ws://gateway.test/');
    h.ws().open();
    expect(h.ws().frames()).to.deep.equal([{ id: 1, action: 'auth', token: 'token-1' }]);
    h.ws().receive({
      id: 1,
      result: { client: 'c1', subject: 'ext:ada', expires_at: '2026-03-01T13:00:00.000Z' },
    });
    expect(h.client.state).to.equal('connected');
    expect(named(h, 'connected')).to.deep.equal([
      { client: 'c1', subject: 'ext:ada', expires_at: '2026-03-01T13:00:00.000Z' },
    ]);
    expect(named(h, 'state')).to.deep.equal([{ state: 'connected', previous: 'connecting' }]);
    await h.client.close();
  });

  it('matches replies by id and rejects error replies with a RealtimeError', async () => {
    const h = await harness();
    await h.authenticate();
    const a = h.client.presence.stats('chat:a');
    const b = h.client.publish('chat:a', { text: 'hi' });
    const [fa, fb] = h.ws().frames().slice(-2);
    expect(fa).to.deep.equal({ id: 2, action: 'presence.stats', channel: 'chat:a' });
    expect(fb).to.deep.equal({ id: 3, action: 'publish', channel: 'chat:a', data: { text: 'hi' } });
    h.ws().receive({ id: 3, error: { code: 'rate_limited', message: 'slow down' } });
    h.ws().receive({ id: 2, result: { members: 1, connections: 2 } });
    expect(await a).to.deep.equal({ members: 1, connections: 2 });
    const err = await b.catch((e: unknown) => e);
    expect(err).to.be.instanceOf(RealtimeError);
    expect(err).to.include({ code: 'rate_limited', message: 'slow down' });
    await h.client.close();
  });

  it('delivers a subscription’s messages once, in order, adopting the first epoch on an empty channel', async () => {
    const h = await harness();
    await h.authenticate();
    const seen: number[] = [];
    const pending = h.client.subscribe('chat:a', { onMessage: (m) => seen.push(m.offset) });
    const frame = h.ws().lastFrame();
    // The reply and the first push in one go: the reply is applied before the push is handled.
    h.ws().receive({ id: frame.id, result: { epoch: '', offset: 0, recovered: true, messages: [] } });
    h.ws().receive(message('chat:a', 1, 'e7'));
    const sub = await pending;
    expect(sub).to.include({ channel: 'chat:a', epoch: '', offset: 0, recovered: true, active: true });
    h.ws().receive(message('chat:a', 1, 'e7'));
    h.ws().receive(message('chat:a', 2, 'e7'));
    expect(seen).to.deep.equal([1, 2]);
    expect(sub.cursor).to.deep.equal({ offset: 2, epoch: 'e7' });
    expect(named(h, 'message')).to.have.length(2);
    await h.client.close();
  });

  it('4100: reconnects at once with the same token and resubscribes with the cursor', async () => {
    const h = await harness();
    await h.authenticate();
    const seen: number[] = [];
    const sub = await subscribed(h, 'chat:a', 'e1', 3, seen);
    h.ws().receive(message('chat:a', 4));
    h.ws().serverClose(4100, 'draining');
    expect(h.client.state).to.equal('connecting');
    expect(named(h, 'disconnected')).to.deep.equal([{ code: 4100, reason: 'draining', rule: 'at_once' }]);
    await settle();
    expect(h.sockets).to.have.length(2);
    await h.authenticate();
    expect(h.tokens).to.deep.equal(['token-1']);
    expect(h.ws().frames()[0]).to.include({ action: 'auth', token: 'token-1' });
    const resub = h.ws().lastFrame();
    expect(resub).to.deep.equal({
      id: resub.id,
      action: 'subscribe',
      channel: 'chat:a',
      recover: { offset: 4, epoch: 'e1' },
    });
    h.ws().receive({
      id: resub.id,
      result: {
        epoch: 'e1',
        offset: 6,
        recovered: true,
        messages: [message('chat:a', 4), message('chat:a', 5), message('chat:a', 6)].map(
          ({ push: _p, channel: _c, ...entry }) => entry,
        ),
      },
    });
    h.ws().receive(message('chat:a', 6));
    h.ws().receive(message('chat:a', 7));
    expect(seen).to.deep.equal([4, 5, 6, 7]);
    expect(sub.cursor).to.deep.equal({ offset: 7, epoch: 'e1' });
    expect(named(h, 'recovery')).to.deep.equal([{ channel: 'chat:a', recovered: true }]);
    await h.client.close();
  });

  it('4001: fetches a fresh token and reconnects at once', async () => {
    const h = await harness();
    await h.authenticate();
    h.ws().serverClose(4001, 'token expired');
    await settle();
    expect(h.tokens).to.deep.equal(['token-1', 'token-2']);
    expect(h.sockets).to.have.length(2);
    h.ws().open();
    expect(h.ws().frames()[0]).to.deep.equal({
      id: h.ws().frames()[0]?.id,
      action: 'auth',
      token: 'token-2',
    });
    await h.client.close();
  });

  it('4001 on a connection that never authenticated backs off (no tight loop on a rejected token)', async () => {
    const h = await harness();
    h.ws().open();
    h.ws().serverClose(4001, 'invalid token');
    await settle();
    expect(h.sockets).to.have.length(1);
    expect(h.timers.pending()).to.deep.equal([250]);
    await h.timers.advance(250);
    expect(h.sockets).to.have.length(2);
    expect(h.tokens).to.deep.equal(['token-1', 'token-2']);
    await h.client.close();
  });

  it('4200 and 1006: back off with growing full-jitter windows, reset after an auth', async () => {
    const h = await harness();
    await h.authenticate();
    await subscribed(h, 'chat:a', 'e1', 9);
    h.ws().serverClose(4200, 'slow consumer');
    expect(named(h, 'disconnected')).to.deep.equal([
      { code: 4200, reason: 'slow consumer', rule: 'backoff_and_recover' },
    ]);
    expect(h.client.state).to.equal('disconnected');
    await h.timers.advance(249);
    expect(h.sockets).to.have.length(1);
    await h.timers.advance(1);
    expect(h.sockets).to.have.length(2);
    // The gateway is down: the next attempts wait 500, then 1000 ms.
    h.ws().serverClose(1006);
    expect(h.timers.pending()).to.include(500);
    await h.timers.advance(500);
    expect(h.sockets).to.have.length(3);
    h.ws().serverClose(1006);
    expect(h.timers.pending()).to.include(1000);
    await h.timers.advance(1000);
    await h.authenticate();
    expect(h.ws().lastFrame()).to.include({ action: 'subscribe' });
    expect(h.ws().lastFrame().recover).to.deep.equal({ offset: 9, epoch: 'e1' });
    h.ws().serverClose(1006);
    expect(h.timers.pending()).to.include(250);
    await h.client.close();
  });

  it('close(): closes with 1000, never reconnects, rejects what waits', async () => {
    const h = await harness();
    await h.authenticate();
    const inFlight = h.client.history('chat:a', { last_n: 10 });
    expect(h.ws().lastFrame()).to.deep.include({ action: 'history', channel: 'chat:a', last_n: 10 });
    const ws = h.ws();
    await h.client.close();
    expect(ws.closeCalls).to.deep.equal([{ code: 1000, reason: 'client closed' }]);
    expect(h.client.state).to.equal('closed');
    expect(await inFlight.catch((e: RealtimeError) => e.code)).to.equal('unavailable');
    await h.timers.advance(60_000);
    expect(h.sockets).to.have.length(1);
    expect(named(h, 'disconnected')).to.deep.equal([]);
    expect(await h.client.publish('chat:a', 1).catch((e: RealtimeError) => e.code)).to.equal('unavailable');
  });

  it('requests made while disconnected wait for the connection, or reject after requestTimeoutMs', async () => {
    const h = await harness({ requestTimeoutMs: 5000 });
    const early = h.client.presence.get('chat:a');
    expect(h.ws().sent).to.deep.equal([]);
    await h.authenticate();
    const frame = h.ws().lastFrame();
    expect(frame).to.deep.include({ action: 'presence.get', channel: 'chat:a' });
    h.ws().receive({ id: frame.id, result: { data: [] } });
    expect(await early).to.deep.equal({ data: [] });

    h.ws().serverClose(1011);
    const late = h.client
      .history('chat:a', { last_n: 1 })
      .catch((e: RealtimeError) => `${e.code}: ${e.message}`);
    await h.timers.advance(5000);
    expect(await late).to.equal('unavailable: Not connected within 5000 ms');
    await h.client.close();
  });

  it('refuses a client event made while disconnected at once: it is not queued', async () => {
    const h = await harness();
    const before = await h.client.publish('chat:a', 'x').catch((e: RealtimeError) => e.code);
    expect(before).to.equal('unavailable');
    await h.authenticate();
    h.ws().serverClose(1011);
    expect(await h.client.publish('chat:a', 'x').catch((e: RealtimeError) => e.code)).to.equal('unavailable');
    expect(h.ws().sent.map((f) => JSON.parse(f).action)).to.deep.equal(['auth']);
    await h.client.close();
  });

  it('a request in flight when the connection ends rejects with unavailable', async () => {
    const h = await harness();
    await h.authenticate();
    const p = h.client.publish('chat:a', 'x');
    h.ws().serverClose(4100);
    expect(await p.catch((e: RealtimeError) => e.code)).to.equal('unavailable');
    await h.client.close();
  });

  it('recovered: false emits a recovery event and continues from the new position', async () => {
    const h = await harness();
    await h.authenticate();
    const seen: number[] = [];
    const sub = await subscribed(h, 'chat:a', 'e1', 5, seen);
    await reconnected(h);
    const resub = h.ws().lastFrame();
    h.ws().receive({ id: resub.id, result: { epoch: 'e2', offset: 40, recovered: false, messages: [] } });
    expect(named(h, 'recovery')).to.deep.equal([{ channel: 'chat:a', recovered: false }]);
    expect(sub.cursor).to.deep.equal({ offset: 40, epoch: 'e2' });
    h.ws().receive(message('chat:a', 41, 'e2'));
    expect(seen).to.deep.equal([41]);
    await h.client.close();
  });

  it('unsubscribed (recover) resubscribes at once with the cursor; (forbidden) ends the subscription', async () => {
    const h = await harness();
    await h.authenticate();
    const seen: number[] = [];
    const sub = await subscribed(h, 'chat:a', 'e1', 0, seen);
    h.ws().receive(message('chat:a', 1));
    h.ws().receive({ push: 'unsubscribed', channel: 'chat:a', reason: 'recover' });
    const resub = h.ws().lastFrame();
    expect(resub).to.deep.include({
      action: 'subscribe',
      channel: 'chat:a',
      recover: { offset: 1, epoch: 'e1' },
    });
    h.ws().receive({
      id: resub.id,
      result: {
        epoch: 'e1',
        offset: 2,
        recovered: true,
        messages: [{ id: 'm2', offset: 2, epoch: 'e1', data: 2, published_at: '2026-03-01T12:00:00.000Z' }],
      },
    });
    expect(seen).to.deep.equal([1, 2]);

    h.ws().receive({ push: 'unsubscribed', channel: 'chat:a', reason: 'forbidden' });
    expect(named(h, 'unsubscribed')).to.deep.equal([
      { push: 'unsubscribed', channel: 'chat:a', reason: 'forbidden' },
    ]);
    expect(sub.active).to.equal(false);
    h.ws().receive(message('chat:a', 3));
    expect(seen).to.deep.equal([1, 2]);
    await sub.unsubscribe();
    await h.client.close();
  });

  it('unsubscribe stops delivery at once and tells the gateway; no resubscribe after a reconnect', async () => {
    const h = await harness();
    await h.authenticate();
    const seen: number[] = [];
    const sub = await subscribed(h, 'chat:a', 'e1', 0, seen);
    const done = sub.unsubscribe();
    const frame = h.ws().lastFrame();
    expect(frame).to.deep.equal({ id: frame.id, action: 'unsubscribe', channel: 'chat:a' });
    h.ws().receive(message('chat:a', 1));
    h.ws().receive({ id: frame.id, result: {} });
    await done;
    expect(seen).to.deep.equal([]);
    expect(await reconnected(h)).to.deep.equal(['auth']);
    await h.client.close();
  });

  it('a refused subscribe rejects and leaves no subscription behind', async () => {
    const h = await harness();
    await h.authenticate();
    const p = h.client.subscribe('chat:secret');
    h.ws().receive({ id: h.ws().lastFrame().id, error: { code: 'forbidden', message: 'not granted' } });
    expect(await p.catch((e: RealtimeError) => e.code)).to.equal('forbidden');
    expect(await reconnected(h)).to.deep.equal(['auth']);
    await h.client.close();
  });

  it('re-enters presence after a reconnect with the last info and ttl, until leave()', async () => {
    const h = await harness();
    await h.authenticate();
    const enter = h.client.presence.enter('chat:a', { info: { name: 'Ada' }, ttlSeconds: 120 });
    let frame = h.ws().lastFrame();
    expect(frame).to.deep.equal({
      id: frame.id,
      action: 'presence.enter',
      channel: 'chat:a',
      info: { name: 'Ada' },
      ttl_seconds: 120,
    });
    h.ws().receive({ id: frame.id, result: {} });
    await enter;
    const update = h.client.presence.update('chat:a', { name: 'Ada L.' });
    frame = h.ws().lastFrame();
    h.ws().receive({ id: frame.id, result: {} });
    await update;
    const other = h.client.presence.enter('chat:b');
    h.ws().receive({ id: h.ws().lastFrame().id, result: {} });
    await other;

    await reconnected(h);
    const again = h.ws().frames().slice(1);
    expect(again.map(({ id: _id, ...f }) => f)).to.deep.equal([
      { action: 'presence.enter', channel: 'chat:a', info: { name: 'Ada L.' }, ttl_seconds: 120 },
      { action: 'presence.enter', channel: 'chat:b' },
    ]);
    for (const f of again) h.ws().receive({ id: f.id, result: {} });

    const leave = h.client.presence.leave('chat:a');
    h.ws().receive({ id: h.ws().lastFrame().id, result: {} });
    await leave;
    await reconnected(h);
    expect(
      h
        .ws()
        .frames()
        .slice(1)
        .map((f) => f.channel),
    ).to.deep.equal(['chat:b']);
    await h.client.close();
  });

  it('swaps the token refreshBeforeExpiryMs before expires_at on the same connection', async () => {
    const h = await harness({ refreshBeforeExpiryMs: 20_000 });
    await h.authenticate(60_000);
    await h.timers.advance(39_999);
    expect(h.tokens).to.deep.equal(['token-1']);
    await h.timers.advance(1);
    expect(h.tokens).to.deep.equal(['token-1', 'token-2']);
    const swap = h.ws().lastFrame();
    expect(swap).to.deep.equal({ id: swap.id, action: 'auth', token: 'token-2' });
    h.ws().receive({
      id: swap.id,
      result: {
        client: 'c1',
        subject: 'ext:ada',
        expires_at: new Date(h.timers.now() + 60_000).toISOString(),
      },
    });
    expect(h.sockets).to.have.length(1);
    expect(named(h, 'connected')).to.have.length(1);
    // The next swap is scheduled from the new expiry.
    await h.timers.advance(40_000);
    expect(h.tokens).to.deep.equal(['token-1', 'token-2', 'token-3']);
    await h.client.close();
  });

  it('a failed swap keeps the connection and reports the error; the 4001 at expiry reconnects fresh', async () => {
    const h = await harness({ refreshBeforeExpiryMs: 20_000 });
    await h.authenticate(60_000);
    await h.timers.advance(40_000);
    const swap = h.ws().lastFrame();
    h.ws().receive({ id: swap.id, error: { code: 'forbidden', message: 'another subject' } });
    expect(h.client.state).to.equal('connected');
    expect(named(h, 'error').map((e) => (e as RealtimeError).code)).to.deep.equal(['forbidden']);
    h.ws().serverClose(4001, 'token expired');
    await settle();
    expect(h.tokens).to.deep.equal(['token-1', 'token-2', 'token-3']);
    expect(h.sockets).to.have.length(2);
    await h.client.close();
  });

  it('a token provider that fails is reported and retried with backoff', async () => {
    let calls = 0;
    const h = await harness({
      getToken: async () => {
        calls += 1;
        if (calls === 1) throw new Error('backend down');
        return 'token-ok';
      },
    });
    expect(named(h, 'error').map((e) => (e as Error).message)).to.deep.equal(['backend down']);
    expect(h.client.state).to.equal('disconnected');
    expect(h.sockets).to.have.length(0);
    await h.timers.advance(250);
    expect(h.sockets).to.have.length(1);
    h.ws().open();
    expect(h.ws().lastFrame()).to.include({ action: 'auth', token: 'token-ok' });
    await h.client.close();
  });

  it('gives up on a socket with no auth reply within requestTimeoutMs and backs off', async () => {
    const h = await harness({ requestTimeoutMs: 3000 });
    h.ws().open();
    await h.timers.advance(3000);
    expect(h.sockets[0]?.closeCalls).to.deep.equal([{ code: 4000, reason: 'No auth reply within 3000 ms' }]);
    expect(named(h, 'disconnected')).to.deep.equal([
      { code: 1006, reason: 'No auth reply within 3000 ms', rule: 'backoff' },
    ]);
    await h.timers.advance(250);
    expect(h.sockets).to.have.length(2);
    await h.client.close();
  });

  it('delivers client events and presence pushes to the subscription and the client', async () => {
    const h = await harness();
    await h.authenticate();
    const got: string[] = [];
    const p = h.client.subscribe('chat:a', {
      onEvent: (e) => got.push(`event from ${e.from}`),
      onPresence: (e) => got.push(`${e.action} ${e.member.identity}`),
    });
    h.ws().receive({
      id: h.ws().lastFrame().id,
      result: { epoch: 'e1', offset: 0, recovered: true, messages: [] },
    });
    await p;
    h.ws().receive({ push: 'event', channel: 'chat:a', data: { typing: true }, from: 'ext:bob' });
    h.ws().receive({
      push: 'presence',
      channel: 'chat:a',
      action: 'join',
      member: { identity: 'ext:bob', connections: 1, info: null },
    });
    expect(got).to.deep.equal(['event from ext:bob', 'join ext:bob']);
    expect(named(h, 'event')).to.have.length(1);
    expect(named(h, 'presence')).to.have.length(1);
    await h.client.close();
  });

  it('a handler that throws becomes an error event and does not stop later frames', async () => {
    const h = await harness();
    await h.authenticate();
    const seen: number[] = [];
    const p = h.client.subscribe('chat:a', {
      onMessage: (m) => {
        seen.push(m.offset);
        if (m.offset === 1) throw new Error('app bug');
      },
    });
    h.ws().receive({
      id: h.ws().lastFrame().id,
      result: { epoch: 'e1', offset: 0, recovered: true, messages: [] },
    });
    await p;
    h.ws().receive(message('chat:a', 1));
    h.ws().receive(message('chat:a', 2));
    expect(seen).to.deep.equal([1, 2]);
    expect(named(h, 'error').map((e) => (e as Error).message)).to.deep.equal(['app bug']);
    await h.client.close();
  });

  it('a resubscribe refused with unavailable is retried with backoff; with forbidden the subscription ends', async () => {
    const h = await harness();
    await h.authenticate();
    const a = await subscribed(h, 'chat:a', 'e1', 2);
    const b = await subscribed(h, 'chat:b', 'e1', 5);
    await reconnected(h);
    const [ra, rb] = h.ws().frames().slice(1);
    h.ws().receive({ id: ra?.id, error: { code: 'unavailable', message: 'fan-out down' } });
    h.ws().receive({ id: rb?.id, error: { code: 'forbidden', message: 'not granted any more' } });
    expect(b.active).to.equal(false);
    expect(named(h, 'unsubscribed')).to.deep.equal([
      { push: 'unsubscribed', channel: 'chat:b', reason: 'forbidden' },
    ]);
    expect(a.active).to.equal(true);
    const sentBefore = h.ws().sent.length;
    await h.timers.advance(249);
    expect(h.ws().sent.length).to.equal(sentBefore);
    await h.timers.advance(1);
    expect(h.ws().lastFrame()).to.deep.include({
      action: 'subscribe',
      channel: 'chat:a',
      recover: { offset: 2, epoch: 'e1' },
    });
    await h.client.close();
  });

  it('a subscribe made while disconnected goes out after the auth, or rejects after requestTimeoutMs', async () => {
    const h = await harness({ requestTimeoutMs: 4000 });
    const early = h.client.subscribe('chat:a');
    await h.authenticate();
    const frame = h.ws().lastFrame();
    expect(frame).to.deep.equal({ id: frame.id, action: 'subscribe', channel: 'chat:a' });
    h.ws().receive({ id: frame.id, result: { epoch: 'e1', offset: 3, recovered: true, messages: [] } });
    expect((await early).cursor).to.deep.equal({ offset: 3, epoch: 'e1' });

    h.ws().serverClose(1011);
    const late = h.client.subscribe('chat:b').catch((e: RealtimeError) => e.code);
    await h.timers.advance(4000);
    expect(await late).to.equal('unavailable');
    await h.client.close();
  });

  it('refuses a second subscribe to the same channel', async () => {
    const h = await harness();
    await h.authenticate();
    await subscribed(h, 'chat:a');
    expect(await h.client.subscribe('chat:a').catch((e: RealtimeError) => e.code)).to.equal('invalid');
    await h.client.close();
  });
});
