// The demo product of `lattice start` sends from a verified domain, so that domain must end with
// a DKIM key: made with the product, or on the next start for a demo product made before.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger, parseSecretKeys } from '@lattice/core';
import { testConfig } from '@lattice/core/testing';
import { createPostgresDomainStore } from '@lattice/mail';
import { createDb, type Db, migrateLatest } from '@lattice/store';
import { expect } from 'chai';
import { DEMO_DOMAIN, ensureDemoProduct } from './demo-product.ts';

describe('demo product', function () {
  this.timeout(30_000);
  const keyring = parseSecretKeys(testConfig().secretKeys);
  let db: Db;

  before(async () => {
    db = createDb({ databaseUrl: testConfig().databaseUrl });
    await migrateLatest(db, createLogger({ name: 't', level: 'silent' }));
  });
  after(() => db.destroy());

  const domainOf = (productId: string) => db('mail_domains').where({ product_id: productId }).first();

  it('gives the demo domain a DKIM key when the product is made, and to one made without a key on the next start', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'lattice-demo-'));
    const { demo, created } = await ensureDemoProduct(db, dataDir, keyring);
    expect(created).to.equal(true);
    const made = await domainOf(demo.product_id);
    expect(made).to.include({ name: DEMO_DOMAIN, status: 'verified' });
    expect(made.dkim_selector).to.match(/^l\d{8}$/);
    const key = await createPostgresDomainStore(db, { keyring }).signingKey(demo.product_id, made.id);
    expect(key?.domainName).to.equal(DEMO_DOMAIN);

    // As a demo product made before domains had keys.
    await db('mail_domains')
      .where({ id: made.id })
      .update({ dkim_selector: null, dkim_private_key_sealed: null, dkim_public_key: null });
    const again = await ensureDemoProduct(db, dataDir, keyring);
    expect(again).to.deep.equal({ demo, created: false });
    const rekeyed = await domainOf(demo.product_id);
    expect(rekeyed.dkim_selector).to.match(/^l\d{8}$/);
    expect(rekeyed.dkim_public_key).to.be.a('string').and.not.equal(made.dkim_public_key);
  });
});
