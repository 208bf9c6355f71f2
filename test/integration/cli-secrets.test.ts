// `lattice secrets reseal` and `lattice secrets generate` as an operator runs them, against real
// PostgreSQL. Reseal works on a whole database, so these tests run it on a database of their own
// (made and dropped here): rows other tests sealed with keys of their own must not be in it.
// Besides the mail toolkit's sealed values, it covers the realtime token signing keys, including
// one an older version stored in plain text, which reseal seals (and clears) like the others.
import { createPublicKey, randomBytes, randomUUID } from 'node:crypto';
import { SEALED_COLUMNS } from '@lattice/cli';
import {
  createLogger,
  type Environment,
  generateSecretKeyEntry,
  openSecret,
  parseSecretKeys,
} from '@lattice/core';
import { testConfig, uniqueName } from '@lattice/core/testing';
import {
  createPostgresDomainStore,
  createPostgresWebhookEndpointStore,
  signWebhook,
  WEBHOOK_SECRET_PURPOSE,
  webhookSecretKey,
} from '@lattice/mail';
import {
  createPostgresNamespaceRepository,
  SIGNING_KEY_SEAL_PURPOSE,
  type SigningKeyStore,
  verifyRealtimeToken,
} from '@lattice/realtime';
import { createRealtimeHttpWithoutPublishing } from '@lattice/realtime/testing';
import { bootstrapProduct, type Db } from '@lattice/store';
import { type ThrowawayDatabase, throwawayDatabase } from '@lattice/store/testing';
import { expect } from 'chai';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { run } from '../support/lattice-process.ts';

const config = testConfig();

describe('lattice secrets', function () {
  this.timeout(120_000);
  const k0 = generateSecretKeyEntry('k0');
  const k1 = generateSecretKeyEntry('k1');
  let scratch: ThrowawayDatabase;
  let db: Db;
  let productId: string;
  const endpoints: Array<{ id: string; secret: string }> = [];
  let domain: { id: string; publicKey: string };
  // Delegated tokens minted before the reseal: one with a plaintext key, one with a k0-sealed key.
  const tokens: Array<{ environment: Environment; token: string }> = [];
  const legacyKey = { kid: `production-${randomUUID()}`, secret: randomBytes(32).toString('base64url') };

  const reseal = (keys: string, args: string[] = []) =>
    run(['secrets', 'reseal', ...args], {
      DATABASE_URL: scratch.url,
      LATTICE_SECRET_KEYS: keys,
      LOG_LEVEL: 'info',
    });
  const sealedValues = async () => [
    ...(await db('mail_webhook_endpoints').pluck('secret_sealed')),
    ...(await db('mail_domains').pluck('dkim_private_key_sealed')),
    ...(await db('realtime_signing_keys').orderBy('kid').select('secret', 'secret_sealed')),
  ];
  /** The signing keys as the edge and the gateways read them, with this keyring. */
  const signingKeys = (keys: string): SigningKeyStore =>
    createRealtimeHttpWithoutPublishing({
      db,
      logger: createLogger({ name: 'reseal-test', level: 'silent' }),
      keyring: parseSecretKeys(keys),
      gatewayUrls: config.gatewayUrls,
    }).signingKeys;
  const verifiesWith = async (keys: string, t: { environment: Environment; token: string }) => {
    const kid = JSON.parse(Buffer.from(t.token.split('.')[0]!, 'base64url').toString()).kid as string;
    const key = await signingKeys(keys).byKid(t.environment, kid);
    return 'claims' in verifyRealtimeToken(t.token, t.environment, () => key, Date.now());
  };

  before(async () => {
    scratch = await throwawayDatabase(config.databaseUrl, uniqueName('lattice_reseal'));
    db = scratch.db;
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

    // Production's signing key as an older version stored it (plain text, before migration
    // 0009); development's created now, sealed under k0. A token minted with each, as the edge does.
    await db('realtime_signing_keys').insert({ ...legacyKey, environment: 'production' });
    await createPostgresNamespaceRepository(db).put(productId, 'chat', {
      presence: false,
      clientEvents: false,
      historyWindowSeconds: 0,
      archiveDays: 0,
    });
    const realtime = createRealtimeHttpWithoutPublishing({
      db,
      logger: createLogger({ name: 'reseal-test', level: 'silent' }),
      keyring: ring0,
      gatewayUrls: config.gatewayUrls,
    });
    for (const environment of ['production', 'development'] as const) {
      const { token } = await realtime.tokens.issue({
        productId,
        environment,
        body: { subject: 'ann', channels: [{ name: 'chat:room', ops: ['subscribe'] }] },
      });
      tokens.push({ environment, token });
    }
    expect(await realtime.signingKeys.active('production')).to.deep.equal(legacyKey);
  });

  after(() => scratch?.drop());

  it('lists every sealed column of the schema', async () => {
    const columns = (await db('information_schema.columns')
      .where({ table_schema: 'public' })
      .andWhereLike('column_name', '%\\_sealed')
      .select('table_name', 'column_name')) as Array<{ table_name: string; column_name: string }>;
    expect(columns.map((c) => `${c.table_name}.${c.column_name}`).sort()).to.deep.equal(
      SEALED_COLUMNS.map((c) => `${c.table}.${c.column}`).sort(),
    );
  });

  it('refuses, naming the kid and changing nothing, when the keyring lacks a kid in use', async () => {
    const before = await sealedValues();
    const r = await reseal(k1);
    expect(r.code).to.equal(1);
    expect(r.stderr).to.match(/mail_webhook_endpoints\.secret_sealed: 3 value\(s\) sealed with k0/);
    expect(r.stderr).to.match(/mail_domains\.dkim_private_key_sealed: 1 value\(s\) sealed with k0/);
    expect(r.stderr).to.match(/realtime_signing_keys\.secret_sealed: 1 value\(s\) sealed with k0/);
    expect(r.stderr).to.match(
      /realtime_signing_keys\.secret_sealed: 1 under k0, 1 in plain text \(current: k1\)/,
    );
    expect(r.stderr).to.match(/nothing was changed/);
    expect(r.stderr).to.not.match(/at .*\.ts:\d+/); // a message, not a stack
    expect(r.stdout).to.equal('');
    expect(await sealedValues()).to.deep.equal(before);
  });

  it('reseals everything under the current kid in batches, then the old key can go', async () => {
    // Before it, the tokens verify too: the plaintext key is read as it is.
    for (const t of tokens) expect(await verifiesWith(`${k1},${k0}`, t), t.environment).to.equal(true);
    const r = await reseal(`${k1},${k0}`, ['--batch-size', '2']);
    expect(r.code, r.stderr).to.equal(0);
    const lines = r.stdout.trim().split('\n');
    expect(JSON.parse(lines[lines.length - 1]!)).to.deep.equal({
      resealed: { mail_webhook_endpoints: 3, mail_domains: 1, realtime_signing_keys: 2 },
      kid: 'k1',
    });
    // Progress on stderr, batch by batch (3 endpoints in batches of 2); no secret in any output.
    expect(r.stderr).to.match(/mail_webhook_endpoints\.secret_sealed: 3 under k0 \(current: k1\)/);
    expect(r.stderr.match(/mail_webhook_endpoints: resealed \d+ so far/g)).to.have.length(2);
    for (const secret of [k0, k1, ...endpoints.map((e) => e.secret), `:${legacyKey.secret}`]) {
      expect(r.stdout + r.stderr).to.not.include(secret.slice(secret.indexOf(':') + 1, 20));
    }
    for (const value of [
      ...(await db('mail_webhook_endpoints').pluck('secret_sealed')),
      ...(await db('mail_domains').pluck('dkim_private_key_sealed')),
      ...(await db('realtime_signing_keys').pluck('secret_sealed')),
    ])
      expect(value.startsWith('k1.')).to.equal(true);

    // No signing key is left in plain text; the one that was is now sealed, the same key.
    expect(await db('realtime_signing_keys').whereNotNull('secret').count({ n: '*' })).to.deep.equal([
      { n: '0' },
    ]);
    const legacy = await db('realtime_signing_keys').where({ kid: legacyKey.kid }).first('secret_sealed');
    expect(openSecret(parseSecretKeys(k1), SIGNING_KEY_SEAL_PURPOSE, legacy.secret_sealed)).to.equal(
      legacyKey.secret,
    );
    // Tokens minted before still verify, with k0 gone (and on a process that opened nothing yet).
    for (const t of tokens) expect(await verifiesWith(k1, t), t.environment).to.equal(true);

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
      resealed: { mail_webhook_endpoints: 0, mail_domains: 0, realtime_signing_keys: 0 },
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
