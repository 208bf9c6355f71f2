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

export function readPresentedKey(headers: Headers): string | null {
  const auth = single(headers.authorization);
  if (auth) {
    const m = /^Bearer\s+(\S+)$/i.exec(auth);
    if (m) return m[1]!;
  }
  return single(headers['x-public-key']) ?? single(headers['x-api-key']) ?? null;
}
