// The partition actor host on a kafkajs stand-in (testing/fake-consumer.ts), with time on a
// ManualScheduler and an actor whose writes become durable only when the test says so. Every
// offset commit is checked as it is sent: it may only cover records whose effects are durable
// (or which were dead-lettered), on every path: apply, retry, dead letter, rebalance and stop.
// And the commit runs beside the next batch, never in front of it.
import { createLogger, RetryableError, TerminalError } from '@lattice/core';
import { ManualScheduler } from '@lattice/core/testing';
import { expect } from 'chai';
import { Registry } from 'prom-client';
import type { Actor, ActorKind, ActorRecord, AppliedPosition } from './actor.ts';
import { type ActorHost, createActorHost } from './actor-host.ts';
import type { Codec } from './codec.ts';
import type { DeadLetter } from './dead-letters.ts';
import { type FakeCommit, FakeConsumer, fakeKafka } from './testing/fake-consumer.ts';

interface Cmd {
  n: number;
  poison?: boolean;
}

const TOPIC = 't';
const HEARTBEAT_MS = 1_000;
const RETRY = { initialMs: 100, maxMs: 100, jitterRatio: 0 };
const logger = createLogger({ name: 'actor-host-test', level: 'silent' });
const codec: Codec<Cmd> = {
  name: 'test.Cmd',
  fingerprint: 0n,
  encode: (v) => Buffer.from(JSON.stringify(v)),
  decode: (b) => JSON.parse(b.toString('utf8')) as Cmd,
};

interface Write {
  key: string;
  offsets: bigint[];
  release(): void;
  fail(err: Error): void;
}

/** The actors' durable state, and the writes and letters waiting for the test's word. */
function ledger() {
  const positions = new Map<string, AppliedPosition>();
  /** Per partition: offsets whose effects are durable or which were dead-lettered. */
  const handled = new Map<number, Set<bigint>>();
  /** Per partition: offsets handed to the host. */
  const delivered = new Map<number, bigint[]>();
  const writes: Write[] = [];
  const letters: Array<{ letter: DeadLetter; release(): void }> = [];
  const violations: string[] = [];
  let loads = 0;
  const mark = (partition: number, offset: bigint) => {
    const set = handled.get(partition) ?? new Set();
    set.add(offset);
    handled.set(partition, set);
  };

  const kind: ActorKind<Cmd> = {
    name: 'ledger',
    async load(key): Promise<Actor<Cmd>> {
      loads += 1;
      let applied = positions.get(key) ?? null;
      return {
        applied: () => applied,
        async handle(records: ActorRecord<Cmd>[]) {
          if (records.some((r) => r.value.poison)) throw new TerminalError('poison');
          await new Promise<void>((resolve, reject) =>
            writes.push({ key, offsets: records.map((r) => r.offset), release: resolve, fail: reject }),
          );
          const last = records[records.length - 1]!;
          for (const r of records) mark(r.partition, r.offset);
          applied = { partition: last.partition, offset: last.offset };
          positions.set(key, applied);
        },
      };
    },
  };
  const deadLetters = {
    send: (letter: DeadLetter) =>
      new Promise<void>((resolve) =>
        letters.push({
          letter,
          release: () => {
            mark(letter.source_partition, BigInt(letter.source_offset));
            resolve();
          },
        }),
      ),
  };
  /** Fails the test later if a commit covers a record not yet durable. */
  const audit = (commit: FakeCommit[]) => {
    for (const { partition, offset } of commit) {
      for (const o of delivered.get(partition) ?? []) {
        if (o < offset && !handled.get(partition)?.has(o)) {
          violations.push(
            `offset ${offset} of partition ${partition} committed before record ${o} was durable`,
          );
        }
      }
    }
  };
  const write = (key: string): Write => {
    const i = writes.findIndex((w) => w.key === key);
    if (i < 0) throw new Error(`no write of ${key} is waiting`);
    return writes.splice(i, 1)[0]!;
  };
  return {
    kind,
    deadLetters,
    audit,
    delivered,
    violations,
    writes,
    letters,
    write,
    loads: () => loads,
  };
}

/** Lets every promise that can settle without the scheduler or the test settle. */
async function settle(): Promise<void> {
  for (let i = 0; i < 30; i++) await new Promise((resolve) => setImmediate(resolve));
}

describe('partition actor host: commits follow durability (kafkajs stand-in)', () => {
  let host: ActorHost;
  let consumer: FakeConsumer;
  let scheduler: ManualScheduler;
  let l: ReturnType<typeof ledger>;

  async function start(commitIntervalMs = 0) {
    consumer = new FakeConsumer(TOPIC);
    scheduler = new ManualScheduler(1_000_000);
    l = ledger();
    consumer.onCommit = l.audit;
    host = createActorHost({
      kafka: fakeKafka(consumer),
      groupId: 'g',
      topic: TOPIC,
      codec,
      kind: l.kind,
      deadLetters: l.deadLetters,
      logger,
      registry: new Registry(),
      scheduler,
      heartbeatIntervalMs: HEARTBEAT_MS,
      retry: RETRY,
      commitIntervalMs,
    });
    await host.start();
    consumer.join([0, 1]);
  }

  /** Hands the host a batch of `keys` (one record each, in order) from `first` on. */
  function batch(partition: number, first: bigint, records: Array<string | [string, Cmd]>) {
    const rs = records.map((r, i) => {
      const [key, value] = typeof r === 'string' ? [r, { n: i }] : r;
      return { offset: first + BigInt(i), key, value: codec.encode(value) };
    });
    l.delivered.set(partition, [...(l.delivered.get(partition) ?? []), ...rs.map((r) => r.offset)]);
    const done = consumer.batch(partition, rs);
    const outcome: { settled: boolean; error: unknown } = { settled: false, error: undefined };
    done.then(
      () => {
        outcome.settled = true;
      },
      (err: unknown) => {
        outcome.settled = true;
        outcome.error = err;
      },
    );
    return { done, outcome };
  }

  const offsetsCommitted = () => consumer.commits.map((c) => c.map((o) => `${o.partition}:${o.offset}`));

  afterEach(async () => {
    for (const w of l.writes.splice(0)) w.release();
    for (const d of l.letters.splice(0)) d.release();
    while (consumer.heldCommitCount() > 0) consumer.answerCommit();
    consumer.holdCommits = false;
    await host.stop();
    expect(l.violations).to.deep.equal([]);
  });

  it('apply: commits a batch once every key is durable, and runs the next batch while that commit is in flight', async () => {
    await start();
    const first = batch(0, 0n, ['a', 'b', 'a', 'b']);
    await settle();
    expect(l.writes.map((w) => [w.key, w.offsets])).to.deep.equal([
      ['a', [0n, 2n]],
      ['b', [1n, 3n]],
    ]);
    l.write('a').release();
    await settle();
    expect(offsetsCommitted(), 'b is not durable yet').to.deep.equal([]);
    consumer.holdCommits = true;
    l.write('b').release();
    await first.done;
    expect(offsetsCommitted()).to.deep.equal([['0:4']]);
    expect(consumer.heldCommitCount(), 'the commit is still in flight').to.equal(1);

    // The next batch is applied while the first commit waits for its answer...
    const second = batch(0, 4n, ['a', 'a']);
    await settle();
    l.write('a').release();
    await second.done;
    // ...and its offset goes in the next request, once the first is answered: one at a time.
    expect(offsetsCommitted()).to.deep.equal([['0:4']]);
    consumer.answerCommit();
    await settle();
    expect(offsetsCommitted()).to.deep.equal([['0:4'], ['0:6']]);
    consumer.answerCommit();
  });

  it('apply: a refused commit is tried again after the retry delay, and later offsets follow it', async () => {
    await start();
    consumer.holdCommits = true;
    const first = batch(1, 10n, ['a']);
    await settle();
    l.write('a').release();
    await first.done;
    consumer.answerCommit(new Error('the coordinator is moving'));
    await scheduler.advanceAsync(RETRY.initialMs - 1);
    expect(offsetsCommitted(), 'tried again after a delay, not at once').to.deep.equal([['1:11']]);
    await scheduler.advanceAsync(1);
    expect(offsetsCommitted()).to.deep.equal([['1:11'], ['1:11']]);
    consumer.answerCommit();
    const second = batch(1, 11n, ['b']);
    await settle();
    l.write('b').release();
    await second.done;
    await settle();
    expect(offsetsCommitted()).to.deep.equal([['1:11'], ['1:11'], ['1:12']]);
    consumer.answerCommit();
  });

  it('retry: a failed write is retried after its backoff on a reloaded actor, and committed only once it is durable', async () => {
    await start();
    const b = batch(0, 0n, ['a', 'b']);
    await settle();
    l.write('b').release();
    l.write('a').fail(new RetryableError('database unavailable', 0));
    await settle();
    expect(l.writes, 'waiting for the backoff').to.deep.equal([]);
    const loads = l.loads();
    await scheduler.advanceAsync(RETRY.initialMs - 1);
    expect(l.writes).to.deep.equal([]);
    await scheduler.advanceAsync(1);
    await settle();
    expect(l.loads(), 'the actor was reloaded').to.equal(loads + 1);
    expect(offsetsCommitted(), 'a is not durable yet').to.deep.equal([]);
    l.write('a').release();
    await b.done;
    expect(offsetsCommitted()).to.deep.equal([['0:2']]);
  });

  it('dead letter: a poison record is committed past only once its letter is sent; its neighbours apply one at a time', async () => {
    await start();
    const b = batch(0, 0n, ['a', ['a', { n: 1, poison: true }], 'a']);
    await settle();
    // The chunk of three was refused: the host goes one record at a time.
    l.write('a').release();
    await settle();
    expect(l.letters.map((d) => d.letter.source_offset)).to.deep.equal(['1']);
    expect(l.writes, "the key's next record waits for the letter").to.deep.equal([]);
    expect(offsetsCommitted(), 'the letter is not sent yet').to.deep.equal([]);
    l.letters.shift()!.release();
    await settle();
    expect(l.writes.map((w) => w.offsets)).to.deep.equal([[2n]]);
    expect(offsetsCommitted()).to.deep.equal([]);
    l.write('a').release();
    await b.done;
    expect(offsetsCommitted()).to.deep.equal([['0:3']]);
  });

  it('rebalance: a batch whose write fails after the heartbeat was refused is left to the next owner, committing nothing', async () => {
    await start();
    const b = batch(0, 5n, ['a', 'b']);
    await settle();
    l.write('a').release();
    consumer.heartbeatError = new Error('The group is rebalancing, so a rejoin is needed');
    await scheduler.advanceAsync(HEARTBEAT_MS);
    l.write('b').fail(new RetryableError('database unavailable', 0));
    await settle();
    expect(b.outcome.settled).to.equal(true);
    expect(String(b.outcome.error)).to.match(/rebalancing/);
    expect(offsetsCommitted()).to.deep.equal([]);
  });

  it('rebalance: a batch that became durable while the heartbeat was refused is committed before the batch ends', async () => {
    await start();
    const b = batch(0, 5n, ['a']);
    await settle();
    consumer.heartbeatError = new Error('The group is rebalancing, so a rejoin is needed');
    await scheduler.advanceAsync(HEARTBEAT_MS);
    consumer.holdCommits = true;
    l.write('a').release();
    await settle();
    expect(offsetsCommitted()).to.deep.equal([['0:6']]);
    expect(b.outcome.settled, 'the batch waits for its commit').to.equal(false);
    consumer.answerCommit();
    await settle();
    expect(String(b.outcome.error)).to.match(/rebalancing/);
  });

  it('stop: a batch still writing when the host stops commits nothing it has not made durable', async () => {
    await start();
    const b = batch(0, 0n, ['a', 'b']);
    await settle();
    l.write('a').release();
    const stopped = host.stop();
    await settle();
    l.write('b').fail(new RetryableError('database unavailable', 0));
    await stopped;
    await settle();
    expect(b.outcome.settled).to.equal(true);
    expect(offsetsCommitted()).to.deep.equal([]);
  });

  it('stop: what was applied before the stop is committed by it', async () => {
    await start(60_000);
    const b = batch(1, 0n, ['a']);
    await settle();
    l.write('a').release();
    await b.done;
    expect(offsetsCommitted(), 'waiting for the commit interval').to.deep.equal([]);
    await host.stop();
    expect(offsetsCommitted()).to.deep.equal([['1:1']]);
  });
});
