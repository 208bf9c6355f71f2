import { mkdirSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateSecretKeyEntry, openSecret, SecretKeyError, sealSecret } from '@lattice/core';
import { expect } from 'chai';
import { localKeyringFile, secretKeyringOf } from './secret-keys-file.ts';

const DB = 'postgres://postgres@127.0.0.1:5432/lattice';

function config(
  over: { dataDir?: string; keyringDir?: string; databaseUrl?: string; secretKeys?: string } = {},
) {
  return {
    secretKeys: '',
    dataDir: mkdtempSync(join(tmpdir(), 'lattice-checkout-')),
    keyringDir: mkdtempSync(join(tmpdir(), 'lattice-keyrings-')),
    databaseUrl: DB,
    ...over,
  };
}

describe('secret keys for local use', () => {
  it('generates one keyring per database in the user folder, with a random kid, private to its owner', () => {
    const first = config();
    const ring = secretKeyringOf(first);
    expect(ring.currentKid).to.match(/^l[0-9a-f]{8}$/);
    const file = localKeyringFile(first);
    expect(statSync(file).mode & 0o777).to.equal(0o600);
    expect(readFileSync(file, 'utf8')).to.match(new RegExp(`^${ring.currentKid}:`));
    const other = secretKeyringOf(config());
    expect(other.currentKid, 'another user folder, another keyring').to.not.equal(ring.currentKid);
  });

  it('is found by a second checkout of the same user against the same database, and not for another database', () => {
    const keyringDir = mkdtempSync(join(tmpdir(), 'lattice-keyrings-'));
    const one = secretKeyringOf(config({ keyringDir }));
    const sealed = sealSecret(one, 'dkim', 'secret');
    const second = secretKeyringOf(
      config({ keyringDir, databaseUrl: 'postgres://other:pw@127.0.0.1:5432/lattice' }),
    );
    expect(openSecret(second, 'dkim', sealed), 'same server and database, another user name').to.equal(
      'secret',
    );
    const elsewhere = secretKeyringOf(
      config({ keyringDir, databaseUrl: 'postgres://postgres@127.0.0.1:5432/other' }),
    );
    expect(elsewhere.currentKid).to.not.equal(one.currentKid);
  });

  it('adopts the keyring an earlier version kept in the checkout’s data folder', () => {
    const legacy = config();
    mkdirSync(legacy.dataDir, { recursive: true });
    const entry = generateSecretKeyEntry('local');
    writeFileSync(join(legacy.dataDir, 'secret-keys'), `${entry}\n`, { mode: 0o600 });
    expect(secretKeyringOf(legacy).currentKid).to.equal('local');
    expect(readFileSync(localKeyringFile(legacy), 'utf8').trim()).to.equal(entry);
    // Now every checkout finds it.
    expect(secretKeyringOf({ ...legacy, dataDir: mkdtempSync(join(tmpdir(), 'x-')) }).currentKid).to.equal(
      'local',
    );
  });

  it('uses LATTICE_SECRET_KEYS when set, and writes no file', () => {
    const c = config({ secretKeys: generateSecretKeyEntry('prod') });
    expect(secretKeyringOf(c).currentKid).to.equal('prod');
    expect(() => statSync(localKeyringFile(c))).to.throw();
  });

  it('with create: false, refuses to invent a key where none is kept (a command that only uses keys)', () => {
    const c = config({ keyringDir: join(mkdtempSync(join(tmpdir(), 'lattice-keyrings-')), 'absent') });
    expect(() => secretKeyringOf(c, { create: false })).to.throw(
      SecretKeyError,
      /LATTICE_SECRET_KEYS is not set/,
    );
    expect(() => statSync(c.keyringDir)).to.throw();
    const kept = secretKeyringOf(c);
    expect(secretKeyringOf(c, { create: false }).currentKid).to.equal(kept.currentKid);
  });
});
