import { expect } from 'chai';
import { createKeyedTurnBatcher, createTurnBatcher } from './turn-batcher.ts';

/** Resolves after the current turn (and the setImmediate callbacks queued before this one). */
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('turn batcher', () => {
  it('hands over the items of one turn together, in arrival order, after the turn', async () => {
    const batches: number[][] = [];
    const batcher = createTurnBatcher<number>((items) => batches.push(items));
    batcher.add(1);
    batcher.add(2);
    await Promise.resolve();
    batcher.add(3);
    expect(batches, 'nothing before the turn is over').to.deep.equal([]);
    await nextTurn();
    expect(batches).to.deep.equal([[1, 2, 3]]);
    batcher.add(4);
    await nextTurn();
    expect(batches).to.deep.equal([[1, 2, 3], [4]]);
  });

  it('puts what arrives during a flush into the next batch', async () => {
    const batches: number[][] = [];
    const batcher = createTurnBatcher<number>((items) => {
      batches.push(items);
      if (items[0] === 1) batcher.add(99);
    });
    batcher.add(1);
    await nextTurn();
    await nextTurn();
    expect(batches).to.deep.equal([[1], [99]]);
  });

  it("with the 'microtask' boundary, flushes once the current task's promise jobs have run", async () => {
    const batches: number[][] = [];
    const batcher = createTurnBatcher<number>((items) => batches.push(items), { boundary: 'microtask' });
    batcher.add(1);
    batcher.add(2);
    await Promise.resolve();
    expect(batches).to.deep.equal([[1, 2]]);
  });

  it('groups a keyed batch by key, groups in first-arrival order', async () => {
    const batches: Array<Array<[string, number[]]>> = [];
    const batcher = createKeyedTurnBatcher<string, number>((groups) => batches.push([...groups]));
    batcher.add('b', 1);
    batcher.add('a', 2);
    batcher.add('b', 3);
    await nextTurn();
    batcher.add('a', 4);
    await nextTurn();
    expect(batches).to.deep.equal([
      [
        ['b', [1, 3]],
        ['a', [2]],
      ],
      [['a', [4]]],
    ]);
  });
});
