// lattice: the Lattice WebSocket gateway (the `gateway` role as `lattice start gateway` runs it,
// logging at the production level unless the run says otherwise), fed over Redis pub/sub exactly
// as the channel actors feed it (the runner publishes the fan-out encoding on `fanOutChannel`).
// Its load clients get a token per channel from a token endpoint served by a child process (the
// integrator's backend, minting through the realtime token service; its work is not the
// gateway's CPU or memory). For the HTTP publish hook (the latency phase and the publish-path
// shapes) the actors role and the production edge run in a child process of their own
// (lattice-platform.ts), and the runner publishes through the edge with a public key.
import { fork } from 'node:child_process';
import { join } from 'node:path';
import { createCatalogTopics } from '@lattice/actors';
import { createRoleShared } from '@lattice/cli';
import { loadConfig, newId } from '@lattice/core';
import { gatewayRole } from '@lattice/gateway';
import { ensureDatabase } from '@lattice/infra';
import { createDb, migrateLatest } from '@lattice/store';
import { Registry } from 'prom-client';
import { benchProduct, deleteBenchProduct } from '../support/bench-product.ts';
import { fileLogger } from '../support/platform-log.ts';
import type { PlatformArgs } from './lattice-platform.ts';
import type { TokenServerArgs } from './lattice-tokens.ts';
import { runServerChild } from './server-child.ts';

runServerChild(async (args) => {
  const logger = fileLogger('bench-gateway-lattice', args.logLevel, join(args.logDir, 'gateway.log'));
  const kafkaTopicPrefix = `bench-gateway-${newId().slice(0, 8)}.`;
  const config = loadConfig(process.env, {
    databaseUrl: args.databaseUrl,
    redisUrl: args.redisUrl,
    redisKeyPrefix: args.redisKeyPrefix,
    kafkaTopicPrefix,
    logLevel: args.logLevel,
  });
  await ensureDatabase(args.databaseUrl, { logger });
  const db = createDb({ databaseUrl: args.databaseUrl, logger, poolMax: 10 });
  await migrateLatest(db, logger);
  const shared = createRoleShared({ config, logger, registry: new Registry(), db });
  const { productId, publicKey } = await benchProduct(db, `bench-gateway-${newId()}`);
  const role = gatewayRole('production');
  const gateway = await role.start({ ...role.configOf(config), port: 0 }, shared);

  const tokens = await startChild<{ url: string }>('./lattice-tokens.ts', {
    databaseUrl: args.databaseUrl,
    redisUrl: args.redisUrl,
    productId,
  } satisfies TokenServerArgs);

  let platform: Child<{ edgeUrl: string }> | null = null;
  let publish: { publishUrl: string; headers: Record<string, string> } | undefined;
  if (args.publishHook) {
    await createCatalogTopics(config, shared.kafka('bench-topics'), logger);
    platform = await startChild<{ edgeUrl: string }>('./lattice-platform.ts', {
      databaseUrl: args.databaseUrl,
      redisUrl: args.redisUrl,
      redisKeyPrefix: args.redisKeyPrefix,
      kafkaTopicPrefix,
      logLevel: args.logLevel,
      logFile: join(args.logDir, 'platform.log'),
    } satisfies PlatformArgs);
    // The integrator's backend key (the edge loads its key snapshot at start, after this).
    publish = {
      publishUrl: `${platform.ready.edgeUrl}/${productId}/realtime/messages`,
      headers: { authorization: `Bearer ${publicKey}`, 'content-type': 'application/json' },
    };
  }

  return {
    ready: {
      url: gateway.url,
      feed: { kind: 'lattice-fanout', redisKeyPrefix: args.redisKeyPrefix, productId },
      client: { protocol: 'ws-json', tokenUrl: tokens.ready.url },
      channelPrefix: 'bench:',
      ...(publish && platform ? { publish, platformPid: platform.pid } : {}),
    },
    async stop() {
      await platform?.stop();
      await tokens.stop();
      await gateway.close();
      await shared.close();
      await deleteBenchProduct(db, productId);
      await db.destroy();
    },
  };
});

interface Child<R> {
  ready: R;
  pid: number;
  stop(): Promise<void>;
}

/** A helper process of this server (tsx, IPC): resolves with its `ready` message. */
async function startChild<R>(file: string, childArgs: object): Promise<Child<R>> {
  const child = fork(new URL(file, import.meta.url), [JSON.stringify(childArgs)], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  const ready = await new Promise<R>((resolve, reject) => {
    child.once('message', (m: R) => resolve(m));
    child.once('exit', (code) => reject(new Error(`${file} exited (${code})`)));
  });
  return {
    ready,
    pid: child.pid ?? 0,
    async stop() {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.send({ type: 'stop' });
      await exited;
    },
  };
}
