import { ManualClock } from '@lattice/core/testing';
import { expect } from 'chai';
import type { NamespaceRecord } from '../namespace-repository.ts';
import { parseChannelCommandKey } from './channel-id.ts';
import { createNamespacePolicyCache } from './policy-cache.ts';

const record = (name: string, window: number): NamespaceRecord => ({
  productId: 'p',
  name,
  presence: true,
  clientEvents: false,
  historyWindowSeconds: window,
  archiveDays: 0,
  createdAt: new Date(0),
  updatedAt: new Date(0),
});

describe('namespace policy cache', () => {
  it('asks the repository once per ttl, shares concurrent lookups, and remembers absence', async () => {
    const clock = new ManualClock(0);
    let calls = 0;
    let window = 60;
    const cache = createNamespacePolicyCache({
      repository: {
        get: async (_p, name) => {
          calls++;
          return name === 'chat' ? record(name, window) : undefined;
        },
      },
      ttlMs: 1000,
      clock,
    });
    const [a, b] = await Promise.all([cache.get('p', 'chat'), cache.get('p', 'chat')]);
    expect(a).to.deep.equal({
      presence: true,
      clientEvents: false,
      historyWindowSeconds: 60,
      archiveDays: 0,
    });
    expect(b).to.deep.equal(a);
    expect(await cache.get('p', 'missing')).to.equal(null);
    expect(await cache.get('p', 'missing')).to.equal(null);
    expect(calls).to.equal(2);
    window = 0;
    clock.advance(999);
    expect((await cache.get('p', 'chat'))?.historyWindowSeconds, 'still cached').to.equal(60);
    clock.advance(1);
    expect((await cache.get('p', 'chat'))?.historyWindowSeconds, 'refreshed after the ttl').to.equal(0);
  });

  it('does not remember a failed lookup', async () => {
    let fail = true;
    const cache = createNamespacePolicyCache({
      repository: {
        get: async () => {
          if (fail) throw new Error('db down');
          return record('chat', 1);
        },
      },
    });
    let err: unknown;
    await cache.get('p', 'chat').catch((e: unknown) => (err = e));
    expect(String(err)).to.include('db down');
    fail = false;
    expect(await cache.get('p', 'chat')).to.not.equal(null);
  });
});

describe('channel command keys', () => {
  it('splits product, environment and a channel that holds colons itself', () => {
    expect(parseChannelCommandKey('p1:production:chat:room:1')).to.deep.equal({
      productId: 'p1',
      environment: 'production',
      channel: 'chat:room:1',
    });
    for (const bad of ['p1:staging:chat:x', 'p1:production:', ':production:chat:x', 'p1', 'p1:production']) {
      expect(parseChannelCommandKey(bad), bad).to.equal(null);
    }
  });
});
