// One server of the edge benchmark, run as a child process of run.ts (fork, IPC):
//   bare        express with the trivial handler and nothing else
//   edge        the edge role, exactly as `lattice start edge` starts it: per-IP limit in Redis
//               (a limit too high to reject), key check against the PostgreSQL snapshot of the
//               environment (100 000 keys seeded by run.ts), key header stripping, metrics, and
//               the same trivial handler registered as the toolkit's
//   edge-spread the edge with the real per-IP limit (100 per minute) behind a trusted proxy
//               (loopback), the load generator naming a new client address in X-Forwarded-For on
//               every request: each request is its address's first in the window, so each one
//               needs a lease from Redis (the leased limiter's worst case)
//   edge-local  the edge app with the per-IP limit counted in process memory instead of Redis
//               and no metrics: not a deployable setup (so not the role), a breakdown row that
//               shows what Redis costs
// All answer the same route with the same body, so the differences are the edge's pipeline. The
// edges log at args.logLevel (the production level unless the run says otherwise; run.ts adds an
// edge at `warn` as a breakdown row) to args.logFile, as `lattice start` logs to stderr
// (support/platform-log.ts). The parent asks for CPU time over IPC, to report the server's cost
// per request.
import type { AddressInfo } from 'node:net';
import { createRoleShared } from '@lattice/cli';
import { loadConfig, systemClock } from '@lattice/core';
import { createEdgeApp, createKeySnapshotHolder, edgeRole, perIpPolicy } from '@lattice/edge';
import { NO_EDGE_METRICS } from '@lattice/edge/testing';
import { createPostgresPublicKeyRepository } from '@lattice/keys';
import { createMemoryRateLimiter } from '@lattice/redis';
import { createDb } from '@lattice/store';
import express from 'express';
import { Registry } from 'prom-client';
import { fileLogger, type LogLevel } from '../support/platform-log.ts';

export interface ServerArgs {
  mode: 'bare' | 'edge' | 'edge-spread' | 'edge-local';
  databaseUrl: string;
  redisUrl: string;
  redisKeyPrefix: string;
  logLevel: LogLevel;
  logFile: string;
}

export type ServerMessage =
  | { type: 'ready'; url: string; snapshotKeys: number | null; snapshotLoadMs: number | null }
  | { type: 'cpu'; userUs: number; systemUs: number };

const BODY = { id: 'e1', status: 'sent' };
const LIMIT_NEVER_REACHED = 1_000_000_000;

const args = JSON.parse(process.argv[2] ?? '{}') as ServerArgs;
const logger = fileLogger(`bench-${args.mode}`, args.logLevel, args.logFile);
const send = (message: ServerMessage) => process.send?.(message);

interface Running {
  url: string;
  snapshotKeys: number | null;
  snapshotLoadMs: number | null;
  stop(): Promise<void>;
}

function listen(app: express.Express): Promise<{ url: string; stop(): Promise<void> }> {
  return new Promise((resolve) => {
    const server = app.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      resolve({
        url: `http://127.0.0.1:${port}`,
        stop: async () => {
          server.closeAllConnections();
          server.close();
        },
      });
    });
  });
}

async function start(): Promise<Running> {
  if (args.mode === 'bare') {
    const app = express();
    app.disable('x-powered-by');
    app.set('etag', false);
    app.get('/:productId/mail/emails/:id', (_req, res) => {
      res.status(200).json(BODY);
    });
    return { ...(await listen(app)), snapshotKeys: null, snapshotLoadMs: null };
  }
  const db = createDb({ databaseUrl: args.databaseUrl, logger });
  const toolkits = [{ public_mail_email_get: () => ({ status: 200, body: BODY }) }];
  const startedMs = Date.now();
  if (args.mode === 'edge' || args.mode === 'edge-spread') {
    const config = loadConfig(process.env, {
      databaseUrl: args.databaseUrl,
      redisUrl: args.redisUrl,
      redisKeyPrefix: args.redisKeyPrefix,
      publicUrls: { production: 'http://127.0.0.1:0', development: 'http://127.0.0.1:0' },
      ...(args.mode === 'edge'
        ? { perIpRequestsPerMinute: LIMIT_NEVER_REACHED }
        : { perIpRequestsPerMinute: 100, trustProxy: 'loopback' }),
      logLevel: args.logLevel,
    });
    const shared = createRoleShared({ config, logger, registry: new Registry(), db });
    const role = edgeRole('production');
    const edge = await role.start(
      { ...role.configOf(config), firstLoadWaitMs: 60_000 },
      { ...shared, toolkits },
    );
    return {
      url: edge.url,
      snapshotKeys: edge.snapshots.current()?.size ?? null,
      snapshotLoadMs: Date.now() - startedMs,
      async stop() {
        await edge.close();
        await shared.close();
        await db.destroy();
      },
    };
  }
  const snapshots = createKeySnapshotHolder({
    environment: 'production',
    keys: createPostgresPublicKeyRepository(db),
    refreshMs: 30_000,
    logger,
    metrics: NO_EDGE_METRICS,
  });
  await snapshots.start();
  const snapshotLoadMs = Date.now() - startedMs;
  const app = createEdgeApp({
    environment: 'production',
    snapshots,
    limiter: createMemoryRateLimiter({ policy: perIpPolicy(LIMIT_NEVER_REACHED) }),
    toolkits,
    logger,
    trustProxy: 'false',
    revokedGraceMs: 30_000,
    metrics: NO_EDGE_METRICS,
    clock: systemClock,
  });
  const listening = await listen(app);
  return {
    url: listening.url,
    snapshotKeys: snapshots.current()?.size ?? null,
    snapshotLoadMs,
    async stop() {
      await listening.stop();
      snapshots.close();
      await db.destroy();
    },
  };
}

const running = await start();
send({
  type: 'ready',
  url: running.url,
  snapshotKeys: running.snapshotKeys,
  snapshotLoadMs: running.snapshotLoadMs,
});

process.on('message', (message: { type: string }) => {
  if (message.type === 'cpu') {
    const { user, system } = process.cpuUsage();
    send({ type: 'cpu', userUs: user, systemUs: system });
  } else if (message.type === 'stop') {
    void running.stop().finally(() => process.exit(0));
  }
});
