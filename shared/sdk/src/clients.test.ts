import { expect } from 'chai';
import { Lattice } from './lattice.ts';
import { LatticeEdge } from './lattice-edge.ts';
import { fakeFetch, json } from './testing/fake-fetch.ts';

describe('clients: where requests go and what they carry', () => {
  it('Lattice: the management API with the key as a Bearer credential; header arguments as headers', async () => {
    const fake = fakeFetch(json(202, { id: 'm1' }));
    const lattice = new Lattice({
      apiKey: 'rtk_secret',
      baseUrl: 'http://mgmt.test:4000/',
      fetch: fake.fetch,
    });
    const answer = await lattice.realtime.message.publish({
      channel: 'chat:room-1',
      data: { text: 'hi' },
      Prefer: 'return=representation, wait=2',
    });
    expect(answer).to.deep.equal({ id: 'm1' });
    const [req] = fake.requests;
    expect(`${req!.method} ${req!.url}`).to.equal('POST http://mgmt.test:4000/realtime/messages');
    expect(req!.headers.get('authorization')).to.equal('Bearer rtk_secret');
    expect(req!.headers.get('prefer')).to.equal('return=representation, wait=2');
    expect(req!.headers.get('idempotency-key')).to.match(/^[0-9a-f-]{36}$/);
    expect(JSON.parse(req!.body!)).to.deep.equal({ channel: 'chat:room-1', data: { text: 'hi' } });
  });

  it('LatticeEdge: {baseUrl}/{productId}/{toolkit}/… with the public key as a Bearer credential', async () => {
    const fake = fakeFetch(
      json(200, { token: 't', expires_at: 'x' }),
      json(200, { data: [], epoch: '', top_offset: 0, recovered: true }),
    );
    const edge = new LatticeEdge({
      publicKey: 'lpk_abc',
      productId: 'prod 1',
      baseUrl: 'https://edge.test',
      fetch: fake.fetch,
    });
    await edge.realtime.token.issue({
      subject: 'user-42',
      channels: [{ name: 'chat:room-1', ops: ['subscribe'] }],
    });
    await edge.realtime.history.get({ channel: 'chat:room-1', last_n: 10 });
    expect(fake.requests.map((r) => `${r.method} ${r.url}`)).to.deep.equal([
      'POST https://edge.test/prod%201/realtime/tokens/issue',
      'GET https://edge.test/prod%201/realtime/channels/chat%3Aroom-1/history?last_n=10',
    ]);
    expect(fake.requests.every((r) => r.headers.get('authorization') === 'Bearer lpk_abc')).to.equal(true);
    expect(fake.requests[0]!.headers.has('idempotency-key')).to.equal(false);
  });

  it('LatticeEdge refuses to start without a key or a product', () => {
    expect(() => new LatticeEdge({ publicKey: '', productId: 'p' })).to.throw(TypeError, /publicKey/);
    expect(() => new LatticeEdge({ publicKey: 'lpk_x', productId: '' })).to.throw(TypeError, /productId/);
  });
});
