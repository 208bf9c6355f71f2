// The test DNS server binds UDP and TCP on one port number even when another socket of the suite
// already holds that number for TCP: it gives the pair up and tries a new one.
import { Resolver } from 'node:dns/promises';
import { createServer, type Server } from 'node:net';
import { expect } from 'chai';
import { startTestDnsServer } from './test-dns-server.ts';

function listenTcp(): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve(server));
  });
}

describe('test DNS server', () => {
  it('moves to another port pair when its UDP port is taken for TCP, and answers on both protocols', async () => {
    const squatter = await listenTcp();
    const taken = (squatter.address() as { port: number }).port;
    const dns = await startTestDnsServer({ udpPorts: [taken] });
    try {
      expect(dns.address).to.not.equal(`127.0.0.1:${taken}`);
      // A value over 512 octets does not fit a UDP answer: the resolver retries over TCP.
      const long = 'v=DKIM1; p='.padEnd(900, 'A');
      dns.txt('long.example.test', long);
      dns.txt('short.example.test', 'hello');
      const resolver = new Resolver({ timeout: 2000, tries: 1 });
      resolver.setServers([dns.address]);
      expect((await resolver.resolveTxt('short.example.test')).map((s) => s.join(''))).to.deep.equal([
        'hello',
      ]);
      expect((await resolver.resolveTxt('long.example.test')).map((s) => s.join(''))).to.deep.equal([long]);
    } finally {
      await dns.close();
      await new Promise((resolve) => squatter.close(resolve));
    }
  });
});
