import { expect } from 'chai';
import { minInsyncFor, replicationForBrokers } from './topics.ts';

describe('topic replication', () => {
  it('follows the cluster: min(3, brokers) copies, 2 of them in sync at 3 copies', () => {
    expect([1, 2, 3, 7].map(replicationForBrokers)).to.deep.equal([
      { factor: 1, minInsync: 1 },
      { factor: 2, minInsync: 1 },
      { factor: 3, minInsync: 2 },
      { factor: 3, minInsync: 2 },
    ]);
  });

  it('asks 2 in sync of a configured factor of 3 or more, else 1', () => {
    expect([1, 2, 3, 5].map(minInsyncFor)).to.deep.equal([1, 1, 2, 2]);
  });
});
