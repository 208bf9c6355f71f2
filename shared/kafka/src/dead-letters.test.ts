import { ManualScheduler } from '@lattice/core/testing';
import { expect } from 'chai';
import { CodecError } from './codec.ts';
import { type DeadLetter, sendDeadLetter } from './dead-letters.ts';

const letter: DeadLetter = {
  source_topic: 't',
  source_partition: 3,
  source_offset: '42',
  key: 'k',
  value: Buffer.from('raw'),
  error: 'poison',
  failed_at_ms: 0,
};

/** A sink that throws the scripted errors in turn, then accepts; it records what it was given. */
function scriptedSink(scheduler: ManualScheduler, errors: unknown[]) {
  const sends: Array<{ atMs: number; letter: DeadLetter }> = [];
  return {
    sends,
    async send(l: DeadLetter) {
      sends.push({ atMs: scheduler.nowMs(), letter: l });
      const err = errors.shift();
      if (err !== undefined) throw err;
    },
  };
}

describe('sendDeadLetter', () => {
  it('retries transient failures with backoff, telling beforeRetry each one', async () => {
    const scheduler = new ManualScheduler();
    const sink = scriptedSink(scheduler, [new Error('broker down'), new Error('broker down')]);
    const seen: number[] = [];
    const sent = sendDeadLetter(sink, letter, {
      scheduler,
      backoff: { initialMs: 100, maxMs: 1_000 },
      beforeRetry: (_err, attempt) => seen.push(attempt),
    });
    await scheduler.advanceAsync(300);
    expect(await sent).to.equal(letter);
    expect(sink.sends.map((s) => s.atMs)).to.deep.equal([0, 100, 300]);
    expect(seen).to.deep.equal([1, 2]);
  });

  it('sends a letter refused for good again at once without its value, saying why', async () => {
    const scheduler = new ManualScheduler();
    const sink = scriptedSink(scheduler, [new CodecError('too large')]);
    const seen: number[] = [];
    const sent = await sendDeadLetter(sink, letter, {
      scheduler,
      backoff: { initialMs: 100, maxMs: 1_000 },
      beforeRetry: (_err, attempt) => seen.push(attempt),
    });
    expect(sink.sends.map((s) => s.atMs)).to.deep.equal([0, 0]);
    expect(sent.value).to.equal(null);
    expect(sent.error).to.equal('poison (value dropped: too large)');
    expect(sink.sends[1]?.letter).to.equal(sent);
    expect(seen, 'not a transient failure').to.deep.equal([]);
  });

  it('gives up when beforeRetry throws', async () => {
    const scheduler = new ManualScheduler();
    const sink = scriptedSink(scheduler, [new Error('broker down')]);
    const err = await sendDeadLetter(sink, letter, {
      scheduler,
      backoff: { initialMs: 100, maxMs: 1_000 },
      beforeRetry: () => {
        throw new Error('abandoned');
      },
    }).catch((e: Error) => e);
    expect((err as Error).message).to.equal('abandoned');
    expect(sink.sends).to.have.length(1);
  });
});
