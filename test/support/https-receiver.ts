// A webhook receiver for tests: a real HTTPS server (node:https) with a certificate from the
// suite's test CA (scripts/ensure-test-ca.sh), which keeps every request it gets and answers as
// the test says. `respond` may be replaced between attempts (a receiver that recovers), and an
// answer may be held until the test releases it (`hold`), for time limits without real waits.
// `untrusted: true` serves a self-signed certificate instead, to see certificate failures.
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { join } from 'node:path';

export interface ReceivedRequest {
  method: string;
  /** Path and query, as sent. */
  path: string;
  headers: Record<string, string | string[] | undefined>;
  /** The raw body bytes, as a signature check must see them. */
  body: Buffer;
  receivedAtMs: number;
  /** The client's address as this server saw it (`::ffff:127.0.0.1` on a dual-stack socket). */
  remoteAddress: string;
}

export interface ReceiverAnswer {
  /** Default 204. */
  status?: number;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** Waits this long after the whole request arrived (and after `hold`, if any) before answering. */
  delayMs?: number;
  /**
   * Answers only once this settles: the test releases the answer when it chooses, with no real
   * wait (a receiver that has not answered yet, for a time limit on a manual scheduler).
   */
  hold?: Promise<unknown>;
  /** Sends the head and part of the body, then never ends it (a stalled receiver). */
  endless?: boolean;
  /** Drops the connection instead of answering (as a keep-alive socket closed under a request). */
  hangUp?: boolean;
}

export type ReceiverHandler = (req: ReceivedRequest) => ReceiverAnswer | undefined;

export interface HttpsReceiverOptions {
  /** The initial `respond`; default: 204 at once. */
  handler?: ReceiverHandler;
  /** Where the certificates are; default LATTICE_TEST_CA_DIR. */
  certDir?: string;
  /** Serve the self-signed untrusted.pem instead of the CA-signed server.pem. */
  untrusted?: boolean;
}

export interface HttpsReceiver {
  port: number;
  /** `https://localhost:<port><path>` (the certificate also names 127.0.0.1 and ::1). */
  url(path?: string): string;
  requests: ReceivedRequest[];
  respond: ReceiverHandler;
  /** TLS connections completed so far (each `secureConnection`): keep-alive reuse shows here. */
  tlsConnections: number;
  /** Resolves with the requests once there are at least `count`; rejects after `timeoutMs`. */
  waitFor(count: number, timeoutMs?: number): Promise<ReceivedRequest[]>;
  /** Stops listening and drops every connection, idle or not. */
  close(): Promise<void>;
}

const defaultHandler: ReceiverHandler = () => ({ status: 204 });

export function testCaDir(): string {
  const dir = process.env.LATTICE_TEST_CA_DIR;
  if (!dir || !process.env.NODE_EXTRA_CA_CERTS) {
    throw new Error(
      'the HTTPS test receiver needs NODE_EXTRA_CA_CERTS and LATTICE_TEST_CA_DIR (the test CA): ' +
        'run through npm test / scripts/test.sh, or export them from scripts/ensure-test-ca.sh',
    );
  }
  return dir;
}

export async function startHttpsReceiver(opts: HttpsReceiverOptions = {}): Promise<HttpsReceiver> {
  const dir = opts.certDir ?? testCaDir();
  const name = opts.untrusted ? 'untrusted' : 'server';
  const sockets = new Set<Socket>();
  const waiters = new Set<() => void>();
  const receiver: HttpsReceiver = {
    port: 0,
    url: (path = '/') => `https://localhost:${receiver.port}${path}`,
    requests: [],
    respond: opts.handler ?? defaultHandler,
    tlsConnections: 0,
    waitFor(count, timeoutMs = 10_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (receiver.requests.length < count) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve(receiver.requests);
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(
            new Error(`the receiver got ${receiver.requests.length} of ${count} requests in ${timeoutMs} ms`),
          );
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
    close: async () => undefined,
  };

  const server: Server = createServer(
    { cert: readFileSync(join(dir, `${name}.pem`)), key: readFileSync(join(dir, `${name}-key.pem`)) },
    (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const received: ReceivedRequest = {
          method: req.method ?? '',
          path: req.url ?? '',
          headers: { ...req.headers },
          body: Buffer.concat(chunks),
          receivedAtMs: Date.now(),
          remoteAddress: req.socket.remoteAddress ?? '',
        };
        receiver.requests.push(received);
        for (const waiter of [...waiters]) waiter();
        const answer = receiver.respond(received) ?? {};
        const send = () => {
          if (res.destroyed) return;
          if (answer.hangUp) {
            req.socket.destroy();
            return;
          }
          res.writeHead(answer.status ?? 204, answer.headers);
          if (answer.endless) {
            res.write('{"still":"writing"');
            return;
          }
          res.end(answer.body);
        };
        const answerAfterDelay = () => {
          if (answer.delayMs) setTimeout(send, answer.delayMs);
          else send();
        };
        if (answer.hold) answer.hold.then(answerAfterDelay, answerAfterDelay);
        else answerAfterDelay();
      });
    },
  );
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  server.on('secureConnection', () => {
    receiver.tlsConnections += 1;
  });
  // A failed handshake (the client refused our certificate) is the test's business, not a crash.
  server.on('tlsClientError', () => undefined);

  // Dual stack: 127.0.0.1, ::1 and ::ffff:127.0.0.1 all reach it. IPv4 alone where IPv6 is off.
  await new Promise<void>((resolve, reject) => {
    const onError = (err: NodeJS.ErrnoException) => {
      if (err.code !== 'EAFNOSUPPORT' && err.code !== 'EADDRNOTAVAIL') return reject(err);
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    };
    server.once('error', onError);
    server.listen({ port: 0, host: '::', ipv6Only: false }, () => {
      server.removeListener('error', onError);
      resolve();
    });
  });
  server.on('error', () => undefined);
  receiver.port = (server.address() as AddressInfo).port;
  receiver.close = () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      for (const socket of sockets) socket.destroy();
      server.closeAllConnections();
    });
  return receiver;
}
