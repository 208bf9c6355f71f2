// DKIM key material of a sending domain: a 2048-bit RSA pair per domain (RFC 8301 asks for at
// least 1024 bits and recommends 2048). The private half is kept sealed under the platform's
// secret keyring; the public half is what the `<selector>._domainkey` TXT record publishes.
import { generateKeyPair } from 'node:crypto';
import { promisify } from 'node:util';

/** The secret keyring purpose sealing DKIM private keys (one purpose key per use). */
export const DKIM_SEAL_PURPOSE = 'mail-dkim';

const DKIM_MODULUS_BITS = 2048;
const generateRsa = promisify(generateKeyPair);

export interface DkimKeyPair {
  /** PKCS#8 PEM: what nodemailer's DKIM signer takes. Never logged, stored only sealed. */
  privateKeyPem: string;
  /** Base64 of the DER SubjectPublicKeyInfo: the `p=` tag of the DNS record. */
  publicKeyBase64: string;
}

/** Off the event loop (libuv thread pool): a 2048-bit key takes tens to hundreds of ms. */
export async function generateDkimKeyPair(): Promise<DkimKeyPair> {
  const { publicKey, privateKey } = await generateRsa('rsa', {
    modulusLength: DKIM_MODULUS_BITS,
    publicKeyEncoding: { type: 'spki', format: 'der' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  return { privateKeyPem: privateKey, publicKeyBase64: publicKey.toString('base64') };
}

/**
 * The selector of a key made at `nowMs`: `l<yyyymmdd>` (UTC). Dated so that a rotation can
 * publish the next selector's record beside the current one before signing switches to it; a
 * second key made the same day as `current` gets a counter, `l<yyyymmdd>2`, `l<yyyymmdd>3`, …
 */
export function dkimSelectorFor(nowMs: number, current?: string | null): string {
  const base = `l${new Date(nowMs).toISOString().slice(0, 10).replaceAll('-', '')}`;
  if (!current?.startsWith(base)) return base;
  const n = current === base ? 1 : Number(current.slice(base.length));
  return `${base}${Number.isInteger(n) && n >= 1 ? n + 1 : 2}`;
}
