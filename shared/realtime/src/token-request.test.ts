import { expect } from 'chai';
import { type NamespacePolicy, narrowGrants, parseTokenRequest } from './token-request.ts';

const ok = (body: unknown) => {
  const r = parseTokenRequest(body);
  if ('fields' in r) throw new Error(JSON.stringify(r.fields));
  return r.request;
};
const fieldsOf = (body: unknown) => {
  const r = parseTokenRequest(body);
  return 'fields' in r ? r.fields.map((f) => f.path) : [];
};
const base = { subject: 'user-1', channels: [{ name: 'chat:room', ops: ['subscribe'] }] };

describe('token request validation', () => {
  it('accepts a minimal request and defaults ttl to 3600', () => {
    expect(ok(base)).to.deep.equal({ subject: 'user-1', channels: base.channels, ttlSeconds: 3600 });
  });

  it('bounds the subject at 1 and 128 characters of a-z A-Z 0-9 . _ - with no colon', () => {
    expect(ok({ ...base, subject: 'a' }).subject).to.equal('a');
    expect(ok({ ...base, subject: 'x'.repeat(128) }).subject).to.have.length(128);
    expect(fieldsOf({ ...base, subject: 'x'.repeat(129) })).to.deep.equal(['body.subject']);
    expect(fieldsOf({ ...base, subject: '' })).to.deep.equal(['body.subject']);
    expect(fieldsOf({ ...base, subject: 'ext:user' })).to.deep.equal(['body.subject']);
    expect(fieldsOf({ channels: base.channels })).to.deep.equal(['body.subject']);
  });

  it('bounds channels at 1 and 32 entries of concrete names', () => {
    const many = (n: number) =>
      Array.from({ length: n }, (_, i) => ({ name: `chat:r${i}`, ops: ['subscribe'] }));
    expect(ok({ ...base, channels: many(32) }).channels).to.have.length(32);
    expect(fieldsOf({ ...base, channels: many(33) })).to.deep.equal(['body.channels']);
    expect(fieldsOf({ ...base, channels: [] })).to.deep.equal(['body.channels']);
    expect(fieldsOf({ ...base, channels: [{ name: 'chat:*', ops: ['subscribe'] }] })).to.deep.equal([
      'body.channels[0].name',
    ]);
    expect(fieldsOf({ ...base, channels: [{ name: 'room', ops: ['subscribe'] }] })).to.deep.equal([
      'body.channels[0].name',
    ]);
  });

  it('bounds ops at 1 to 4 distinct known operations', () => {
    const ops = (list: unknown) => ({ ...base, channels: [{ name: 'chat:room', ops: list }] });
    expect(ok(ops(['subscribe', 'publish', 'presence', 'history'])).channels[0]!.ops).to.have.length(4);
    expect(fieldsOf(ops([]))).to.deep.equal(['body.channels[0].ops']);
    expect(fieldsOf(ops(['subscribe', 'subscribe']))).to.deep.equal(['body.channels[0].ops']);
    expect(fieldsOf(ops(['subscribe', 'publish', 'presence', 'history', 'subscribe']))).to.deep.equal([
      'body.channels[0].ops',
    ]);
    expect(fieldsOf(ops(['admin']))).to.deep.equal(['body.channels[0].ops']);
  });

  it('bounds ttlSeconds at 60 and 3600', () => {
    expect(ok({ ...base, ttlSeconds: 60 }).ttlSeconds).to.equal(60);
    expect(ok({ ...base, ttlSeconds: 3600 }).ttlSeconds).to.equal(3600);
    expect(fieldsOf({ ...base, ttlSeconds: 59 })).to.deep.equal(['body.ttlSeconds']);
    expect(fieldsOf({ ...base, ttlSeconds: 3601 })).to.deep.equal(['body.ttlSeconds']);
    expect(fieldsOf({ ...base, ttlSeconds: 90.5 })).to.deep.equal(['body.ttlSeconds']);
  });

  it('refuses unknown fields and non-objects', () => {
    expect(fieldsOf({ ...base, admin: true })).to.deep.equal(['body.admin']);
    expect(fieldsOf([])).to.deep.equal(['body']);
  });
});

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
