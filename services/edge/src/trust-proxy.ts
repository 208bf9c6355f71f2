// config.trustProxy is a string (it comes from EDGE_TRUST_PROXY); express's `trust proxy` wants
// a boolean for all-or-nothing, a number for a hop count, or a list of addresses / CIDRs /
// names (`loopback`, `uniquelocal`). Anything else express itself rejects at startup, which is
// where a typo in a trust setting belongs: never silently trusting every X-Forwarded-For.
export type TrustProxySetting = boolean | number | string[];

export function parseTrustProxy(value: string): TrustProxySetting {
  const v = value.trim();
  if (v === '' || v === 'false') return false;
  if (v === 'true') return true;
  if (/^\d+$/.test(v)) return Number(v);
  return v
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '');
}
