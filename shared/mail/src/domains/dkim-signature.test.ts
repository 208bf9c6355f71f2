// Proof that a domain's key and its DKIM record are what a verifier needs: a message signed
// with nodemailer's DKIM signer and the key's signingKey() fields verifies with mailauth
// against the published record, and fails against another domain's.
import { expect } from 'chai';
import { dkimVerify } from 'mailauth/lib/dkim/verify.js';
import DKIM from 'nodemailer/lib/dkim/index.js';
import { type DkimKeyPair, generateDkimKeyPair } from './dkim-key.ts';
import { domainRecords } from './domain-records.ts';

const SETTINGS = { returnPathMx: 'mx.lattice.example', spfInclude: 'spf.lattice.example' };
const MESSAGE = [
  'From: Ann <ann@mail.example.org>',
  'To: bob@example.com',
  'Subject: signed',
  'Date: Tue, 24 Nov 2026 10:00:00 +0000',
  'Message-ID: <0b9c6b1e-2c3e-4a51-9a57-1c2d3e4f5a6b@mail.example.org>',
  'MIME-Version: 1.0',
  'Content-Type: text/html; charset=utf-8',
  '',
  '<p>Hello</p>',
  '',
].join('\r\n');

async function sign(pair: DkimKeyPair, selector: string): Promise<string> {
  const signer = new DKIM({
    domainName: 'mail.example.org',
    keySelector: selector,
    privateKey: pair.privateKeyPem,
  });
  const chunks: Buffer[] = [];
  for await (const chunk of signer.sign(MESSAGE)) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** A resolver answering one TXT record as a DNS host publishes it: split into 255-octet strings. */
function resolverOf(name: string, value: string) {
  return async (domain: string, type: string) => {
    if (type === 'TXT' && domain === name) return [value.match(/.{1,255}/g)!];
    throw Object.assign(new Error(`no ${type} at ${domain}`), { code: 'ENOTFOUND' });
  };
}

describe('DKIM key and record', function () {
  this.timeout(20_000);
  let pair: DkimKeyPair;
  let other: DkimKeyPair;

  before(async () => {
    [pair, other] = await Promise.all([generateDkimKeyPair(), generateDkimKeyPair()]);
  });

  it('makes a 2048-bit RSA pair: PKCS#8 PEM private key, base64 DER SPKI public key', async () => {
    expect(pair.privateKeyPem).to.match(/^-----BEGIN PRIVATE KEY-----\n/);
    const der = Buffer.from(pair.publicKeyBase64, 'base64');
    expect(der.toString('base64')).to.equal(pair.publicKeyBase64);
    const { createPublicKey } = await import('node:crypto');
    const key = createPublicKey({ key: der, format: 'der', type: 'spki' });
    expect(key.asymmetricKeyDetails?.modulusLength).to.equal(2048);
    expect(other.publicKeyBase64).to.not.equal(pair.publicKeyBase64);
  });

  it('signs messages that verify against the published DKIM record, and not against another key', async () => {
    const [dkim] = domainRecords(
      { name: 'mail.example.org', selector: 'l20261124', publicKeyBase64: pair.publicKeyBase64 },
      SETTINGS,
    );
    const signed = await sign(pair, 'l20261124');
    const pass = await dkimVerify(signed, { resolver: resolverOf(dkim!.name, dkim!.value) });
    expect(pass.results).to.have.length(1);
    expect(pass.results[0]!.status.result).to.equal('pass');
    expect(pass.results[0]!.signingDomain).to.equal('mail.example.org');
    expect(pass.results[0]!.selector).to.equal('l20261124');

    const [foreign] = domainRecords(
      { name: 'mail.example.org', selector: 'l20261124', publicKeyBase64: other.publicKeyBase64 },
      SETTINGS,
    );
    const fail = await dkimVerify(signed, { resolver: resolverOf(foreign!.name, foreign!.value) });
    expect(fail.results[0]!.status.result).to.equal('fail');
  });
});
