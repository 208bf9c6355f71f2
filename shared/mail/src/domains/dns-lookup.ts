// What domain verification asks DNS. An interface so the verification rules stay pure; the one
// implementation is dns-lookup.node.ts (integration tests point it at a DNS server of their own).

export interface DnsLookup {
  /** Each TXT record at `name`, its strings joined; empty when there is none or no answer. */
  txt(name: string): Promise<string[]>;
  /** The MX exchanges at `name`; empty when there is none or no answer. */
  mx(name: string): Promise<string[]>;
}

export interface DnsLookupSettings {
  /** `ip` or `ip:port` (`[ipv6]:port`), as dns.setServers takes them; empty: the system's. */
  servers: readonly string[];
  /** Per try; c-ares doubles it on each further try. */
  timeoutMs?: number;
  tries?: number;
}
