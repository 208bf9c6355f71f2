import { expect } from 'chai';
import type { RealtimeError } from './errors.ts';
import { Outbox } from './outbox.ts';
import { FakeWebSocket, ManualTimers } from './testing.ts';

describe('outbox', () => {
  const openSocket = () => {
    const ws = new FakeWebSocket('ws://x/');
    ws.open();
    return ws;
  };

  it('queues requests until a connection, then sends them in order with increasing ids', async () => {
    const timers = new ManualTimers();
    const outbox = new Outbox(timers, 10_000);
    const a = outbox.request({ action: 'presence.get', channel: 'chat:a' });
    const b = outbox.request({ action: 'publish', channel: 'chat:a', data: 1 });
    const ws = openSocket();
    outbox.open(ws);
    expect(ws.sent).to.deep.equal([]);
    outbox.flush();
    expect(ws.frames()).to.deep.equal([
      { id: 1, action: 'presence.get', channel: 'chat:a' },
      { id: 2, action: 'publish', channel: 'chat:a', data: 1 },
    ]);
    outbox.settle({ id: 2, result: {} });
    outbox.settle({ id: 1, result: { data: [] } });
    expect(await a).to.deep.equal({ data: [] });
    expect(await b).to.deep.equal({});
  });

  it('counts the wait for a connection against the request deadline', async () => {
    const timers = new ManualTimers();
    const outbox = new Outbox(timers, 10_000);
    const p = outbox
      .request({ action: 'presence.get', channel: 'chat:a' })
      .catch((e: RealtimeError) => e.message);
    await timers.advance(7000);
    outbox.open(openSocket());
    outbox.flush();
    await timers.advance(2999);
    outbox.settle({ id: 99, result: {} });
    await timers.advance(1);
    expect(await p).to.equal('No reply within 3000 ms');
  });

  it('a connection that ends rejects what was in flight and keeps what is queued', async () => {
    const timers = new ManualTimers();
    const outbox = new Outbox(timers, 10_000);
    outbox.open(openSocket());
    const first = outbox.connection;
    const inFlight = outbox.request({ action: 'publish', channel: 'chat:a', data: 1 });
    outbox.connectionEnded(4100);
    expect(outbox.connection).to.not.equal(first);
    expect(outbox.ready).to.equal(false);
    const queued = outbox.request({ action: 'publish', channel: 'chat:a', data: 2 });
    expect(await inFlight.catch((e: RealtimeError) => e.message)).to.equal(
      'The connection closed (4100) before the reply',
    );
    const ws = openSocket();
    outbox.open(ws);
    outbox.flush();
    expect(ws.lastFrame()).to.deep.include({ data: 2 });
    outbox.settle({ id: ws.lastFrame().id, result: {} });
    expect(await queued).to.deep.equal({});
  });

  it('a send that throws rejects with unavailable; close rejects everything for good', async () => {
    const timers = new ManualTimers();
    const outbox = new Outbox(timers, 10_000);
    const ws = new FakeWebSocket('ws://x/'); // never opened: send throws
    outbox.open(ws);
    expect(
      await outbox.request({ action: 'presence.get', channel: 'c:a' }).catch((e: RealtimeError) => e.code),
    ).to.equal('unavailable');
    outbox.connectionEnded(1006);
    const waiting = outbox.request({ action: 'presence.get', channel: 'c:a' });
    outbox.close(new Error('closed'));
    expect(await waiting.catch((e: Error) => e.message)).to.equal('closed');
    expect(
      await outbox.request({ action: 'presence.get', channel: 'c:a' }).catch((e: Error) => e.message),
    ).to.equal('The client is closed');
  });
});
