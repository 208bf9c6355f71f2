import { expect } from 'chai';
import { Lattice } from './lattice.ts';
import { fakeFetch, json, type RecordedRequest } from './testing/fake-fetch.ts';

/** Pages of `size` items over `total` keys, `next_cursor` the last id of a page. */
function pagedKeys(total: number, size: number) {
  const keys = Array.from({ length: total }, (_, i) => ({ id: `k${i}` }));
  return (req: RecordedRequest) => {
    const cursor = req.url.searchParams.get('cursor');
    const limit = Number(req.url.searchParams.get('limit') ?? size);
    const start = cursor === null ? 0 : keys.findIndex((k) => k.id === cursor) + 1;
    const data = keys.slice(start, start + limit);
    const last = start + limit >= keys.length;
    return json(200, { data, next_cursor: last ? null : data.at(-1)!.id });
  };
}

function client(answer: (req: RecordedRequest) => Response) {
  const fake = fakeFetch(answer);
  return {
    lattice: new Lattice({ apiKey: 'lmt_test', baseUrl: 'http://lattice.test', fetch: fake.fetch }),
    fake,
  };
}

describe('pagination of …_list methods', () => {
  it('awaited, is the first page exactly as answered', async () => {
    const { lattice, fake } = client(pagedKeys(5, 2));
    const page = await lattice.organization.publicKeys.list({ limit: 2, environment: 'production' });
    expect(JSON.parse(JSON.stringify(page))).to.deep.equal({
      data: [{ id: 'k0' }, { id: 'k1' }],
      next_cursor: 'k1',
    });
    expect(fake.requests.map((r) => `${r.url.pathname}${r.url.search}`)).to.deep.equal([
      '/organization/public-keys?environment=production&limit=2',
    ]);
  });

  it('iterated, yields every item of every page, following next_cursor with the same arguments', async () => {
    const { lattice, fake } = client(pagedKeys(5, 2));
    const ids: string[] = [];
    for await (const key of lattice.organization.publicKeys.list({ limit: 2 })) ids.push(key.id);
    expect(ids).to.deep.equal(['k0', 'k1', 'k2', 'k3', 'k4']);
    expect(fake.requests.map((r) => r.url.search)).to.deep.equal([
      '?limit=2',
      '?limit=2&cursor=k1',
      '?limit=2&cursor=k3',
    ]);
  });

  it('an awaited page iterates on from its own items, without asking for it again', async () => {
    const { lattice, fake } = client(pagedKeys(3, 2));
    const page = await lattice.mail.apikey.list({ limit: 2 });
    const ids: string[] = [];
    for await (const key of page) ids.push(key.id);
    expect(ids).to.deep.equal(['k0', 'k1', 'k2']);
    expect(fake.requests).to.have.length(2);
  });

  it('stops after a single page whose next_cursor is null, and works without arguments', async () => {
    const { lattice, fake } = client(() => json(200, { data: [], next_cursor: null }));
    const items: unknown[] = [];
    for await (const item of lattice.mail.domain.list()) items.push(item);
    expect(items).to.deep.equal([]);
    expect(fake.requests).to.have.length(1);
  });

  it('passes path parameters along to every page (mail.webhook.deliveries.list)', async () => {
    const { lattice, fake } = client(pagedKeys(3, 1));
    let count = 0;
    for await (const _ of lattice.mail.webhook.deliveries.list({ id: 'wh1', limit: 1 })) count++;
    expect(count).to.equal(3);
    expect(fake.requests.map((r) => r.url.pathname)).to.deep.equal(
      Array(3).fill('/mail/webhooks/wh1/deliveries'),
    );
  });

  it('surfaces a failing page as the error of the iteration', async () => {
    let n = 0;
    const { lattice } = client((req) =>
      ++n === 1
        ? pagedKeys(4, 2)(req)
        : json(400, { error: { code: 'validation_error', message: 'bad cursor', step: 'validation' } }),
    );
    const ids: string[] = [];
    try {
      for await (const key of lattice.organization.publicKeys.list({ limit: 2 })) ids.push(key.id);
      expect.fail('expected the second page to fail');
    } catch (err) {
      expect((err as { code: string }).code).to.equal('validation_error');
    }
    expect(ids).to.deep.equal(['k0', 'k1']);
  });
});
