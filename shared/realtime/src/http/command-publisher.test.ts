import { createLogger } from '@lattice/core';
import { ManualScheduler } from '@lattice/core/testing';
import type { Codec, RecordProducer } from '@lattice/kafka';
import { expect } from 'chai';
import { type ChannelCommandRecord, publishCommandRecord } from '../channel/channel-command.ts';
import type { ChannelId } from '../channel/channel-id.ts';
import { createChannelCommandPublisher } from './command-publisher.ts';

const logger = createLogger({ name: 'test', level: 'silent' });
const codec = {} as Codec<ChannelCommandRecord>;
const id: ChannelId = { productId: 'p', environment: 'production', channel: 'chat:a' };
const record = (n: number) =>
  publishCommandRecord({
    id,
    commandId: `c${n}`,
    messageId: `m${n}`,
    data: { json: String(n) },
    issuedAtMs: 0,
  });

/** A producer whose requests take `delayMs` of the scheduler's time. */
function fakeProducer(scheduler: ManualScheduler, opts: { delayMs?: number; fail?: boolean } = {}) {
  const sends: string[][] = [];
  const producer: RecordProducer = {
    async send(_topic, _codec, records) {
      sends.push(records.map((r) => (r.value as ChannelCommandRecord).command_id));
      await scheduler.sleep(opts.delayMs ?? 5);
      if (opts.fail) throw new Error('broker down');
    },
    async disconnect() {},
  };
  return { producer, sends };
}

describe('channel command publisher (group commit)', () => {
  it('sends what arrives while a request is in flight together, in order', async () => {
    const scheduler = new ManualScheduler();
    const { producer, sends } = fakeProducer(scheduler, { delayMs: 20 });
    const p = createChannelCommandPublisher({ producer, topic: 't', codec, logger, scheduler });
    const all = Promise.all(Array.from({ length: 10 }, (_, i) => p.publish(id, record(i))));
    await scheduler.advanceAsync(20);
    expect(sends).to.deep.equal([['c0'], ['c1', 'c2', 'c3', 'c4', 'c5', 'c6', 'c7', 'c8', 'c9']]);
    await scheduler.advanceAsync(20);
    await all;
    expect(sends[0]).to.deep.equal(['c0']);
    expect(sends.flat()).to.deep.equal(Array.from({ length: 10 }, (_, i) => `c${i}`));
    expect(sends.length).to.equal(2);
    await p.close();
  });

  it('rejects every publish of a failed request, and one not acknowledged in time', async () => {
    const scheduler = new ManualScheduler();
    const failing = createChannelCommandPublisher({
      producer: fakeProducer(scheduler, { fail: true }).producer,
      topic: 't',
      codec,
      logger,
      scheduler,
    });
    const failed = Promise.all(
      [failing.publish(id, record(1)), failing.publish(id, record(2))].map((x) =>
        x.then(
          () => expect.fail('should fail'),
          (err: Error) => expect(err.name).to.equal('PublishFailedError'),
        ),
      ),
    );
    await scheduler.advanceAsync(10);
    await failed;
    const slow = fakeProducer(scheduler, { delayMs: 200 });
    const timed = createChannelCommandPublisher({
      producer: slow.producer,
      topic: 't',
      codec,
      logger,
      timeoutMs: 50,
      scheduler,
    });
    const errorOf = (x: Promise<void>) =>
      x.then(
        () => null,
        (e: Error) => e,
      );
    const first = errorOf(timed.publish(id, record(1)));
    const queued = errorOf(timed.publish(id, record(2)));
    await scheduler.advanceAsync(50);
    for (const x of [first, queued]) expect((await x)?.message).to.match(/not acknowledged within 50 ms/);
    await scheduler.advanceAsync(150);
    // The queued one was withdrawn when it timed out: it was never sent.
    expect(slow.sends.flat()).to.deep.equal(['c1']);
    expect(scheduler.pendingTimers()).to.equal(0);
    await timed.close();
  });

  it('connects lazily, and again after a failed connect', async () => {
    let attempts = 0;
    const scheduler = new ManualScheduler();
    const { producer } = fakeProducer(scheduler);
    const p = createChannelCommandPublisher({
      producer: async () => {
        attempts += 1;
        if (attempts === 1) throw new Error('no broker');
        return producer;
      },
      topic: 't',
      codec,
      logger,
      scheduler,
    });
    expect(attempts).to.equal(0);
    await p.publish(id, record(1)).then(
      () => expect.fail('first connect fails'),
      () => undefined,
    );
    const second = p.publish(id, record(2));
    await scheduler.advanceAsync(5);
    await second;
    expect(attempts).to.equal(2);
    await p.close();
  });
});
