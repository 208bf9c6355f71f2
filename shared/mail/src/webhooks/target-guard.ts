// The SSRF check of a webhook URL, at endpoint create/update and again at every attempt
// (decisions.md "Webhook delivery defaults"). A name is judged on every address it resolves to,
// and the attempt connects to an address this check returned, never to a second lookup's answer:
// a DNS answer that changes between the check and the connection (rebinding) cannot slip through.
import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { targetAddressVerdict } from './target-address.ts';

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Every address of `host`, in the resolver's order. Rejects when the name does not resolve. */
export type HostLookup = (host: string) => Promise<ResolvedAddress[]>;

export type UrlCheck = { ok: true } | { ok: false; reason: string };

export interface TargetGuard {
  /** For endpoint create/update: a refusal's reason names the problem for a 400 on `url`. */
  checkUrl(url: string): Promise<UrlCheck>;
  /**
   * For each attempt: the address to connect to. Throws TargetRefusedError when the target is
   * refused, or an Error saying the host did not resolve.
   */
  resolveForAttempt(url: URL): Promise<ResolvedAddress>;
}

export interface TargetGuardOptions {
  /** WEBHOOK_ALLOW_PRIVATE_TARGETS: loopback, RFC 1918, 100.64/10, fc00::/7 become allowed. */
  allowPrivateTargets: boolean;
  /** Default: the system resolver (`dns.lookup`, all addresses, in its order). */
  lookup?: HostLookup;
}

export class TargetRefusedError extends Error {
  override readonly name = 'TargetRefusedError';
}

/** dns.lookup, which reads /etc/hosts as a connection would; `verbatim` keeps the resolver's order. */
export const systemHostLookup: HostLookup = async (host) => {
  const answers = await dnsLookup(host, { all: true, verbatim: true });
  return answers.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));
};

export function createTargetGuard(opts: TargetGuardOptions): TargetGuard {
  const lookup = opts.lookup ?? systemHostLookup;

  /** What makes `address` refused (`a private address (loopback)`), or null when it may be used. */
  const refusal = (address: string): string | null => {
    let verdict: ReturnType<typeof targetAddressVerdict>;
    try {
      verdict = targetAddressVerdict(address);
    } catch {
      return 'not an IP address';
    }
    if (verdict.classification === 'forbidden') return `a forbidden address (${verdict.range})`;
    if (verdict.classification === 'private' && !opts.allowPrivateTargets)
      return `a private address (${verdict.range})`;
    return null;
  };

  /** The URL's own problems (scheme, credentials), before any address is looked at. */
  const shapeProblem = (url: URL): string | null => {
    if (url.protocol !== 'https:') return `must be an https:// URL, not ${url.protocol}//`;
    if (url.username !== '' || url.password !== '') return 'must not carry a user name or password';
    if (url.hostname === '') return 'has no host';
    return null;
  };

  return {
    async checkUrl(text) {
      let url: URL;
      try {
        url = new URL(text);
      } catch {
        return { ok: false, reason: 'is not a valid URL' };
      }
      const problem = shapeProblem(url);
      if (problem !== null) return { ok: false, reason: problem };
      const literal = ipLiteralOf(url);
      if (literal !== null) {
        const refused = refusal(literal);
        return refused === null ? { ok: true } : { ok: false, reason: `is ${literal}, ${refused}` };
      }
      let addresses: ResolvedAddress[];
      try {
        addresses = await lookup(url.hostname);
      } catch {
        // Not resolving yet is allowed (a receiver set up before its DNS record): every attempt
        // checks again, and an attempt needs an address that passes.
        return { ok: true };
      }
      for (const { address } of addresses) {
        const refused = refusal(address);
        // The class, not the address: a tenant learns nothing about internal DNS from a refusal.
        if (refused !== null) return { ok: false, reason: `resolves to ${refused}` };
      }
      return { ok: true };
    },

    async resolveForAttempt(url) {
      const problem = shapeProblem(url);
      if (problem !== null) throw new TargetRefusedError(`the URL ${problem}`);
      const literal = ipLiteralOf(url);
      if (literal !== null) {
        const refused = refusal(literal);
        if (refused !== null) throw new TargetRefusedError(`${literal} is ${refused}`);
        return { address: literal, family: isIP(literal) === 6 ? 6 : 4 };
      }
      let addresses: ResolvedAddress[];
      try {
        addresses = await lookup(url.hostname);
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        throw new Error(`${url.hostname} did not resolve${code ? ` (${code})` : ''}`);
      }
      const first = addresses[0];
      if (first === undefined) throw new Error(`${url.hostname} did not resolve (no address)`);
      // All of them, not just the first: the answer order is the resolver's to change.
      for (const { address } of addresses) {
        const refused = refusal(address);
        if (refused !== null) throw new TargetRefusedError(`${url.hostname} resolves to ${refused}`);
      }
      return { address: first.address, family: isIP(first.address) === 6 ? 6 : 4 };
    },
  };
}

/** The host name of `url` as a lookup or a connection takes it: an IPv6 literal without brackets. */
export function bareHostOf(url: URL): string {
  return url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
}

/** The host of `url` when it is an IP address (WHATWG URL has already put it in canonical form). */
function ipLiteralOf(url: URL): string | null {
  const host = bareHostOf(url);
  return isIP(host) === 0 ? null : host;
}
