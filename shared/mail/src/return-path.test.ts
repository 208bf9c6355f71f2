import { expect } from 'chai';
import {
  emailIdFromMessageId,
  emailIdFromVerp,
  messageIdFor,
  returnPathDomain,
  verpAddress,
} from './return-path.ts';

describe('mail return path', () => {
  const id = '0b9f8a52-7c1e-4f59-9a49-2a1d5e2b7c10';

  it('round-trips the email id through the VERP address and the Message-ID', () => {
    expect(returnPathDomain('example.org')).to.equal('send.example.org');
    expect(verpAddress(id, 'example.org')).to.equal(`bounce+${id}@send.example.org`);
    expect(emailIdFromVerp(verpAddress(id, 'example.org'))).to.equal(id);
    expect(emailIdFromVerp(`<BOUNCE+${id.toUpperCase()}@SEND.EXAMPLE.ORG>`)).to.equal(id);
    expect(emailIdFromMessageId(messageIdFor(id, 'example.org'))).to.equal(id);
  });

  it('finds nothing in addresses and ids that are not ours', () => {
    expect(emailIdFromVerp('postmaster@example.org')).to.equal(null);
    expect(emailIdFromVerp('bounce+not-a-uuid@send.example.org')).to.equal(null);
    expect(emailIdFromMessageId('<CAF=abc@mail.gmail.com>')).to.equal(null);
  });
});
