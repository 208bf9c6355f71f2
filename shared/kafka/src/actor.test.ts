import { expect } from 'chai';
import { isReplay } from './actor.ts';

describe('isReplay', () => {
  it('treats records at or before the applied position of the same partition as replays', () => {
    const applied = { partition: 3, offset: 10n };
    expect(isReplay(applied, { partition: 3, offset: 9n })).to.equal(true);
    expect(isReplay(applied, { partition: 3, offset: 10n })).to.equal(true);
    expect(isReplay(applied, { partition: 3, offset: 11n })).to.equal(false);
  });

  it('applies everything for a fresh actor or one whose key moved partitions', () => {
    expect(isReplay(null, { partition: 0, offset: 0n })).to.equal(false);
    expect(isReplay({ partition: 2, offset: 50n }, { partition: 3, offset: 1n })).to.equal(false);
  });
});
