import { expect } from 'chai';
import { REQUEST_ID_HEADER, requestIdHeaders, requestIdOf } from './record-headers.ts';

describe('request id record header', () => {
  it('is sent only with a request id', () => {
    expect(requestIdHeaders(undefined)).to.equal(undefined);
    expect(requestIdHeaders('req-1')).to.deep.equal({ [REQUEST_ID_HEADER]: 'req-1' });
  });

  it('reads back from a consumed record as Kafka hands it over (bytes), or not at all', () => {
    expect(requestIdOf({ headers: { [REQUEST_ID_HEADER]: Buffer.from('req-1') } })).to.equal('req-1');
    expect(requestIdOf({ headers: { [REQUEST_ID_HEADER]: [Buffer.from('a'), Buffer.from('b')] } })).to.equal(
      'a',
    );
    expect(requestIdOf({ headers: {} })).to.equal(undefined);
    expect(requestIdOf({})).to.equal(undefined);
  });
});
