import { expect } from 'chai';
import {
  createSecretHealth,
  reportingKeyring,
  type SealedValueProblem,
  sealedValuesMessage,
} from './secret-health.ts';
import {
  generateSecretKeyEntry,
  openSecret,
  parseSecretKeys,
  SecretKeyError,
  sealSecret,
} from './secret-keyring.ts';
import { ManualClock } from './testing/manual-clock.ts';

const problem = (over: Partial<SealedValueProblem>): SealedValueProblem => ({
  table: 'mail_domains',
  column: 'dkim_private_key_sealed',
  purpose: 'dkim',
  kid: 'l1a2b3c4d',
  count: 2,
  reason: 'kid_missing',
  ...over,
});

describe('secret health', () => {
  it('fails a purpose the last check found until a check finds it fine', () => {
    const health = createSecretHealth({ clock: new ManualClock(0) });
    expect(health.failing()).to.deep.equal([]);
    health.checked([problem({}), problem({ purpose: 'webhook-secret' })]);
    expect(health.failing()).to.deep.equal(['dkim', 'webhook-secret']);
    health.checked([]);
    expect(health.failing()).to.deep.equal([]);
  });

  it('fails a purpose for one window after a value of it did not open, on both sides of the window', () => {
    const clock = new ManualClock(1_000);
    const health = createSecretHealth({ clock, windowMs: 60_000 });
    health.openFailed('dkim-key', 'malformed');
    expect(health.failing(), 'a malformed value is not the keyring’s failure').to.deep.equal([]);
    health.openFailed('realtime-signing-key', 'k1');
    clock.advance(59_999);
    expect(health.failing()).to.deep.equal(['realtime-signing-key']);
    clock.advance(1);
    expect(health.failing()).to.deep.equal([]);
  });

  it('hears of every value that does not open through the reporting keyring', () => {
    const heard: string[] = [];
    const ring = reportingKeyring(parseSecretKeys(generateSecretKeyEntry('a')), (p, k) =>
      heard.push(`${p}/${k}`),
    );
    const sealed = sealSecret(ring, 'dkim', 'x');
    expect(openSecret(ring, 'dkim', sealed)).to.equal('x');
    const stranger = reportingKeyring(parseSecretKeys(generateSecretKeyEntry('b')), (p, k) =>
      heard.push(`${p}/${k}`),
    );
    expect(() => openSecret(stranger, 'dkim', sealed)).to.throw(SecretKeyError);
    expect(heard).to.deep.equal(['dkim/a']);
  });

  it('says in one line which kids are lacking or differ, where, and the remedy', () => {
    const line = sealedValuesMessage([
      problem({}),
      problem({
        table: 'realtime_signing_keys',
        column: 'secret_sealed',
        kid: 'local',
        reason: 'does_not_open',
        count: 1,
      }),
    ]);
    expect(line).to.not.include('\n');
    expect(line).to.include('LATTICE_SECRET_KEYS lacks kid(s) l1a2b3c4d');
    expect(line).to.include('holds kid(s) local with a key other than the one that sealed them');
    expect(line).to.include('realtime_signing_keys.secret_sealed: 1 under local');
    expect(line).to.include('lattice secrets reseal');
    expect(line).to.include('docs/operations.md');
  });
});
