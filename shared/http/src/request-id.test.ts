import { expect } from 'chai';
import { REQUEST_ID_MAX_LENGTH, requestIdFrom } from './request-id.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('requestIdFrom', () => {
  it('keeps a caller’s printable id of up to 128 characters', () => {
    for (const id of ['a', 'req 42/abc:def', '~!#$%&*', 'x'.repeat(REQUEST_ID_MAX_LENGTH)]) {
      expect(requestIdFrom(id)).to.equal(id);
    }
  });

  it('makes a UUID for no id, an empty one, a longer one, or one with a control or non-ASCII character', () => {
    const refused = [undefined, '', 'x'.repeat(REQUEST_ID_MAX_LENGTH + 1), 'a\nb', 'a\tb', 'é', ['a', 'b']];
    for (const presented of refused) expect(requestIdFrom(presented)).to.match(UUID);
    expect(requestIdFrom(undefined)).to.not.equal(requestIdFrom(undefined));
  });
});
