// Secrets at start (docs/operations.md): a role whose keyring does not open what its database
// holds refuses to start, naming the kid and the remedy; a value that stops opening while it runs
// answers 503 secrets_unavailable, is counted on /metrics and makes /healthz name its purpose; and
// the generated local keyring is shared by every checkout of the user against the same database.
// Each test has a database of its own: realtime signing keys are one per environment for the
// whole database, so corrupting them in the suite's would break every other test.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateSecretKeyEntry } from '@lattice/core';
import { testDatabaseUrl, uniqueName } from '@lattice/core/testing';
import { bootstrapProduct } from '@lattice/store';
import { type ThrowawayDatabase, throwawayDatabase } from '@lattice/store/testing';
import { expect } from 'chai';
import { freePort, run, startPlatform, stopPlatform } from '../support/lattice-process.ts';

describe('secrets at start', function () {
  this.timeout(180_000);
  const databases: ThrowawayDatabase[] = [];
  after(async () => {
    for (const d of databases) await d.drop();
  });

  async function database(label: string): Promise<ThrowawayDatabase> {
    const d = await throwawayDatabase(testDatabaseUrl(), uniqueName(`secrets_${label}`));
    databases.push(d);
    return d;
  }

  async function management(env: Record<string, string>) {
    const port = await freePort();
    const platform = await startPlatform(
      { MANAGEMENT_PORT: String(port), REDIS_KEY_PREFIX: `${uniqueName('secrets')}:`, ...env },
      ['management'],
      'management role running',
    );
    return { ...platform, api: `http://127.0.0.1:${port}` };
  }

  /** A product of the database with a namespace its tokens can name; its owner token. */
  async function ownerToken(api: string, db: ThrowawayDatabase): Promise<string> {
    const token = (await bootstrapProduct(db.db, { name: uniqueName('secrets') })).owner_token;
    const put = await fetch(`${api}/realtime/namespaces/chat`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(put.status).to.equal(201);
    return token;
  }

  const issue = (api: string, token: string) =>
    fetch(`${api}/realtime/tokens`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ subject: 'user-1', channels: [{ name: 'chat:room', ops: ['subscribe'] }] }),
    });

  it('refuses to start with a keyring that lacks the kid that sealed the database, naming it; starts with it', async () => {
    const db = await database('kid');
    const sealer = generateSecretKeyEntry('ka1b2c3d4');
    // A platform with the first keyring seals the database's signing key.
    const first = await management({ DATABASE_URL: db.url, LATTICE_SECRET_KEYS: sealer });
    const token = await ownerToken(first.api, db);
    expect((await issue(first.api, token)).status).to.equal(200);
    expect(await stopPlatform(first.child)).to.equal(0);

    const stranger = generateSecretKeyEntry('kzz');
    const refused = await run(['start', 'management'], {
      DATABASE_URL: db.url,
      LATTICE_SECRET_KEYS: stranger,
      MANAGEMENT_PORT: String(await freePort()),
    });
    expect(refused.code).to.equal(1);
    const lines = refused.stderr
      .trim()
      .split('\n')
      .filter((l) => l.startsWith('lattice:'));
    expect(lines).to.have.length(1);
    expect(lines[0]).to.include('LATTICE_SECRET_KEYS lacks kid(s) ka1b2c3d4');
    expect(lines[0]).to.include('realtime_signing_keys.secret_sealed');
    expect(lines[0]).to.include('lattice secrets reseal');
    expect(refused.stderr).to.not.include(sealer.split(':')[1]!);

    // The same kid with another key: named as a key that differs, not as "tampered".
    const impostor = generateSecretKeyEntry('ka1b2c3d4');
    const differs = await run(['start', 'management'], {
      DATABASE_URL: db.url,
      LATTICE_SECRET_KEYS: impostor,
      MANAGEMENT_PORT: String(await freePort()),
    });
    expect(differs.code).to.equal(1);
    expect(differs.stderr).to.include(
      'holds kid(s) ka1b2c3d4 with a key other than the one that sealed them',
    );

    // The rotated keyring that keeps the old entry second starts.
    const rotated = await management({ DATABASE_URL: db.url, LATTICE_SECRET_KEYS: `${stranger},${sealer}` });
    expect((await issue(rotated.api, token)).status).to.equal(200);
    expect(await stopPlatform(rotated.child)).to.equal(0);
  });

  it('answers 503 secrets_unavailable for a value corrupted while it runs, counts it, and /healthz names its purpose', async () => {
    const db = await database('corrupt');
    const keys = generateSecretKeyEntry('kc0ffee');
    // The signing key exists and is sealed before the platform under test starts.
    const sealer = await management({ DATABASE_URL: db.url, LATTICE_SECRET_KEYS: keys });
    const token = await ownerToken(sealer.api, db);
    expect((await issue(sealer.api, token)).status).to.equal(200);
    await stopPlatform(sealer.child);

    const running = await management({ DATABASE_URL: db.url, LATTICE_SECRET_KEYS: keys });
    try {
      expect((await fetch(`${running.api}/healthz`)).status).to.equal(200);
      // Altered in place: the same kid, another ciphertext.
      await db.db.raw(
        `update realtime_signing_keys
            set secret_sealed = split_part(secret_sealed, '.', 1) || '.' || split_part(secret_sealed, '.', 2)
                || '.AAAA' || substr(split_part(secret_sealed, '.', 3), 5) || '.' || split_part(secret_sealed, '.', 4)`,
      );
      const answer = await issue(running.api, token);
      expect(answer.status).to.equal(503);
      expect(answer.headers.get('retry-after')).to.equal('30');
      const body = (await answer.json()) as { error: { code: string; step: string } };
      expect(body.error).to.include({ code: 'secrets_unavailable', step: 'secrets' });

      const health = await fetch(`${running.api}/healthz`);
      expect(health.status).to.equal(503);
      const said = (await health.json()) as { error: { code: string; message: string } };
      expect(said.error.code).to.equal('secrets_unavailable');
      expect(said.error.message).to.include('realtime-signing-key');

      const metrics = await (await fetch(`${running.api}/metrics`)).text();
      expect(metrics).to.match(/lattice_secrets_unopened_total\{purpose="realtime-signing-key"\} [1-9]/);
      // Routes that need no sealed value go on working.
      expect(
        (
          await fetch(`${running.api}/organization/product`, {
            headers: { authorization: `Bearer ${token}` },
          })
        ).status,
      ).to.equal(200);
    } finally {
      await stopPlatform(running.child);
    }
  });

  it('lets a second checkout of the same user start against the same database with the generated keyring', async () => {
    const db = await database('checkouts');
    const keyringDir = mkdtempSync(join(tmpdir(), 'lattice-user-keyrings-'));
    const checkout = () => ({
      DATABASE_URL: db.url,
      LATTICE_SECRET_KEYS: '',
      LATTICE_KEYRING_DIR: keyringDir,
      LATTICE_DATA_DIR: mkdtempSync(join(tmpdir(), 'lattice-checkout-')),
    });
    const first = await management(checkout());
    const token = await ownerToken(first.api, db);
    expect((await issue(first.api, token)).status).to.equal(200);
    await stopPlatform(first.child);
    const [row] = await db.db('realtime_signing_keys').select('secret_sealed');
    expect(row.secret_sealed).to.match(/^l[0-9a-f]{8}\./);

    const second = await management(checkout());
    try {
      expect((await issue(second.api, token)).status).to.equal(200);
      expect((await fetch(`${second.api}/healthz`)).status).to.equal(200);
    } finally {
      await stopPlatform(second.child);
    }
  });
});
