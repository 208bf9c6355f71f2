// The platform's master secrets (LATTICE_SECRET_KEYS): `kid:base64url(32 bytes)`, comma-separated,
// the first one current. Purpose keys are derived with HKDF-SHA256 (one per use: DKIM key
// sealing, tracking tokens, webhook secrets, realtime token signing keys), so one configured
// secret never keys two algorithms. Everything sealed or signed names the kid it used: rotating
// is adding a new first entry and keeping the old ones for as long as what they sealed or signed
// must still open.
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

const KID = /^[a-z0-9]{1,16}$/;
const KEY_BYTES = 32;

export interface SecretKeyring {
  /** The kid new seals and signatures use. */
  readonly currentKid: string;
  /** The purpose key of `kid`, undefined for a kid the keyring does not hold. */
  purposeKey(kid: string, purpose: string): Buffer | undefined;
  /**
   * Told by openSecret of every value that does not open, before it throws: where a process
   * counts such failures and says so on `/healthz` (secret-health.ts). Never given the value.
   */
  openFailed?(purpose: string, kid: string): void;
}

export class SecretKeyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SecretKeyError';
  }
}

/** Parses `k1:<base64url>,k0:<base64url>`; throws SecretKeyError naming what is wrong (not the key). */
export function parseSecretKeys(value: string): SecretKeyring {
  const entries = value
    .split(',')
    .map((e) => e.trim())
    .filter(Boolean);
  if (entries.length === 0) throw new SecretKeyError('LATTICE_SECRET_KEYS holds no key');
  const masters = new Map<string, Buffer>();
  for (const entry of entries) {
    const colon = entry.indexOf(':');
    const kid = entry.slice(0, colon);
    if (colon < 0 || !KID.test(kid))
      throw new SecretKeyError('each LATTICE_SECRET_KEYS entry is kid:base64url, kid of 1-16 [a-z0-9]');
    const key = Buffer.from(entry.slice(colon + 1), 'base64url');
    if (key.length !== KEY_BYTES)
      throw new SecretKeyError(`LATTICE_SECRET_KEYS entry ${kid} must hold ${KEY_BYTES} bytes`);
    if (masters.has(kid)) throw new SecretKeyError(`LATTICE_SECRET_KEYS names ${kid} twice`);
    masters.set(kid, key);
  }
  const derived = new Map<string, Buffer>();
  return {
    currentKid: entries[0]!.slice(0, entries[0]!.indexOf(':')),
    purposeKey(kid, purpose) {
      const cacheKey = `${kid}/${purpose}`;
      let key = derived.get(cacheKey);
      if (key) return key;
      const master = masters.get(kid);
      if (!master) return undefined;
      key = Buffer.from(hkdfSync('sha256', master, Buffer.alloc(0), `lattice:${purpose}`, KEY_BYTES));
      derived.set(cacheKey, key);
      return key;
    },
  };
}

/** A fresh `kid:secret` entry for LATTICE_SECRET_KEYS. */
export function generateSecretKeyEntry(kid = `k${Date.now().toString(36)}`): string {
  return `${kid}:${randomBytes(KEY_BYTES).toString('base64url')}`;
}

/** AES-256-GCM under the purpose key of the current kid: `kid.iv.ciphertext.tag`, base64url parts. */
export function sealSecret(keyring: SecretKeyring, purpose: string, plaintext: string): string {
  const kid = keyring.currentKid;
  const key = keyring.purposeKey(kid, purpose)!;
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(`${kid}/${purpose}`));
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  const tag = cipher.getAuthTag();
  return [kid, iv.toString('base64url'), body.toString('base64url'), tag.toString('base64url')].join('.');
}

/** Opens what sealSecret sealed; throws SecretKeyError for an unknown kid or a tampered seal. */
export function openSecret(keyring: SecretKeyring, purpose: string, sealed: string): string {
  const [kid, iv, body, tag, extra] = sealed.split('.');
  const malformed = !kid || !KID.test(kid) || iv === undefined || body === undefined || tag === undefined;
  const refuse = (message: string): never => {
    // What precedes the first dot of a malformed value could be anything: never pass it on.
    keyring.openFailed?.(purpose, malformed || extra !== undefined ? 'malformed' : kid);
    throw new SecretKeyError(message);
  };
  if (malformed || extra !== undefined) return refuse('sealed secret is malformed');
  const key = keyring.purposeKey(kid, purpose);
  if (!key) return refuse(`sealed with key ${kid}, which LATTICE_SECRET_KEYS does not hold`);
  try {
    // A full 16-byte tag only: GCM would otherwise accept a truncated one.
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'), {
      authTagLength: 16,
    });
    decipher.setAAD(Buffer.from(`${kid}/${purpose}`));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString(
      'utf8',
    );
  } catch {
    return refuse(
      `sealed secret does not open under key ${kid}: the key of that kid differs from the one that sealed it, or the value was altered`,
    );
  }
}
