// `lattice bootstrap --verified-domain` as a user runs it: the domain gets its DKIM key there,
// sealed with the platform's keyring, so `mail_domain_get` shows the DKIM record at once and a
// message signed with the domain's signing key verifies against that record.
import { createPublicKey } from 'node:crypto';
import { parseSecretKeys } from '@lattice/core';
import { testConfig, uniqueName } from '@lattice/core/testing';
import { createPostgresDomainStore } from '@lattice/mail';
import { startTestManagement, type TestManagement } from '@lattice/management/testing';
import { expect } from 'chai';
import { dkimVerify } from 'mailauth/lib/dkim/verify.js';
import DKIM from 'nodemailer/lib/dkim/index.js';
import { run } from '../support/lattice-process.ts';

interface DomainJson {
  id: string;
  name: string;
  status: string;
  records: Array<{ type: string; name: string; value: string; status: string }>;
}

describe('lattice bootstrap --verified-domain', function () {
  this.timeout(60_000);
  const { secretKeys } = testConfig();
  let t: TestManagement;

  before(async () => {
    t = await startTestManagement({ config: { secretKeys } });
  });
  after(() => t?.close());

  it('makes a verified domain with a DKIM key whose record mail_domain_get shows and a verifier accepts', async () => {
    const r = await run(
      ['bootstrap', '--product', uniqueName('boot-dkim'), '--verified-domain', 'Mail.Example.test'],
      {
        LATTICE_SECRET_KEYS: secretKeys,
      },
    );
    expect(r.code, r.stderr).to.equal(0);
    const printed = JSON.parse(r.stdout) as { product_id: string; owner_token: string };

    const row = await t.db('mail_domains').where({ product_id: printed.product_id }).first();
    expect(row).to.include({ name: 'mail.example.test', status: 'verified' });
    expect(row.dkim_selector).to.match(/^l\d{8}$/);
    expect(row.dkim_private_key_sealed.startsWith(`${parseSecretKeys(secretKeys).currentKid}.`)).to.equal(
      true,
    );

    const list = await t.call<{ data: DomainJson[] }>('GET', '/mail/domains', printed.owner_token);
    const got = await t.call<DomainJson>('GET', `/mail/domains/${row.id}`, printed.owner_token);
    expect(got.status).to.equal(200);
    expect(list.json.data).to.deep.equal([got.json]);
    const [dkim] = got.json.records;
    expect(dkim).to.deep.equal({
      type: 'TXT',
      name: `${row.dkim_selector}._domainkey.mail.example.test`,
      value: `v=DKIM1; k=rsa; p=${row.dkim_public_key}`,
      status: 'verified',
    });

    // The sending path's signing key, opened with the same keyring, signs what the record verifies.
    const store = createPostgresDomainStore(t.db, { keyring: parseSecretKeys(secretKeys) });
    const key = (await store.signingKey(printed.product_id, row.id))!;
    expect(key).to.deep.include({ domainName: 'mail.example.test', keySelector: row.dkim_selector });
    expect(
      createPublicKey(key.privateKey).export({ type: 'spki', format: 'der' }).toString('base64'),
    ).to.equal(row.dkim_public_key);
    const message = 'From: ann@mail.example.test\r\nTo: bob@example.com\r\nSubject: hi\r\n\r\nhello\r\n';
    const chunks: Buffer[] = [];
    for await (const chunk of new DKIM(key).sign(message)) chunks.push(chunk as Buffer);
    const result = await dkimVerify(Buffer.concat(chunks), {
      resolver: async (name, type) => {
        if (type === 'TXT' && name === dkim!.name) return [[dkim!.value]];
        throw Object.assign(new Error('no such record'), { code: 'ENOTFOUND' });
      },
    });
    expect(result.results[0]!.status.result).to.equal('pass');
  });

  it('refuses a keyring it cannot read before making anything, with exit code 2', async () => {
    const name = uniqueName('boot-badkeys');
    const r = await run(['bootstrap', '--product', name, '--verified-domain', 'bad.example.test'], {
      LATTICE_SECRET_KEYS: 'not-a-key',
    });
    expect(r.code).to.equal(2);
    expect(r.stderr).to.match(/LATTICE_SECRET_KEYS/);
    expect(r.stdout).to.equal('');
    expect(await t.db('products').where({ name })).to.deep.equal([]);
  });
});
