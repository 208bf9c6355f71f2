import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateSecretKeyEntry, openSecret, SecretKeyError, sealSecret } from '@lattice/core';
import { expect } from 'chai';
import { secretKeyringOf } from './secret-keys-file.ts';

describe('secret keys for local use', () => {
  it('generates one key file per data folder, private to its owner, and reuses it', () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'lattice-keys-'));
    const first = secretKeyringOf({ secretKeys: '', dataDir });
    const sealed = sealSecret(first, 'dkim', 'secret');
    const second = secretKeyringOf({ secretKeys: '', dataDir });
    expect(openSecret(second, 'dkim', sealed)).to.equal('secret');
    expect(statSync(join(dataDir, 'secret-keys')).mode & 0o777).to.equal(0o600);
    expect(readFileSync(join(dataDir, 'secret-keys'), 'utf8')).to.match(/^local:/);
  });

  it('uses LATTICE_SECRET_KEYS when set, and writes no file', () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'lattice-keys-'));
    const ring = secretKeyringOf({ secretKeys: generateSecretKeyEntry('prod'), dataDir });
    expect(ring.currentKid).to.equal('prod');
    expect(() => statSync(join(dataDir, 'secret-keys'))).to.throw();
  });

  it('with create: false, refuses to invent a key where none is kept (a command that only uses keys)', () => {
    const dataDir = join(mkdtempSync(join(tmpdir(), 'lattice-keys-')), 'absent');
    expect(() => secretKeyringOf({ secretKeys: '', dataDir }, { create: false })).to.throw(
      SecretKeyError,
      /LATTICE_SECRET_KEYS is not set/,
    );
    expect(() => statSync(dataDir)).to.throw();
    // A kept file is still read.
    const kept = secretKeyringOf({ secretKeys: '', dataDir });
    expect(secretKeyringOf({ secretKeys: '', dataDir }, { create: false }).currentKid).to.equal(
      kept.currentKid,
    );
  });
});
