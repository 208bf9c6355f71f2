import { expect } from 'chai';
import { splitPublicPath } from './public-path.ts';

describe('splitPublicPath', () => {
  it('splits product, toolkit and the rest', () => {
    expect(splitPublicPath('/p1/mail/emails/9')).to.deep.equal({
      productId: 'p1',
      toolkit: 'mail',
      subPath: '/emails/9',
    });
    expect(splitPublicPath('/p1/mail/')).to.deep.equal({ productId: 'p1', toolkit: 'mail', subPath: '/' });
  });

  it('has no answer without a product and a toolkit segment', () => {
    for (const path of ['', '/', '/p1', '/p1/', '/p1/mail', '//mail/emails', '/p1//emails', 'p1/mail/x'])
      expect(splitPublicPath(path), path).to.equal(null);
  });

  it('decodes the product id, and throws on bad encoding', () => {
    expect(splitPublicPath('/a%2Db/mail/x')?.productId).to.equal('a-b');
    expect(() => splitPublicPath('/%zz/mail/x')).to.throw(URIError);
  });
});
