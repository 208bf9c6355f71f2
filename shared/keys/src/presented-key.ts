// Where a public key travels: `Authorization: Bearer <key>`, then `X-Public-Key`, then the
// legacy alias `X-Api-Key`. Another Authorization scheme is ignored (not an error); a key is
// never read from the query string.

export const PUBLIC_KEY_HEADERS = ['authorization', 'x-public-key', 'x-api-key'] as const;

type Headers = Record<string, string | string[] | undefined>;

function single(value: string | string[] | undefined): string | undefined {
  const v = Array.isArray(value) ? value[0] : value;
  const trimmed = v?.trim();
  return trimmed ? trimmed : undefined;
}

const BEARER = /^Bearer\s+(\S+)$/i;
const PLAIN_BEARER = 'Bearer ';

/** The credential of `Bearer <credential>` (scheme in any case, any whitespace), or null. */
function bearerCredential(value: string): string | null {
  // The usual form (this spelling, one space, printable ASCII after it) without the regular
  // expression, which decides everything else; both give the same answer for this form.
  if (value.length > PLAIN_BEARER.length && value.startsWith(PLAIN_BEARER)) {
    let plain = true;
    for (let i = PLAIN_BEARER.length; i < value.length; i++) {
      const c = value.charCodeAt(i);
      if (c <= 0x20 || c >= 0x7f) {
        plain = false;
        break;
      }
    }
    if (plain) return value.slice(PLAIN_BEARER.length);
  }
  const m = BEARER.exec(value);
  return m ? m[1]! : null;
}

export function readPresentedKey(headers: Headers): string | null {
  const auth = single(headers.authorization);
  if (auth) {
    const credential = bearerCredential(auth);
    if (credential) return credential;
  }
  return single(headers['x-public-key']) ?? single(headers['x-api-key']) ?? null;
}
