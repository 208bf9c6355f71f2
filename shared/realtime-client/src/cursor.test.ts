import type { HistoryEntry, SubscribeResult } from '@lattice/realtime-protocol';
import { expect } from 'chai';
import { advanceCursor, applySubscribeResult } from './cursor.ts';

const entry = (offset: number, epoch = 'e1'): HistoryEntry => ({
  id: `m${offset}`,
  offset,
  epoch,
  data: offset,
  published_at: '2026-01-01T00:00:00.000Z',
});

const reply = (over: Partial<SubscribeResult>): SubscribeResult => ({
  epoch: 'e1',
  offset: 0,
  recovered: true,
  messages: [],
  ...over,
});

describe('cursor', () => {
  describe('advanceCursor', () => {
    it('delivers offsets above the cursor and moves it', () => {
      expect(advanceCursor({ offset: 4, epoch: 'e1' }, entry(5))).to.deep.equal({
        deliver: true,
        cursor: { offset: 5, epoch: 'e1' },
      });
    });

    it('drops an offset at or below the cursor in the same epoch (never twice)', () => {
      for (const offset of [1, 4, 5]) {
        expect(advanceCursor({ offset: 5, epoch: 'e1' }, entry(offset))).to.deep.equal({
          deliver: false,
          cursor: { offset: 5, epoch: 'e1' },
        });
      }
    });

    it('adopts the epoch of the first message on a cursor taken on an empty channel', () => {
      expect(advanceCursor({ offset: 0, epoch: '' }, entry(1, 'e9'))).to.deep.equal({
        deliver: true,
        cursor: { offset: 1, epoch: 'e9' },
      });
    });

    it('delivers and adopts a new epoch (the channel started over)', () => {
      expect(advanceCursor({ offset: 50, epoch: 'e1' }, entry(1, 'e2'))).to.deep.equal({
        deliver: true,
        cursor: { offset: 1, epoch: 'e2' },
      });
    });

    it('starts a missing cursor at the message', () => {
      expect(advanceCursor(null, entry(3))).to.deep.equal({
        deliver: true,
        cursor: { offset: 3, epoch: 'e1' },
      });
    });
  });

  describe('applySubscribeResult', () => {
    it('a plain subscribe starts at the top, epoch "" on an empty channel', () => {
      expect(applySubscribeResult(null, reply({ offset: 7 }))).to.deep.equal({
        deliver: [],
        cursor: { offset: 7, epoch: 'e1' },
        recovered: null,
      });
      expect(applySubscribeResult(null, reply({ epoch: '', offset: 0 })).cursor).to.deep.equal({
        offset: 0,
        epoch: '',
      });
    });

    it('a recovering subscribe delivers the replay in order and drops what was already seen', () => {
      const out = applySubscribeResult(
        { offset: 5, epoch: 'e1' },
        reply({ offset: 8, messages: [entry(5), entry(6), entry(7), entry(8)] }),
      );
      expect(out.deliver.map((e) => e.offset)).to.deep.equal([6, 7, 8]);
      expect(out.cursor).to.deep.equal({ offset: 8, epoch: 'e1' });
      expect(out.recovered).to.equal(true);
    });

    it('recovers from epoch "" with the first message adopting the epoch', () => {
      const out = applySubscribeResult(
        { offset: 0, epoch: '' },
        reply({ epoch: 'e3', offset: 2, messages: [entry(1, 'e3'), entry(2, 'e3')] }),
      );
      expect(out.deliver.map((e) => e.offset)).to.deep.equal([1, 2]);
      expect(out.cursor).to.deep.equal({ offset: 2, epoch: 'e3' });
    });

    it('stays empty on a still empty channel', () => {
      const out = applySubscribeResult({ offset: 0, epoch: '' }, reply({ epoch: '', offset: 0 }));
      expect(out).to.deep.equal({ deliver: [], cursor: { offset: 0, epoch: '' }, recovered: true });
    });

    it('recovered false: nothing delivered, the cursor jumps to the new position', () => {
      const out = applySubscribeResult(
        { offset: 5, epoch: 'old' },
        reply({ epoch: 'new', offset: 12, recovered: false }),
      );
      expect(out).to.deep.equal({ deliver: [], cursor: { offset: 12, epoch: 'new' }, recovered: false });
    });

    it('live pushes after a recovery are deduplicated against the replay', () => {
      const out = applySubscribeResult(
        { offset: 2, epoch: 'e1' },
        reply({ offset: 4, messages: [entry(3), entry(4)] }),
      );
      expect(advanceCursor(out.cursor, entry(4)).deliver).to.equal(false);
      expect(advanceCursor(out.cursor, entry(5)).deliver).to.equal(true);
    });
  });
});
