// A real DNS server for integration tests (dns2), on 127.0.0.1 on a free port, UDP and TCP (a
// long answer that does not fit a UDP reply is retried over TCP, as resolvers do). Tests publish
// and remove records while it runs and can make it fail the ways real servers fail.
import dns2 from 'dns2';

const { Packet } = dns2;

/** How the server answers every query: normally, SERVFAIL, or not at all (a timeout). */
export type TestDnsMode = 'answer' | 'servfail' | 'silent';

export interface TestDnsServer {
  /** `127.0.0.1:<port>`, as DNS_SERVERS takes it. */
  readonly address: string;
  /** Publishes a TXT record; a value over 255 octets goes out as several strings, as DNS hosts do. */
  txt(name: string, value: string): void;
  mx(name: string, exchange: string, priority?: number): void;
  /** Removes every record at the name (every record when no name is given). */
  remove(name?: string): void;
  mode: TestDnsMode;
  /** Queries received, `TYPE name` each. */
  readonly queries: string[];
  close(): Promise<void>;
}

/** Pairs tried before giving up; each failure is a TCP port that another socket of the suite holds. */
const BIND_ATTEMPTS = 50;

/** Resolves once the server listens; rejects with its listen error (dns2 only emits it). */
function listening(
  server: dns2.DnsServer,
  options: dns2.DnsServerListenOptions,
): Promise<dns2.ServerAddresses> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(options).then((addresses) => {
      server.off('error', reject);
      resolve(addresses);
    }, reject);
  });
}

/**
 * UDP and TCP on one port number, as a resolver expects (it retries a truncated answer over TCP
 * on the same port). The system hands out a free UDP port, but the same number may be taken for
 * TCP by another socket of the suite: then the pair is given up and tried again on a new number.
 */
async function bindPair(
  handle: dns2.DnsHandler,
  udpPorts: readonly number[],
): Promise<{ udp: dns2.DnsServer; tcp: dns2.DnsServer; port: number }> {
  for (let attempt = 1; ; attempt++) {
    const udp = dns2.createServer({ udp: true, handle });
    const { udp: bound } = await listening(udp, {
      udp: { port: udpPorts[attempt - 1] ?? 0, address: '127.0.0.1' },
    });
    const port = bound!.port;
    const tcp = dns2.createServer({ tcp: true, handle });
    try {
      await listening(tcp, { tcp: { port, address: '127.0.0.1' } });
      return { udp, tcp, port };
    } catch (err) {
      await udp.close();
      if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE' || attempt >= BIND_ATTEMPTS) throw err;
    }
  }
}

type Answer = { type: 'TXT'; strings: string[] } | { type: 'MX'; exchange: string; priority: number };

export interface TestDnsServerOptions {
  /** The UDP ports of the first attempts (default: any free one each time); for the server's own test. */
  udpPorts?: readonly number[];
}

export async function startTestDnsServer(opts: TestDnsServerOptions = {}): Promise<TestDnsServer> {
  const zone = new Map<string, Answer[]>();
  const queries: string[] = [];
  const server: { mode: TestDnsMode } = { mode: 'answer' };

  const handle: dns2.DnsHandler = (request, send) => {
    const [question] = request.questions;
    if (!question) return;
    const name = question.name.toLowerCase().replace(/\.$/, '');
    const type =
      question.type === Packet.TYPE.MX ? 'MX' : question.type === Packet.TYPE.TXT ? 'TXT' : 'other';
    queries.push(`${type} ${name}`);
    if (server.mode === 'silent') return;
    const response = Packet.createResponseFromRequest(request);
    const records = zone.get(name);
    if (server.mode === 'servfail') response.header.rcode = Packet.RCODE.SERVFAIL;
    else if (!records) response.header.rcode = Packet.RCODE.NXDOMAIN;
    for (const r of server.mode === 'answer' ? (records ?? []) : []) {
      if (r.type !== type) continue;
      const common = { name: question.name, class: Packet.CLASS.IN, ttl: 60 };
      // dns2 encodes plain records; its Resource type also names the decoder's methods.
      response.answers.push(
        (r.type === 'TXT'
          ? { ...common, type: Packet.TYPE.TXT, data: r.strings }
          : {
              ...common,
              type: Packet.TYPE.MX,
              exchange: r.exchange,
              priority: r.priority,
            }) as dns2.Packet.Resource,
      );
    }
    send(response);
  };

  const { udp, tcp, port } = await bindPair(handle, opts.udpPorts ?? []);

  const add = (name: string, answer: Answer) => {
    const key = name.toLowerCase();
    zone.set(key, [...(zone.get(key) ?? []), answer]);
  };
  return {
    address: `127.0.0.1:${port}`,
    queries,
    get mode() {
      return server.mode;
    },
    set mode(mode: TestDnsMode) {
      server.mode = mode;
    },
    txt(name, value) {
      const bytes = Buffer.from(value, 'utf8');
      const strings: string[] = [];
      for (let at = 0; at < bytes.length; at += 255)
        strings.push(bytes.subarray(at, at + 255).toString('utf8'));
      add(name, { type: 'TXT', strings: strings.length > 0 ? strings : [''] });
    },
    mx(name, exchange, priority = 10) {
      add(name, { type: 'MX', exchange, priority });
    },
    remove(name) {
      if (name === undefined) zone.clear();
      else zone.delete(name.toLowerCase());
    },
    async close() {
      await Promise.all([udp.close(), tcp.close()]);
    },
  };
}
