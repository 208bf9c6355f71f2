// `lattice secrets reseal` and `lattice secrets generate` as an operator runs them, against real
// PostgreSQL. Reseal works on a whole database, so these tests run it on a database of their own
// (made and dropped here): rows other tests sealed with keys of their own must not be in it.
import { createPublicKey } from 'node:crypto';
import { createLogger, generateSecretKeyEntry, openSecret, parseSecretKeys } from '@lattice/core';
import { testConfig, uniqueName } from '@lattice/core/testing';
import {
  createPostgresDomainStore,
  createPostgresWebhookEndpointStore,
  MAIL_SEALED_COLUMNS,
  signWebhook,
  WEBHOOK_SECRET_PURPOSE,
  webhookSecretKey,
} from '@lattice/mail';
import { bootstrapProduct, createDb, type Db, migrateLatest } from '@lattice/store';
import { expect } from 'chai';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { run } from '../support/lattice-process.ts';

const config = testConfig();

describe('lattice secrets', function () {
  this.timeout(120_000);
  const k0 = generateSecretKeyEntry('k0');
  const k1 = generateSecretKeyEntry('k1');
  const database = uniqueName('lattice_reseal').replace(/[^a-z0-9_]/g, '_');
  const databaseUrl = (() => {
    const url = new URL(config.databaseUrl);
    url.pathname = `/${database}`;
    return url.toString();
  })();
  let server: Db;
  let db: Db;
  let productId: string;
  const endpoints: Array<{ id: string; secret: string }> = [];
  let domain: { id: string; publicKey: string };

  const reseal = (keys: string, args: string[] = []) =>
    run(['secrets', 'reseal', ...args], {
      DATABASE_URL: databaseUrl,
      LATTICE_SECRET_KEYS: keys,
      LOG_LEVEL: 'info',
    });
  const sealedValues = async () => [
    ...(await db('mail_webhook_endpoints').pluck('secret_sealed')),
    ...(await db('mail_domains').pluck('dkim_private_key_sealed')),
  ];

  before(async () => {
    server = createDb({ databaseUrl: config.databaseUrl });
    await server.raw('create database ??', [database]);
    db = createDb({ databaseUrl });
    await migrateLatest(db, createLogger({ name: 'reseal-test', level: 'silent' }));
    productId = (await bootstrapProduct(db, { name: uniqueName('reseal') })).product_id;
    // Sealed under k0 through the stores the platform uses, as before a rotation.
    const ring0 = parseSecretKeys(k0);
    const store = createPostgresWebhookEndpointStore(db, { keyring: ring0 });
    for (const n of [1, 2, 3]) {
      const made = await store.create(productId, {
        url: `https://hooks.example.test/${n}`,
        events: ['email.delivered'],
        description: null,
        enabled: true,
      });
      endpoints.push({ id: made.endpoint.id, secret: made.secret });
    }
    // A deleted endpoint keeps its sealed secret: it is resealed too.
    await store.delete(productId, endpoints[2]!.id);
    const made = await createPostgresDomainStore(db, { keyring: ring0 }).create(productId, {
      name: 'mail.reseal.test',
      openTracking: false,
      clickTracking: false,
    });
    domain = { id: made!.id, publicKey: made!.dkimPublicKey };
  });

  after(async () => {
    await db?.destroy();
    await server?.raw('drop database if exists ?? with (force)', [database]);
    await server?.destroy();
  });

  it('lists every sealed column of the schema', async () => {
    const columns = (await db('information_schema.columns')
      .where({ table_schema: 'public' })
      .andWhereLike('column_name', '%\\_sealed')
      .select('table_name', 'column_name')) as Array<{ table_name: string; column_name: string }>;
    expect(columns.map((c) => `${c.table_name}.${c.column_name}`).sort()).to.deep.equal(
      MAIL_SEALED_COLUMNS.map((c) => `${c.table}.${c.column}`).sort(),
    );
  });

  it('refuses, naming the kid and changing nothing, when the keyring lacks a kid in use', async () => {
    const before = await sealedValues();
    const r = await reseal(k1);
    expect(r.code).to.equal(1);
    expect(r.stderr).to.match(/mail_webhook_endpoints\.secret_sealed: 3 value\(s\) sealed with k0/);
    expect(r.stderr).to.match(/mail_domains\.dkim_private_key_sealed: 1 value\(s\) sealed with k0/);
    expect(r.stderr).to.match(/nothing was changed/);
    expect(r.stderr).to.not.match(/at .*\.ts:\d+/); // a message, not a stack
    expect(r.stdout).to.equal('');
    expect(await sealedValues()).to.deep.equal(before);
  });

  it('reseals everything under the current kid in batches, then the old key can go', async () => {
    const r = await reseal(`${k1},${k0}`, ['--batch-size', '2']);
    expect(r.code, r.stderr).to.equal(0);
    const lines = r.stdout.trim().split('\n');
    expect(JSON.parse(lines[lines.length - 1]!)).to.deep.equal({
      resealed: { mail_webhook_endpoints: 3, mail_domains: 1 },
      kid: 'k1',
    });
    // Progress on stderr, batch by batch (3 endpoints in batches of 2); no secret in any output.
    expect(r.stderr).to.match(/mail_webhook_endpoints\.secret_sealed: 3 under k0 \(current: k1\)/);
    expect(r.stderr.match(/mail_webhook_endpoints: resealed \d+ so far/g)).to.have.length(2);
    for (const secret of [k0, k1, ...endpoints.map((e) => e.secret)]) {
      expect(r.stdout + r.stderr).to.not.include(secret.slice(secret.indexOf(':') + 1, 20));
    }
    for (const value of await sealedValues()) expect(value.startsWith('k1.')).to.equal(true);

    // With k0 gone, each webhook secret opens, and what it signs verifies as Standard Webhooks.
    const ring1 = parseSecretKeys(k1);
    for (const e of endpoints) {
      const row = await db('mail_webhook_endpoints').where({ id: e.id }).first('secret_sealed');
      const opened = openSecret(ring1, WEBHOOK_SECRET_PURPOSE, row.secret_sealed);
      expect(opened).to.equal(e.secret);
      const body = JSON.stringify({ type: 'email.delivered', data: { n: e.id } });
      const headers = signWebhook(webhookSecretKey(opened), `msg_${e.id}`, Date.now() / 1000, body);
      expect(new StandardWebhook(e.secret).verify(body, headers)).to.deep.equal(JSON.parse(body));
    }
    // …and the DKIM key opens to the private half of the published public key.
    const key = await createPostgresDomainStore(db, { keyring: ring1 }).signingKey(productId, domain.id);
    expect(
      createPublicKey(key!.privateKey).export({ type: 'spki', format: 'der' }).toString('base64'),
    ).to.equal(domain.publicKey);
  });

  it('reseals nothing the second time', async () => {
    const before = await sealedValues();
    const r = await reseal(k1);
    expect(r.code, r.stderr).to.equal(0);
    expect(JSON.parse(r.stdout.trim())).to.deep.equal({
      resealed: { mail_webhook_endpoints: 0, mail_domains: 0 },
      kid: 'k1',
    });
    expect(await sealedValues()).to.deep.equal(before);
  });

  it('refuses a keyring that does not parse and a bad batch size with exit 2, without a stack', async () => {
    const bad = await reseal('k1:short');
    expect(bad.code).to.equal(2);
    expect(bad.stderr).to.match(/LATTICE_SECRET_KEYS entry k1 must hold 32 bytes/);
    const batch = await reseal(k1, ['--batch-size', '0']);
    expect(batch.code).to.equal(2);
    expect(batch.stderr).to.match(/--batch-size/);
  });

  it('generate prints one entry the keyring accepts, and refuses a bad kid', async () => {
    const r = await run(['secrets', 'generate', '--kid', 'k2']);
    expect(r.code, r.stderr).to.equal(0);
    expect(r.stdout).to.match(/^k2:[A-Za-z0-9_-]{43}\n$/);
    expect(parseSecretKeys(r.stdout.trim()).currentKid).to.equal('k2');
    const fresh = await run(['secrets', 'generate']);
    expect(parseSecretKeys(`${fresh.stdout.trim()},${r.stdout.trim()}`).currentKid).to.match(/^k[a-z0-9]+$/);
    const bad = await run(['secrets', 'generate', '--kid', 'Bad Kid']);
    expect(bad.code).to.equal(2);
    expect(bad.stderr).to.match(/kid of 1-16 \[a-z0-9\]/);
    expect(bad.stdout).to.equal('');
    expect((await run(['secrets', 'rotate'])).code).to.equal(2);
  });
});
