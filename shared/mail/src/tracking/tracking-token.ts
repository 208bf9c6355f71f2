// The signed tokens in tracking and unsubscribe links (decisions.md "Mail": HMAC-SHA256, compared
// in constant time). A token is one URL path segment, `<kid>.<payload>.<mac>`: the kid of the
// platform keyring entry that signed it, the base64url of a compact JSON payload, and the
// base64url HMAC-SHA256 of `<kid>.<payload>` under that entry's 'mail-tracking' purpose key. The
// current kid signs; every kid the keyring still holds verifies, so rotating the keyring leaves
// the links of emails already sent working for as long as their old entry is kept.
// The payload carries everything a route needs (product, email, recipient, the clicked URL), so
// serving a link reads no database. It is signed, not encrypted: the recipient's address is
// readable by whoever holds the link, which is the recipient (or whoever they forward it to).
import { createHmac, timingSafeEqual } from 'node:crypto';
import { isUuid, type SecretKeyring } from '@lattice/core';

export const TRACKING_TOKEN_PURPOSE = 'mail-tracking';

/**
 * The longest token signed or verified. Anything longer is refused before its MAC is computed
 * (and a click whose URL would not fit is left untracked at send time).
 */
export const MAX_TRACKING_TOKEN_CHARS = 2048;

export type TrackingKind = 'open' | 'click' | 'unsubscribe';

export interface TrackingClaims {
  kind: TrackingKind;
  productId: string;
  emailId: string;
  /** The recipient's bare address, as suppression keeps it (lower-cased). */
  recipient: string;
  /** Click tokens only: the original absolute http(s) URL. */
  url?: string;
}

/** The payload as signed: one letter per field keeps links short. */
interface Payload {
  k: 'o' | 'c' | 'u';
  p: string;
  e: string;
  r: string;
  u?: string;
}

const KIND_LETTER: Record<TrackingKind, Payload['k']> = { open: 'o', click: 'c', unsubscribe: 'u' };
const MAC_BYTES = 32;
/** base64url of 32 bytes, unpadded. */
const MAC_CHARS = 43;
const KID = /^[a-z0-9]{1,16}$/;
const BASE64URL = /^[A-Za-z0-9_-]+$/;

function macOf(key: Buffer, signed: string): Buffer {
  return createHmac('sha256', key).update(signed).digest();
}

/** The token for `claims`, or null when it would be longer than MAX_TRACKING_TOKEN_CHARS. */
export function signTrackingToken(keyring: SecretKeyring, claims: TrackingClaims): string | null {
  const kid = keyring.currentKid;
  const key = keyring.purposeKey(kid, TRACKING_TOKEN_PURPOSE)!;
  const payload: Payload = {
    k: KIND_LETTER[claims.kind],
    p: claims.productId,
    e: claims.emailId,
    r: claims.recipient,
    ...(claims.kind === 'click' && claims.url !== undefined ? { u: claims.url } : {}),
  };
  const signed = `${kid}.${Buffer.from(JSON.stringify(payload), 'utf8').toString('base64url')}`;
  const token = `${signed}.${macOf(key, signed).toString('base64url')}`;
  return token.length <= MAX_TRACKING_TOKEN_CHARS ? token : null;
}

/**
 * The claims of a token signed by a kid the keyring holds, for the kind of route it was
 * presented to and the product in the request path; null for anything else (tampered, unknown
 * kid, another kind, another product, malformed, too long). Callers answer 404 for null.
 */
export function verifyTrackingToken(
  keyring: SecretKeyring,
  token: string,
  expected: { kind: TrackingKind; productId: string },
): TrackingClaims | null {
  // Shape first, and nothing is decoded or parsed before the MAC has matched.
  if (token.length > MAX_TRACKING_TOKEN_CHARS) return null;
  const firstDot = token.indexOf('.');
  const lastDot = token.lastIndexOf('.');
  if (firstDot <= 0 || lastDot === firstDot) return null;
  const kid = token.slice(0, firstDot);
  const encodedPayload = token.slice(firstDot + 1, lastDot);
  const presentedMac = token.slice(lastDot + 1);
  if (!KID.test(kid) || !BASE64URL.test(encodedPayload)) return null;
  if (presentedMac.length !== MAC_CHARS || !BASE64URL.test(presentedMac)) return null;
  const key = keyring.purposeKey(kid, TRACKING_TOKEN_PURPOSE);
  if (!key) return null;

  const mac = Buffer.from(presentedMac, 'base64url');
  // 43 characters carry 258 bits: the last character has variants decoding to the same bytes.
  // Only the canonical spelling is accepted, so a token has exactly one valid form.
  if (mac.length !== MAC_BYTES || mac.toString('base64url') !== presentedMac) return null;
  if (!timingSafeEqual(mac, macOf(key, token.slice(0, lastDot)))) return null;

  const claims = claimsOf(encodedPayload);
  if (!claims || claims.kind !== expected.kind || claims.productId !== expected.productId) return null;
  return claims;
}

/** The payload we signed, read back; null for a shape we never sign (defence in depth). */
function claimsOf(encodedPayload: string): TrackingClaims | null {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(encodedPayload, 'base64url').toString('utf8'));
  } catch {
    return null;
  }
  if (typeof value !== 'object' || value === null) return null;
  const { k, p, e, r, u } = value as Record<string, unknown>;
  if (typeof p !== 'string' || p === '' || typeof r !== 'string' || r === '') return null;
  if (typeof e !== 'string' || !isUuid(e)) return null;
  const base = { productId: p, emailId: e, recipient: r };
  if (k === 'o' && u === undefined) return { kind: 'open', ...base };
  if (k === 'u' && u === undefined) return { kind: 'unsubscribe', ...base };
  if (k === 'c' && typeof u === 'string' && isHttpUrl(u)) return { kind: 'click', ...base, url: u };
  return null;
}

/** An absolute http or https URL that parses; what click tokens may carry and redirect to. */
export function isHttpUrl(value: string): boolean {
  if (!/^https?:\/\//i.test(value)) return false;
  const parsed = URL.parse(value);
  return parsed !== null && (parsed.protocol === 'http:' || parsed.protocol === 'https:');
}
