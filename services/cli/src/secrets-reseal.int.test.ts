// resealAll against a write that lands between its read and its write: the row is not
// overwritten with a reseal of the value it no longer holds (sealed, or still in plain text); the
// next pass reseals what it holds now. (The command end to end: test/integration/cli-secrets.test.ts.)
// A database of its own, as resealing covers a whole database.
import { randomUUID } from 'node:crypto';
import {
  generateSecretKeyEntry,
  openSecret,
  parseSecretKeys,
  type SecretKeyring,
  sealSecret,
} from '@lattice/core';
import { testConfig, uniqueName } from '@lattice/core/testing';
import { createPostgresWebhookEndpointStore, WEBHOOK_SECRET_PURPOSE } from '@lattice/mail';
import { SIGNING_KEY_SEAL_PURPOSE } from '@lattice/realtime';
import { bootstrapProduct, type Db } from '@lattice/store';
import { type ThrowawayDatabase, throwawayDatabase } from '@lattice/store/testing';
import { expect } from 'chai';
import type { Knex } from 'knex';
import { SEALED_COLUMNS } from './sealed-columns.ts';
import { resealAll } from './secrets-reseal.ts';

describe('resealAll', function () {
  this.timeout(60_000);
  const config = testConfig();
  const database = uniqueName('lattice_reseal_race').replace(/[^a-z0-9_]/g, '_');
  let scratch: ThrowawayDatabase;
  let db: Db;

  before(async () => {
    scratch = await throwawayDatabase(config.databaseUrl, database);
    db = scratch.db;
  });
  after(() => scratch?.drop());

  /** Resolves once a statement of the database waits on a lock. */
  async function lockWaited(): Promise<void> {
    for (let waiting = 0; waiting === 0; ) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      const [row] = (await db('pg_stat_activity')
        .where({ datname: database, wait_event_type: 'Lock' })
        .count({ n: '*' })) as Array<{ n: string }>;
      waiting = Number(row!.n);
    }
  }

  /**
   * resealAll while another writer changes a row (`change`, in its own transaction) and holds its
   * lock until resealAll's write waits on it, then commits.
   */
  async function resealRacing(ring: SecretKeyring, change: (trx: Knex.Transaction) => Promise<unknown>) {
    const trx = await db.transaction();
    await change(trx);
    const progress: string[] = [];
    const resealing = resealAll({
      db,
      keyring: ring,
      columns: SEALED_COLUMNS,
      progress: (l) => progress.push(l),
    });
    await lockWaited();
    await trx.commit();
    return { outcome: await resealing, progress };
  }

  it('leaves a row changed between its read and its write to the next pass', async () => {
    const k0 = generateSecretKeyEntry('k0');
    const old = parseSecretKeys(k0);
    const ring = parseSecretKeys(`${generateSecretKeyEntry('k1')},${k0}`);
    const { product_id: productId } = await bootstrapProduct(db, { name: uniqueName('race') });
    const { endpoint } = await createPostgresWebhookEndpointStore(db, { keyring: old }).create(productId, {
      url: 'https://hooks.example.test/race',
      events: ['email.delivered'],
      description: null,
      enabled: true,
    });

    const { outcome, progress } = await resealRacing(ring, (trx) =>
      trx('mail_webhook_endpoints')
        .where({ id: endpoint.id })
        .update({ secret_sealed: sealSecret(old, WEBHOOK_SECRET_PURPOSE, 'whsec_changed') }),
    );

    expect(outcome).to.deep.equal({
      kid: 'k1',
      resealed: { mail_webhook_endpoints: 1, mail_domains: 0, realtime_signing_keys: 0 },
    });
    expect(progress).to.include('mail_webhook_endpoints: 1 row(s) changed while read; reading again');
    const sealed = (await db('mail_webhook_endpoints').where({ id: endpoint.id }).first('secret_sealed'))
      .secret_sealed as string;
    expect(sealed.startsWith('k1.')).to.equal(true);
    expect(openSecret(ring, WEBHOOK_SECRET_PURPOSE, sealed)).to.equal('whsec_changed');
  });

  it('seals a plaintext value and clears it, a plaintext changed meanwhile on the next pass', async () => {
    const ring = parseSecretKeys(generateSecretKeyEntry('k1'));
    const kid = `development-${randomUUID()}`;
    await db('realtime_signing_keys').insert({ kid, environment: 'development', secret: 'first' });

    const { outcome, progress } = await resealRacing(ring, (trx) =>
      trx('realtime_signing_keys').where({ kid }).update({ secret: 'changed' }),
    );

    expect(outcome.resealed.realtime_signing_keys).to.equal(1);
    expect(progress).to.include('realtime_signing_keys: 1 row(s) changed while read; reading again');
    const row = await db('realtime_signing_keys').where({ kid }).first('secret', 'secret_sealed');
    expect(row.secret).to.equal(null);
    expect(openSecret(ring, SIGNING_KEY_SEAL_PURPOSE, row.secret_sealed)).to.equal('changed');
  });
});
