// The server side of the webhook benchmark: two child processes of run.ts (fork, IPC).
//   actors    the actors role as `lattice start actors` starts it, with
//             WEBHOOK_ALLOW_PRIVATE_TARGETS=true in its environment (the receiver is on this
//             machine) and NODE_EXTRA_CA_CERTS naming the suite's test CA (read by Node at start):
//             the webhook fan-out on `mail.events` records the deliveries and wakes the endpoint
//             actors, whose loops sign and POST each one through the HTTPS requester
//   receiver  a lean HTTPS server with the test CA's server certificate: it answers 204 as soon
//             as a request's body is in, verifies nothing, and reports each request to the
//             parent (webhook-id, path, epoch ms of its arrival) in batches every few
//             milliseconds, keeping nothing else
// The actors run with the settings `lattice start` gives them (their periodic jobs at their
// intervals over every product), logging at args.logLevel to args.logFile
// (support/platform-log.ts). The parent asks each child for its CPU time and, from the actors,
// the SQL statements run so far, from the receiver the TLS handshakes it made.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { actorsRole } from '@lattice/actors';
import { actorsSettingsOf, benchPlatform } from '../support/bench-product.ts';
import type { LogLevel } from '../support/platform-log.ts';

export type ServerRole = 'actors' | 'receiver';

export interface ServerArgs {
  role: ServerRole;
  databaseUrl: string;
  redisKeyPrefix: string;
  kafkaTopicPrefix: string;
  /** LATTICE_SECRET_KEYS of the run: the parent seals the endpoints' secrets with it. */
  secretKeys: string;
  logLevel: LogLevel;
  logFile: string;
  /** The test CA's directory (server.pem, server-key.pem), for the receiver. */
  certDir: string;
}

/** One request at the receiver: its webhook-id, its path (the delivery tag), epoch ms (sub-ms). */
export type Arrival = [webhookId: string, path: string, atMs: number];

export type ServerMessage =
  | { type: 'ready'; url: string }
  | { type: 'cpu'; userUs: number; systemUs: number }
  | { type: 'stats'; cpuUs: number; statements: number; webhookStatements: number; handshakes: number }
  | { type: 'received'; requests: Arrival[] };

const args = JSON.parse(process.argv[2] ?? '{}') as ServerArgs;
const send = (m: ServerMessage) => process.send?.(m);
/** Epoch milliseconds with the monotonic clock's resolution (comparable across processes). */
const epochMs = () => performance.timeOrigin + performance.now();
const FLUSH_MS = 5;

/** The receiver: `https://localhost:<port>` (the certificate names localhost, 127.0.0.1, ::1). */
async function startReceiver(): Promise<{ url: string; handshakes(): number; close(): Promise<void> }> {
  let pending: Arrival[] = [];
  let handshakes = 0;
  const sockets = new Set<Socket>();
  const server = createServer(
    {
      cert: readFileSync(join(args.certDir, 'server.pem')),
      key: readFileSync(join(args.certDir, 'server-key.pem')),
    },
    (req, res) => {
      // Stamped when the request's head is parsed: the moment a receiver's handler could act.
      pending.push([String(req.headers['webhook-id'] ?? ''), req.url ?? '', epochMs()]);
      req.resume();
      req.on('end', () => {
        res.writeHead(204);
        res.end();
      });
    },
  );
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  // Keep-alive reuse shows here: a new connection costs both sides a TLS handshake.
  server.on('secureConnection', () => {
    handshakes++;
  });
  const flush = setInterval(() => {
    if (pending.length === 0) return;
    send({ type: 'received', requests: pending });
    pending = [];
  }, FLUSH_MS);
  // Dual stack, as test/support/https-receiver.ts: whichever address `localhost` resolves to.
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ port: 0, host: '::', ipv6Only: false }, () => {
      server.removeListener('error', reject);
      resolve();
    });
  });
  return {
    url: `https://localhost:${(server.address() as AddressInfo).port}`,
    handshakes: () => handshakes,
    close: () =>
      new Promise<void>((resolve) => {
        clearInterval(flush);
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      }),
  };
}

async function main(): Promise<void> {
  const stops: Array<() => Promise<void>> = [];
  let url = '';
  let statements = 0;
  let webhookStatements = 0;
  let handshakes = () => 0;
  if (args.role === 'receiver') {
    const receiver = await startReceiver();
    url = receiver.url;
    handshakes = receiver.handshakes;
    stops.push(() => receiver.close());
  } else {
    const { config, db, shared } = benchPlatform(args, 'bench-webhooks-actors');
    if (config.webhooks.allowPrivateTargets !== true)
      throw new Error('the actors child needs WEBHOOK_ALLOW_PRIVATE_TARGETS=true (the receiver is local)');
    // Each statement is a round trip to PostgreSQL; those on the webhook tables are counted apart
    // from the rest (the email-state actor's lookups of the events' emails).
    db.on('query', (q: { sql?: string }) => {
      statements++;
      if (q.sql?.includes('mail_webhook_')) webhookStatements++;
    });
    const actors = await actorsRole.start(actorsSettingsOf(config), shared);
    stops.push(
      () => actors.close(),
      () => shared.close(),
      () => db.destroy(),
    );
  }
  process.on('message', async (m: { type: string }) => {
    if (m.type === 'cpu') {
      const { user, system } = process.cpuUsage();
      send({ type: 'cpu', userUs: user, systemUs: system });
    } else if (m.type === 'stats') {
      const { user, system } = process.cpuUsage();
      send({ type: 'stats', cpuUs: user + system, statements, webhookStatements, handshakes: handshakes() });
    } else if (m.type === 'stop') {
      for (const stop of stops) await stop();
      process.exit(0);
    }
  });
  send({ type: 'ready', url });
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
