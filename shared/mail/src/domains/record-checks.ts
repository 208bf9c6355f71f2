// Whether what DNS answers for a record's name satisfies the record; pure, so every rule is unit
// tested. A TXT answer arrives as each record's strings joined (resolvers split long values into
// 255-octet strings; RFC 7208 §3.3 and RFC 6376 §3.6.2.2 join them without spaces).
import { type DomainRecord, hostName } from './domain-records.ts';

/**
 * `answer`: for a TXT record the published TXT values at its name (strings joined), for an MX
 * record the exchanges at its name. Empty when the name does not resolve.
 */
export function recordVerified(record: DomainRecord, answer: readonly string[]): boolean {
  switch (record.kind) {
    case 'dkim':
      return answer.some((published) => dkimValueMatches(published, record.value));
    case 'spf':
      return spfValueMatches(answer, record.value);
    case 'return_path_mx':
      return answer.some((exchange) => hostName(exchange) === hostName(record.value));
  }
}

/**
 * The DKIM tag list, normalised as RFC 6376 §3.2 allows it to be written: whitespace around tags,
 * `=` and `;` is insignificant, a trailing `;` is optional, and the base64 `p=` value may be
 * folded. Tag order is kept (`v=` must come first). Null when it is no tag list at all.
 */
export function normalizedDkimTags(value: string): string | null {
  const tags: string[] = [];
  for (const part of value.split(';')) {
    if (part.trim() === '') continue;
    const eq = part.indexOf('=');
    if (eq < 0) return null;
    const name = part.slice(0, eq).trim();
    const raw = part.slice(eq + 1).trim();
    if (name === '') return null;
    tags.push(`${name}=${name === 'p' ? raw.replace(/\s+/g, '') : raw.replace(/\s+/g, ' ')}`);
  }
  return tags.length === 0 ? null : tags.join(';');
}

export function dkimValueMatches(published: string, expected: string): boolean {
  const normal = normalizedDkimTags(published);
  return normal !== null && normal === normalizedDkimTags(expected);
}

export function isSpfRecord(value: string): boolean {
  return /^v=spf1(\s|$)/i.test(value.trim());
}

/**
 * Verified when the name has exactly one SPF record (two make every SPF check a permerror,
 * RFC 7208 §4.5) and it holds every `include:` of ours, `+include:` being the same mechanism.
 * Other mechanisms and the `all` qualifier are the domain owner's.
 */
export function spfValueMatches(published: readonly string[], expected: string): boolean {
  const spf = published.filter(isSpfRecord);
  if (spf.length !== 1) return false;
  const terms = new Set(spfTerms(spf[0]!).map((t) => t.replace(/^\+/, '')));
  return spfTerms(expected)
    .filter((t) => t.startsWith('include:'))
    .every((include) => terms.has(include));
}

/** The record's terms after `v=spf1`, lower-cased, include domains without a trailing dot. */
function spfTerms(record: string): string[] {
  return record
    .trim()
    .split(/\s+/)
    .slice(1)
    .map((t) => t.toLowerCase().replace(/^(\+?include:.*?)\.$/, '$1'));
}
