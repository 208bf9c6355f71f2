import { expect } from 'chai';
import { type NamespacePolicy, narrowGrants, repeatedChannel } from './token-request.ts';

describe('narrowing by namespace policy', () => {
  const policies: Record<string, NamespacePolicy> = {
    open: { presence: true, clientEvents: true, historyWindowSeconds: 60, archiveDays: 0 },
    closed: { presence: false, clientEvents: false, historyWindowSeconds: 0, archiveDays: 0 },
  };
  const all = ['subscribe', 'publish', 'presence', 'history'] as const;

  it('keeps what the policy allows and only removes', () => {
    const grants = narrowGrants(
      [
        { name: 'open:a', ops: [...all] },
        { name: 'closed:b', ops: [...all] },
      ],
      (ns) => policies[ns],
    );
    expect(grants).to.deep.equal([
      { name: 'open:a', ops: [...all] },
      { name: 'closed:b', ops: ['subscribe'] },
    ]);
  });

  it('drops unregistered namespaces and channels left with nothing', () => {
    expect(narrowGrants([{ name: 'nowhere:a', ops: ['subscribe'] }], (ns) => policies[ns])).to.deep.equal([]);
    expect(
      narrowGrants([{ name: 'closed:a', ops: ['publish', 'presence', 'history'] }], (ns) => policies[ns]),
    ).to.deep.equal([]);
  });
});

describe('a channel named twice', () => {
  const grant = (name: string) => ({ name, ops: ['subscribe' as const] });

  it('is found at its second mention, with its first', () => {
    expect(repeatedChannel([grant('a:x'), grant('a:y'), grant('a:x')])).to.deep.equal({ index: 2, first: 0 });
    expect(repeatedChannel([grant('a:x'), grant('a:y'), grant('a:y'), grant('a:x')])).to.deep.equal({
      index: 2,
      first: 1,
    });
  });

  it('is not found when every channel is named once (names differ by case count as different)', () => {
    expect(repeatedChannel([grant('a:x'), grant('a:X'), grant('b:x')])).to.equal(null);
    expect(repeatedChannel([grant('a:x')])).to.equal(null);
  });
});
