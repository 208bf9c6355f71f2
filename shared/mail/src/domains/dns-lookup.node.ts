// DnsLookup on node:dns's c-ares resolver with the servers of DNS_SERVERS. Any failure to get an
// answer (NXDOMAIN, no data, SERVFAIL, refused, a timeout) reads as "no record": the records are
// then not verified, and the caller answers 200 pending, never a 5xx.
import { Resolver } from 'node:dns/promises';
import type { Logger } from '@lattice/core';
import type { DnsLookup, DnsLookupSettings } from './dns-lookup.ts';

/** A verify answers within about (1 + 2) × 2 s when the resolvers stay silent. */
const DEFAULT_TIMEOUT_MS = 2000;
const DEFAULT_TRIES = 2;

/** Throws at creation when a server is not `ip` or `ip:port`, so a bad DNS_SERVERS fails startup. */
export function createNodeDnsLookup(settings: DnsLookupSettings, deps: { logger: Logger }): DnsLookup {
  const resolver = new Resolver({
    timeout: settings.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    tries: settings.tries ?? DEFAULT_TRIES,
  });
  if (settings.servers.length > 0) resolver.setServers([...settings.servers]);
  const logger = deps.logger.child({ component: 'mail-dns' });

  const noAnswer = (name: string, type: string) => (err: unknown) => {
    const code = (err as NodeJS.ErrnoException).code ?? 'unknown';
    logger.debug({ name, type, code }, 'no DNS answer; the record reads as absent');
    return [];
  };
  return {
    txt: (name) =>
      resolver
        .resolveTxt(name)
        .then((records) => records.map((strings) => strings.join('')), noAnswer(name, 'TXT')),
    mx: (name) =>
      resolver.resolveMx(name).then((records) => records.map((r) => r.exchange), noAnswer(name, 'MX')),
  };
}
