import { expect } from 'chai';
import {
  MAX_BUFFERED,
  onFilled,
  onLive,
  onResync,
  onStarted,
  type Positioned,
  type SubscriptionAction,
  startingSubscription,
} from './subscription-logic.ts';

const m = (offset: number, epoch = 'e1'): Positioned => ({ offset, epoch });
const pushed = (actions: SubscriptionAction<Positioned>[]) =>
  actions.flatMap((a) => (a.type === 'push' ? [a.message.offset] : []));

describe('gateway subscription logic', () => {
  it('holds live messages until the reply is sent, then pushes only those above the start', () => {
    const s = startingSubscription<Positioned>();
    // Messages 4 and 5 arrived while the history read ran; 4 was in the replay already.
    expect(onLive(s, m(4))).to.deep.equal([]);
    expect(onLive(s, m(5))).to.deep.equal([]);
    expect(pushed(onStarted(s, m(4)))).to.deep.equal([5]);
    expect(pushed(onLive(s, m(6)))).to.deep.equal([6]);
    // A repeated delivery is dropped.
    expect(onLive(s, m(6))).to.deep.equal([]);
    expect(s).to.include({ offset: 6, epoch: 'e1', phase: 'live' });
  });

  it('fills a gap from history before pushing what came after it', () => {
    const s = startingSubscription<Positioned>();
    onStarted(s, m(2));
    expect(onLive(s, m(5))).to.deep.equal([{ type: 'fill', after: { offset: 2, epoch: 'e1' } }]);
    expect(onLive(s, m(6))).to.deep.equal([]);
    expect(s.phase).to.equal('filling');
    expect(pushed(onFilled(s, { recovered: true, entries: [m(3), m(4), m(5), m(6)] }))).to.deep.equal([
      3, 4, 5, 6,
    ]);
    expect(s).to.include({ offset: 6, phase: 'live' });
    expect(s.buffer).to.deep.equal([]);
  });

  it('asks the client to recover when the gap cannot be filled', () => {
    const s = startingSubscription<Positioned>();
    onStarted(s, m(2));
    onLive(s, m(9));
    onLive(s, m(10));
    expect(onFilled(s, { recovered: false, entries: [] })).to.deep.equal([{ type: 'recover' }]);
    expect(s.buffer).to.deep.equal([]);
  });

  it('treats another epoch after the first as a gap to recover', () => {
    const s = startingSubscription<Positioned>();
    onStarted(s, m(3));
    expect(onLive(s, m(1, 'e2'))).to.deep.equal([{ type: 'recover' }]);
  });

  it('adopts the epoch of the first message on a channel that had none (not a gap)', () => {
    const s = startingSubscription<Positioned>();
    expect(pushed(onStarted(s, { offset: 0, epoch: '' }))).to.deep.equal([]);
    expect(pushed(onLive(s, m(1, 'new')))).to.deep.equal([1]);
    expect(s).to.include({ epoch: 'new', offset: 1 });
  });

  it('fills from the first message when an empty channel start misses it', () => {
    const s = startingSubscription<Positioned>();
    onStarted(s, { offset: 0, epoch: '' });
    expect(onLive(s, m(2, 'new'))).to.deep.equal([{ type: 'fill', after: { offset: 0, epoch: '' } }]);
    expect(pushed(onFilled(s, { recovered: true, entries: [m(1, 'new'), m(2, 'new')] }))).to.deep.equal([
      1, 2,
    ]);
  });

  it('recovers rather than reading again when history does not reach the gap (a stale read)', () => {
    const s = startingSubscription<Positioned>();
    onStarted(s, m(3));
    onLive(s, m(6));
    expect(onFilled(s, { recovered: true, entries: [m(4)] })).to.deep.equal([
      { type: 'push', message: m(4) },
      { type: 'recover' },
    ]);
  });

  it('reads history after the cursor on a resync, and pushes what was missed', () => {
    const s = startingSubscription<Positioned>();
    onStarted(s, m(3));
    expect(onResync(s)).to.deep.equal([{ type: 'fill', after: { offset: 3, epoch: 'e1' } }]);
    expect(onResync(s), 'one read at a time').to.deep.equal([]);
    onLive(s, m(6));
    expect(pushed(onFilled(s, { recovered: true, entries: [m(4), m(5)] }))).to.deep.equal([4, 5, 6]);
    // Nothing missed: nothing pushed, live again.
    expect(pushed(onFilled(s, { recovered: true, entries: [] }))).to.deep.equal([]);
  });

  it(`holds ${MAX_BUFFERED} live messages while starting and recovers at one more`, () => {
    const s = startingSubscription<Positioned>();
    for (let i = 1; i <= MAX_BUFFERED; i++) expect(onLive(s, m(i))).to.deep.equal([]);
    expect(onLive(s, m(MAX_BUFFERED + 1))).to.deep.equal([{ type: 'recover' }]);
    expect(s.buffer).to.deep.equal([]);
  });

  it('stops admitting buffered messages at a recover', () => {
    const s = startingSubscription<Positioned>();
    onLive(s, m(3));
    onLive(s, m(1, 'e2'));
    onLive(s, m(2, 'e2'));
    expect(onStarted(s, m(2))).to.deep.equal([{ type: 'push', message: m(3) }, { type: 'recover' }]);
  });
});
