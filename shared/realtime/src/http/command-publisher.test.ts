import { createLogger, sleep } from '@lattice/core';
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

function fakeProducer(opts: { delayMs?: number; fail?: boolean } = {}) {
  const sends: string[][] = [];
  const producer: RecordProducer = {
    async send(_topic, _codec, records) {
      sends.push(records.map((r) => (r.value as ChannelCommandRecord).command_id));
      await sleep(opts.delayMs ?? 5);
      if (opts.fail) throw new Error('broker down');
    },
    async disconnect() {},
  };
  return { producer, sends };
}

describe('channel command publisher (group commit)', () => {
  it('sends what arrives while a request is in flight together, in order', async () => {
    const { producer, sends } = fakeProducer({ delayMs: 20 });
    const p = createChannelCommandPublisher({ producer, topic: 't', codec, logger });
    await Promise.all(Array.from({ length: 10 }, (_, i) => p.publish(id, record(i))));
    expect(sends[0]).to.deep.equal(['c0']);
    expect(sends.flat()).to.deep.equal(Array.from({ length: 10 }, (_, i) => `c${i}`));
    expect(sends.length).to.equal(2);
    await p.close();
  });

  it('rejects every publish of a failed request, and one not acknowledged in time', async () => {
    const failing = createChannelCommandPublisher({
      producer: fakeProducer({ fail: true }).producer,
      topic: 't',
      codec,
      logger,
    });
    await Promise.all(
      [failing.publish(id, record(1)), failing.publish(id, record(2))].map((x) =>
        x.then(
          () => expect.fail('should fail'),
          (err: Error) => expect(err.name).to.equal('PublishFailedError'),
        ),
      ),
    );
    const slow = fakeProducer({ delayMs: 200 });
    const timed = createChannelCommandPublisher({
      producer: slow.producer,
      topic: 't',
      codec,
      logger,
      timeoutMs: 50,
    });
    const first = timed.publish(id, record(1));
    const queued = timed.publish(id, record(2));
    for (const x of [first, queued]) {
      const err = await x.then(
        () => null,
        (e: Error) => e,
      );
      expect(err?.message).to.match(/not acknowledged within 50 ms/);
    }
    await sleep(250);
    // The queued one was withdrawn when it timed out: it was never sent.
    expect(slow.sends.flat()).to.deep.equal(['c1']);
    await timed.close();
  });

  it('connects lazily, and again after a failed connect', async () => {
    let attempts = 0;
    const { producer } = fakeProducer();
    const p = createChannelCommandPublisher({
      producer: async () => {
        attempts += 1;
        if (attempts === 1) throw new Error('no broker');
        return producer;
      },
      topic: 't',
      codec,
      logger,
    });
    expect(attempts).to.equal(0);
    await p.publish(id, record(1)).then(
      () => expect.fail('first connect fails'),
      () => undefined,
    );
    await p.publish(id, record(2));
    expect(attempts).to.equal(2);
    await p.close();
  });
});
