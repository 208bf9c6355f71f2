// Mailboxes as integrators write them (`ann@example.org`, `Ann <ann@example.org>`), parsed once
// with nodemailer's RFC 5322 address parser so what we validate is what the composer will write.
// Rules keep the bare address lower-cased: suppression, domain checks and matching compare it.
import addressparser from 'nodemailer/lib/addressparser';

export interface Mailbox {
  /** Display name, '' when none. */
  name: string;
  /** The address as written (local part case kept). */
  address: string;
  /** Lower-cased address: what suppression and matching compare. */
  normalized: string;
  /** Lower-cased domain, without a trailing dot. */
  domain: string;
}

/** RFC 5321 limits: 64 octets of local part, 254 of path, 63 per label. */
const LOCAL = /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~.-]{1,64}$/;
const LABEL = /^[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/;

export function isDomainName(value: string): boolean {
  const labels = value.split('.');
  return value.length <= 253 && labels.length >= 2 && labels.every((l) => LABEL.test(l));
}

/** Exactly one mailbox, or null: groups, lists and addresses without a domain are refused. */
export function parseMailbox(value: string): Mailbox | null {
  if (value.length > 998 || /[\r\n]/.test(value)) return null;
  const parsed = addressparser(value, { flatten: false });
  if (parsed.length !== 1) return null;
  const entry = parsed[0]!;
  if ('group' in entry && entry.group !== undefined) return null;
  const address = (entry as { address?: string }).address ?? '';
  const at = address.lastIndexOf('@');
  if (at <= 0 || address.length > 254) return null;
  const local = address.slice(0, at);
  const domain = address.slice(at + 1).toLowerCase();
  if (!LOCAL.test(local) || local.startsWith('.') || local.endsWith('.') || local.includes('..')) return null;
  if (!isDomainName(domain)) return null;
  return { name: entry.name ?? '', address, normalized: address.toLowerCase(), domain };
}

/** The lower-cased bare address of a mailbox string, or null when it is not one mailbox. */
export function normalizedAddress(value: string): string | null {
  return parseMailbox(value)?.normalized ?? null;
}
