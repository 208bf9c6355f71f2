// The token signing keys in PostgreSQL: stored sealed with the platform keyring, opened across a
// rotation, and still read from the plaintext column that rows written before migration 0009
// hold (`lattice secrets reseal` seals those: test/integration/cli-secrets.test.ts). A database
// of its own: signing keys are one per environment for the whole database, and these tests seal
// them with keyrings of their own, which the other tests' processes do not hold.
import { randomBytes, randomUUID } from 'node:crypto';
import { generateSecretKeyEntry, parseSecretKeys, SecretKeyError } from '@lattice/core';
import { testConfig, uniqueName } from '@lattice/core/testing';
import type { Db } from '@lattice/store';
import { type ThrowawayDatabase, throwawayDatabase } from '@lattice/store/testing';
import { expect } from 'chai';
import { type SigningKey, signRealtimeToken, verifyRealtimeToken } from './realtime-token.ts';
import { createPostgresSigningKeyStore } from './signing-key-store.ts';

describe('realtime signing keys (PostgreSQL)', function () {
  this.timeout(60_000);
  const config = testConfig();
  const database = uniqueName('lattice_signing_keys').replace(/[^a-z0-9_]/g, '_');
  const k0 = generateSecretKeyEntry('k0');
  const k1 = generateSecretKeyEntry('k1');
  let scratch: ThrowawayDatabase;
  let db: Db;

  before(async () => {
    scratch = await throwawayDatabase(config.databaseUrl, database);
    db = scratch.db;
  });
  after(() => scratch?.drop());
  // Each test starts with no key: one active key per environment is the point of the table.
  beforeEach(() => db('realtime_signing_keys').delete());

  const tokenFor = (key: SigningKey, environment: 'production' | 'development') =>
    signRealtimeToken(
      {
        productId: randomUUID(),
        environment,
        subject: 'ann',
        grants: [{ name: 'chat:room', ops: ['subscribe'] }],
        ttlSeconds: 600,
        nowMs: Date.now(),
      },
      key,
    ).token;

  it('creates exactly one active key per environment, even when asked concurrently', async () => {
    const store = createPostgresSigningKeyStore(db, { keyring: parseSecretKeys(k0) });
    const keys = await Promise.all([
      store.active('development'),
      store.active('development'),
      store.active('production'),
    ]);
    expect(keys[0]).to.deep.equal(keys[1]);
    expect(keys[0]!.kid).to.not.equal(keys[2]!.kid);
    expect(await store.byKid('development', keys[0]!.kid)).to.deep.equal(keys[0]);
    expect(await store.byKid('production', keys[0]!.kid)).to.equal(undefined);
    // Another process (no cache) reads the same keys.
    const other = createPostgresSigningKeyStore(db, { keyring: parseSecretKeys(k0) });
    expect(await other.active('development')).to.deep.equal(keys[0]);
    expect(await other.byKid('production', keys[2]!.kid)).to.deep.equal(keys[2]);
    expect(await other.byKid('development', keys[2]!.kid)).to.equal(undefined);
  });

  it('stores a new key only sealed, under the current kid', async () => {
    const key = await createPostgresSigningKeyStore(db, { keyring: parseSecretKeys(`${k1},${k0}`) }).active(
      'production',
    );
    const row = await db('realtime_signing_keys').where({ kid: key.kid }).first();
    expect(row.secret).to.equal(null);
    expect(row.secret_sealed).to.match(/^k1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    const bytes = Buffer.from(key.secret, 'base64url');
    expect(bytes).to.have.length(32);
    // Every column of the row, as PostgreSQL renders it: no form of the key's bytes in any.
    const raw = (await db.raw('select row_to_json(r)::text as t from realtime_signing_keys r where kid = ?', [
      key.kid,
    ])) as { rows: Array<{ t: string }> };
    const stored = raw.rows[0]!.t;
    expect(stored).to.include(row.secret_sealed);
    for (const form of [key.secret, bytes.toString('base64'), bytes.toString('hex')]) {
      expect(stored).to.not.include(form.slice(0, 12));
    }
  });

  it('verifies a token minted before a rotation once the keyring is k1,k0, and keeps signing with the key', async () => {
    const before = createPostgresSigningKeyStore(db, { keyring: parseSecretKeys(k0) });
    const key = await before.active('production');
    const token = tokenFor(key, 'production');

    const after = createPostgresSigningKeyStore(db, { keyring: parseSecretKeys(`${k1},${k0}`) });
    const found = await after.byKid('production', key.kid);
    expect(found).to.deep.equal(key);
    expect(verifyRealtimeToken(token, 'production', () => found, Date.now())).to.have.property('claims');
    // The active key stays the same (rotating the keyring does not rotate signing keys).
    expect(await after.active('production')).to.deep.equal(key);

    // A keyring without k0 cannot open it: an error naming the key and the kid, not its bytes.
    const without = createPostgresSigningKeyStore(db, { keyring: parseSecretKeys(k1) });
    const failure = await without.byKid('production', key.kid).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(failure).to.be.instanceOf(SecretKeyError);
    expect((failure as Error).message)
      .to.include(key.kid)
      .and.include('k0')
      .and.not.include(key.secret);
  });

  it('reads a key an older version stored in plain text', async () => {
    // As migration 0003's code wrote it.
    const legacy = { kid: `development-${randomUUID()}`, secret: randomBytes(32).toString('base64url') };
    await db('realtime_signing_keys').insert({ ...legacy, environment: 'development' });
    const token = tokenFor(legacy, 'development');

    const store = createPostgresSigningKeyStore(db, { keyring: parseSecretKeys(k0) });
    expect(await store.active('development')).to.deep.equal(legacy);
    const found = await store.byKid('development', legacy.kid);
    expect(found).to.deep.equal(legacy);
    expect(verifyRealtimeToken(token, 'development', () => found, Date.now())).to.have.property('claims');
  });

  it('refuses a row with neither a plaintext nor a sealed key', async () => {
    let refused = false;
    await db('realtime_signing_keys')
      .insert({ kid: `production-${randomUUID()}`, environment: 'production' })
      .catch(() => (refused = true));
    expect(refused).to.equal(true);
  });
});
