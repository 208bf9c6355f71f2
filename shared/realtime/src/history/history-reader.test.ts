import { expect } from 'chai';
import { cursorRecovered, HISTORY_READ_MAX_ENTRIES } from './history-reader.ts';

const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

describe('history cursor recovery', () => {
  it('recovers when every entry after the offset is served under the same epoch', () => {
    expect(cursorRecovered({ offset: 3, epoch: 'e' }, 'e', 10, range(4, 10))).to.equal(true);
    expect(cursorRecovered({ offset: 10, epoch: 'e' }, 'e', 10, [])).to.equal(true);
  });

  it('does not recover on another epoch, a gap, entries aged out at the front, or a cursor past the top', () => {
    expect(cursorRecovered({ offset: 3, epoch: 'old' }, 'e', 10, range(4, 10))).to.equal(false);
    expect(cursorRecovered({ offset: 3, epoch: 'e' }, 'e', 10, [...range(4, 6), ...range(8, 10)])).to.equal(
      false,
    );
    expect(cursorRecovered({ offset: 3, epoch: 'e' }, 'e', 10, range(6, 10))).to.equal(false);
    expect(cursorRecovered({ offset: 3, epoch: 'e' }, 'e', 10, [])).to.equal(false);
    expect(cursorRecovered({ offset: 11, epoch: 'e' }, 'e', 10, [])).to.equal(false);
  });

  it('treats a page of the first 1000 entries after the offset as recovered (the reader pages on)', () => {
    expect(
      cursorRecovered({ offset: 0, epoch: 'e' }, 'e', 5000, range(1, HISTORY_READ_MAX_ENTRIES)),
    ).to.equal(true);
  });

  it('lets a cursor that saw nothing of an empty channel (offset 0, empty epoch) match any epoch', () => {
    expect(cursorRecovered({ offset: 0, epoch: '' }, 'e', 3, range(1, 3))).to.equal(true);
    expect(cursorRecovered({ offset: 1, epoch: '' }, 'e', 3, range(2, 3))).to.equal(false);
  });
});
