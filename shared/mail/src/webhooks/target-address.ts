// Which addresses a webhook may be sent to (decisions.md "Webhook delivery defaults"): an
// integrator chooses the URL, so without this check a delivery could reach our own network
// (SSRF). `forbidden` is refused everywhere; `private` only unless the deployment allows private
// targets (local development, tests). An address that embeds an IPv4 address (IPv4-mapped,
// NAT64, 6to4) is judged by that address, since that is where the packets end up.
import { isIPv4, isIPv6 } from 'node:net';

export type TargetAddressClass = 'public' | 'private' | 'forbidden';

export interface TargetAddressVerdict {
  classification: TargetAddressClass;
  /** The range that decided, in words for an error message: `loopback`, `link-local`, … */
  range: string;
}

interface Rule<V> {
  network: V;
  prefixBits: number;
  classification: TargetAddressClass;
  range: string;
}

type EmbeddedV4 = 'IPv4-mapped' | 'NAT64' | '6to4';
interface V6Rule extends Omit<Rule<bigint>, 'classification'> {
  /** Judge the embedded IPv4 address instead; `classification` then is the embedded one's. */
  classification: TargetAddressClass | EmbeddedV4;
}

const v4 = (network: string, prefixBits: number, classification: TargetAddressClass, range: string) => ({
  network: ipv4Value(network),
  prefixBits,
  classification,
  range,
});
const v6 = (
  network: string,
  prefixBits: number,
  classification: TargetAddressClass | EmbeddedV4,
  range: string,
) => ({ network: ipv6Value(network), prefixBits, classification, range });

// The most specific rule wins (the tables are sorted by prefix length below), so named
// addresses can sit inside the ranges around them. Anything unlisted is public for IPv4.
const V4_RULES: Rule<number>[] = mostSpecificFirst([
  v4('0.0.0.0', 8, 'forbidden', 'unspecified'),
  v4('10.0.0.0', 8, 'private', 'RFC 1918'),
  v4('100.64.0.0', 10, 'private', 'shared address space 100.64.0.0/10'),
  v4('100.100.100.200', 32, 'forbidden', 'cloud metadata'),
  v4('127.0.0.0', 8, 'private', 'loopback'),
  v4('168.63.129.16', 32, 'forbidden', 'cloud metadata'),
  v4('169.254.0.0', 16, 'forbidden', 'link-local'),
  v4('169.254.169.254', 32, 'forbidden', 'cloud metadata'),
  v4('172.16.0.0', 12, 'private', 'RFC 1918'),
  v4('192.0.0.0', 24, 'forbidden', 'reserved (IETF protocol assignments)'),
  v4('192.0.2.0', 24, 'forbidden', 'reserved (documentation)'),
  v4('192.88.99.0', 24, 'forbidden', 'reserved (6to4 relay anycast)'),
  v4('192.168.0.0', 16, 'private', 'RFC 1918'),
  v4('198.18.0.0', 15, 'forbidden', 'reserved (benchmarking)'),
  v4('198.51.100.0', 24, 'forbidden', 'reserved (documentation)'),
  v4('203.0.113.0', 24, 'forbidden', 'reserved (documentation)'),
  v4('224.0.0.0', 4, 'forbidden', 'multicast'),
  v4('240.0.0.0', 4, 'forbidden', 'reserved'),
  v4('255.255.255.255', 32, 'forbidden', 'broadcast'),
]);

// IPv6 is closed by default: only global unicast (2000::/3) is public, and unique-local
// (fc00::/7) private; everything IANA has not allocated for unicast is forbidden.
const V6_RULES: V6Rule[] = mostSpecificFirst([
  v6('::', 128, 'forbidden', 'unspecified'),
  v6('::1', 128, 'private', 'loopback'),
  v6('::', 96, 'forbidden', 'reserved (IPv4-compatible, deprecated)'),
  v6('::ffff:0:0', 96, 'IPv4-mapped', ''),
  v6('64:ff9b::', 96, 'NAT64', ''),
  // Local-use NAT64 prefixes place the IPv4 address where the operator chose: not locatable.
  v6('64:ff9b:1::', 48, 'forbidden', 'reserved (local-use NAT64)'),
  v6('::', 8, 'forbidden', 'reserved'),
  v6('100::', 64, 'forbidden', 'reserved (discard-only)'),
  v6('2000::', 3, 'public', 'public'),
  // Teredo (2001::/32) hides its IPv4 address obfuscated; the whole block is protocol space.
  v6('2001::', 23, 'forbidden', 'reserved (IETF protocol assignments, Teredo)'),
  v6('2001:db8::', 32, 'forbidden', 'reserved (documentation)'),
  v6('2002::', 16, '6to4', ''),
  v6('3fff::', 20, 'forbidden', 'reserved (documentation)'),
  v6('fc00::', 7, 'private', 'unique-local fc00::/7'),
  v6('fd00:ec2::254', 128, 'forbidden', 'cloud metadata'),
  v6('fe80::', 10, 'forbidden', 'link-local'),
  v6('fec0::', 10, 'forbidden', 'reserved (site-local, deprecated)'),
  v6('ff00::', 8, 'forbidden', 'multicast'),
]);

const PUBLIC: TargetAddressVerdict = { classification: 'public', range: 'public' };
const UNALLOCATED_V6: TargetAddressVerdict = {
  classification: 'forbidden',
  range: 'reserved (not allocated for unicast)',
};

/** Throws a TypeError when `ip` is not an IP address (a host name is resolved first). */
export function classifyTargetAddress(ip: string): TargetAddressClass {
  return targetAddressVerdict(ip).classification;
}

/** As classifyTargetAddress, with the range that decided, for messages. */
export function targetAddressVerdict(ip: string): TargetAddressVerdict {
  const text = ip.startsWith('[') && ip.endsWith(']') ? ip.slice(1, -1) : ip;
  // A zone (`fe80::1%eth0`) names an interface, not a different address.
  const unzoned = text.includes('%') ? text.slice(0, text.indexOf('%')) : text;
  if (isIPv6(unzoned)) return v6Verdict(ipv6Value(unzoned));
  const dotted = canonicalIpv4(text);
  if (dotted === null) throw new TypeError(`not an IP address: ${JSON.stringify(ip)}`);
  return v4Verdict(ipv4Value(dotted));
}

function v4Verdict(value: number): TargetAddressVerdict {
  for (const rule of V4_RULES) {
    if (prefixOf32(value, rule.prefixBits) === prefixOf32(rule.network, rule.prefixBits)) {
      return { classification: rule.classification, range: rule.range };
    }
  }
  return PUBLIC;
}

function v6Verdict(value: bigint): TargetAddressVerdict {
  for (const rule of V6_RULES) {
    const shift = BigInt(128 - rule.prefixBits);
    if (value >> shift !== rule.network >> shift) continue;
    const c = rule.classification;
    if (c === 'public' || c === 'private' || c === 'forbidden')
      return { classification: c, range: rule.range };
    // IPv4-mapped and NAT64 keep the IPv4 address in the low 32 bits, 6to4 in bits 16 to 48.
    const embedded = c === '6to4' ? (value >> 80n) & 0xffffffffn : value & 0xffffffffn;
    const inner = v4Verdict(Number(embedded));
    return { classification: inner.classification, range: `${inner.range}, ${c}` };
  }
  return UNALLOCATED_V6;
}

/**
 * `127.0.0.1` as is; the shorthand forms a URL host may take (`2130706433`, `0x7f.1`, `127.1`)
 * through the WHATWG host parser, which is what turns them into an address in a URL too.
 */
function canonicalIpv4(text: string): string | null {
  if (isIPv4(text)) return text;
  if (!/^[0-9a-fx.]+$/i.test(text)) return null;
  try {
    const host = new URL(`http://${text}/`).hostname;
    return isIPv4(host) ? host : null;
  } catch {
    return null;
  }
}

function prefixOf32(value: number, prefixBits: number): number {
  return prefixBits === 0 ? 0 : value >>> (32 - prefixBits);
}

function ipv4Value(dotted: string): number {
  return dotted.split('.').reduce((acc, part) => acc * 256 + Number(part), 0);
}

/** `text` must already pass net.isIPv6 (no zone). */
function ipv6Value(text: string): bigint {
  let hex = text;
  const lastColon = hex.lastIndexOf(':');
  const tail = hex.slice(lastColon + 1);
  if (tail.includes('.')) {
    const value = ipv4Value(tail);
    hex = `${hex.slice(0, lastColon + 1)}${(value >>> 16).toString(16)}:${(value & 0xffff).toString(16)}`;
  }
  const [head = '', rest] = hex.split('::');
  const groupsOf = (s: string) => (s === '' ? [] : s.split(':'));
  const before = groupsOf(head);
  const after = rest === undefined ? [] : groupsOf(rest);
  const groups = [...before, ...Array<string>(8 - before.length - after.length).fill('0'), ...after];
  return groups.reduce((acc, group) => (acc << 16n) | BigInt(Number.parseInt(group, 16)), 0n);
}

function mostSpecificFirst<R extends { prefixBits: number }>(rules: R[]): R[] {
  return [...rules].sort((a, b) => b.prefixBits - a.prefixBits);
}
