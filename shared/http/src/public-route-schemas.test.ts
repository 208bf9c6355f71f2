import { ApiError } from '@lattice/core';
import { expect } from 'chai';
import { loadSchemaRegistry } from './schema-registry.ts';
import { checkRequest, routeValidators } from './validation.ts';

// The public routes' request schemas hold every bound of the spec; the realtime services trust
// what they admit. These run the very validators both surfaces use.
const schemas = loadSchemaRegistry();

function validate(bodySchema: string, body: unknown): { body: unknown; fields: string[] } {
  const v = routeValidators({ request: { body: bodySchema } }, schemas);
  const copy = structuredClone(body);
  try {
    checkRequest(v, { params: {}, query: {}, body: copy });
    return { body: copy, fields: [] };
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    // One path per failing field, however many of its keywords failed.
    return { body: copy, fields: [...new Set((err.fields ?? []).map((f) => f.path))] };
  }
}

const ok = (body: unknown) => {
  const r = validate('realtime-token-request', body);
  if (r.fields.length > 0) throw new Error(JSON.stringify(r.fields));
  return r.body as { subject: string; channels: unknown[]; ttlSeconds: number };
};
const fieldsOf = (body: unknown) => validate('realtime-token-request', body).fields;
const base = { subject: 'user-1', channels: [{ name: 'chat:room', ops: ['subscribe'] }] };

describe('token request schema', () => {
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
    expect(
      (ok(ops(['subscribe', 'publish', 'presence', 'history'])).channels[0] as { ops: string[] }).ops,
    ).to.have.length(4);
    expect(fieldsOf(ops([]))).to.deep.equal(['body.channels[0].ops']);
    expect(fieldsOf(ops(['subscribe', 'subscribe']))).to.deep.equal(['body.channels[0].ops']);
    expect(fieldsOf(ops(['subscribe', 'publish', 'presence', 'history', 'subscribe']))).to.include(
      'body.channels[0].ops',
    );
    expect(fieldsOf(ops(['admin']))).to.deep.equal(['body.channels[0].ops[0]']);
  });

  it('bounds ttlSeconds at 60 and 3600, integers only', () => {
    expect(ok({ ...base, ttlSeconds: 60 }).ttlSeconds).to.equal(60);
    expect(ok({ ...base, ttlSeconds: 3600 }).ttlSeconds).to.equal(3600);
    expect(fieldsOf({ ...base, ttlSeconds: 59 })).to.deep.equal(['body.ttlSeconds']);
    expect(fieldsOf({ ...base, ttlSeconds: 3601 })).to.deep.equal(['body.ttlSeconds']);
    expect(fieldsOf({ ...base, ttlSeconds: 90.5 })).to.deep.equal(['body.ttlSeconds']);
    expect(fieldsOf({ ...base, ttlSeconds: '90' })).to.deep.equal(['body.ttlSeconds']);
  });

  it('refuses unknown fields at each level and non-objects', () => {
    expect(fieldsOf({ ...base, admin: true })).to.deep.equal(['body.admin']);
    expect(fieldsOf({ ...base, channels: [{ name: 'chat:a', ops: ['subscribe'], x: 1 }] })).to.deep.equal([
      'body.channels[0].x',
    ]);
    expect(fieldsOf([])).to.deep.equal(['body']);
    expect(fieldsOf({ ...base, environment: 'production' })).to.deep.equal(['body.environment']);
    expect(
      validate('realtime-token-request-management', { ...base, environment: 'development' }).fields,
    ).to.deep.equal([]);
  });
});

describe('publish body schema', () => {
  const fields = (body: unknown) => validate('realtime-message-publish', body).fields;

  it('takes {channel, data, name?}: data any JSON value, name 1 to 128 characters', () => {
    expect(fields({ channel: 'chat:a', data: { x: [1, 'é'] } })).to.deep.equal([]);
    expect(fields({ channel: 'chat:a', data: null, name: 'n'.repeat(128) })).to.deep.equal([]);
    expect(fields({ channel: 'chat:a', data: 1, name: 'n'.repeat(129) })).to.deep.equal(['body.name']);
    expect(fields({ channel: 'chat:a', data: 1, name: '' })).to.deep.equal(['body.name']);
    expect(fields({ channel: 'chat:a', data: 1, name: null })).to.deep.equal(['body.name']);
  });

  it('names every failing field', () => {
    expect(fields({ channel: 'nochannel', name: '', extra: 1 }).sort()).to.deep.equal(
      ['body.channel', 'body.data', 'body.extra', 'body.name'].sort(),
    );
    expect(fields([])).to.deep.equal(['body']);
  });

  it('bounds channel names at 128 characters with a namespace segment', () => {
    expect(fields({ channel: `chat:${'a'.repeat(123)}`, data: 1 })).to.deep.equal([]);
    expect(fields({ channel: `chat:${'a'.repeat(124)}`, data: 1 })).to.deep.equal(['body.channel']);
    expect(fields({ channel: 'chat:a b', data: 1 })).to.deep.equal(['body.channel']);
    expect(fields({ channel: ':a', data: 1 })).to.deep.equal(['body.channel']);
  });
});

describe('failure wording', () => {
  it('words a malformed channel or subject for people, not as a regular expression', () => {
    const messages = (schema: string, body: unknown) => {
      try {
        checkRequest(routeValidators({ request: { body: schema } }, schemas), {
          params: {},
          query: {},
          body,
        });
      } catch (err) {
        return ((err as ApiError).fields ?? []).map((f) => f.message);
      }
      return [];
    };
    const channel = messages('realtime-message-publish', { channel: 'room', data: 1 });
    expect(channel).to.have.length(1);
    expect(channel[0])
      .to.match(/^must be namespace:rest/)
      .and.not.match(/\^|\$/);
    expect(messages('realtime-token-request', { ...base, subject: 'ext:ann' })).to.deep.equal([
      'may contain only letters, digits and . _ - (no colon)',
    ]);
  });
});
