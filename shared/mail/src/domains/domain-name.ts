// A sending domain's name as the API takes it: trimmed, lower-cased, without a trailing dot, a
// host name of at least two labels (isDomainName). Refused beyond that: a numeric last label
// (an IPv4 literal is no domain, RFC 3696 §2), and names so long that the DKIM record's name,
// `<selector>._domainkey.<domain>`, would pass DNS's 253 characters.
import { isDomainName } from '../addresses.ts';

/** `l20261124nn._domainkey.`: the longest selector a same-day rotation makes, and the label. */
const DKIM_NAME_OVERHEAD = 'l20261124nn._domainkey.'.length;
export const DOMAIN_NAME_MAX_CHARS = 253 - DKIM_NAME_OVERHEAD;

/** The normalised name, or null when it is not one a domain can be added under. */
export function sendingDomainName(input: string): string | null {
  const name = input.trim().toLowerCase().replace(/\.$/, '');
  if (name.length > DOMAIN_NAME_MAX_CHARS || !isDomainName(name)) return null;
  return /^\d+$/.test(name.slice(name.lastIndexOf('.') + 1)) ? null : name;
}
