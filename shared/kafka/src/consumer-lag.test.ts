import { expect } from 'chai';
import { lagOf } from './consumer-lag.ts';

describe('lagOf', () => {
  const ends = [
    { partition: 0, high: '120', low: '0' },
    { partition: 1, high: '40', low: '10' },
    { partition: 2, high: '7', low: '7' },
  ];

  it('is the high watermark minus the committed offset, for the owned partitions only', () => {
    const committed = new Map([
      [0, '100'],
      [1, '40'],
      [2, '7'],
    ]);
    expect(lagOf([0, 1], ends, committed)).to.deep.equal([
      { partition: 0, lag: 20 },
      { partition: 1, lag: 0 },
    ]);
  });

  it('counts everything still kept when the group committed nothing yet', () => {
    expect(lagOf([1, 2], ends, new Map([[1, '-1']]))).to.deep.equal([
      { partition: 1, lag: 30 },
      { partition: 2, lag: 0 },
    ]);
  });

  it('never reports a negative lag, and skips a partition the broker did not list', () => {
    expect(lagOf([0, 5], ends, new Map([[0, '130']]))).to.deep.equal([{ partition: 0, lag: 0 }]);
  });
});
