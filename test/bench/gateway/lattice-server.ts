// lattice: the Lattice WebSocket gateway (the `gateway` role as `lattice start gateway` runs it),
// fed over Redis pub/sub exactly as the channel actors feed it (the runner publishes the fan-out
// encoding on `fanOutChannel`). Its load clients get a token per channel from a token endpoint
// served here, the integrator's backend minting through the realtime token service. For the
// latency phase the actors role and the production edge run in a child process of their own
// (lattice-platform.ts), and the runner publishes through the edge with a public key.
import { fork } from 'node:child_process';
import { createServer } from 'node:http';
import { createCatalogTopics } from '@lattice/actors';
import { createRoleShared } from '@lattice/cli';
import { createLogger, loadConfig, newId } from '@lattice/core';
import { gatewayRole } from '@lattice/gateway';
import { ensureDatabase } from '@lattice/infra';
import { createPostgresPublicKeyRepository, mintKey } from '@lattice/keys';
import { createPostgresNamespaceRepository } from '@lattice/realtime';
import { bootstrapProduct, createDb, migrateLatest } from '@lattice/store';
import { Registry } from 'prom-client';
import type { PlatformArgs } from './lattice-platform.ts';
import { runServerChild } from './server-child.ts';

runServerChild(async (args) => {
  const logger = createLogger({ name: 'bench-gateway-lattice', level: 'error' });
  const kafkaTopicPrefix = `bench-gateway-${newId().slice(0, 8)}.`;
  const config = loadConfig(process.env, {
    databaseUrl: args.databaseUrl,
    redisUrl: args.redisUrl,
    redisKeyPrefix: args.redisKeyPrefix,
    kafkaTopicPrefix,
    logLevel: 'warn',
  });
  await ensureDatabase(args.databaseUrl, { logger });
  const db = createDb({ databaseUrl: args.databaseUrl, logger, poolMax: 10 });
  await migrateLatest(db, logger);
  const shared = createRoleShared({ config, logger, registry: new Registry(), db });
  const { product_id: productId } = await bootstrapProduct(db, {
    name: `bench-gateway-${newId()}`,
  });
  await createPostgresNamespaceRepository(db).put(productId, 'bench', {
    presence: false,
    clientEvents: false,
    historyWindowSeconds: 3600,
    archiveDays: 0,
  });
  const role = gatewayRole('production');
  const gateway = await role.start({ ...role.configOf(config), port: 0 }, shared);

  const tokens = createServer(async (req, res) => {
    let body = '';
    for await (const chunk of req) body += chunk;
    try {
      const { channel } = JSON.parse(body) as { channel: string };
      const issued = await shared.realtime().tokens.issue({
        productId,
        environment: 'production',
        body: { subject: 'bench', channels: [{ name: channel, ops: ['subscribe'] }], ttlSeconds: 3600 },
      });
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ token: issued.token }));
    } catch (err) {
      res.writeHead(400).end(String(err));
    }
  });
  await new Promise<void>((resolve) => tokens.listen(0, '127.0.0.1', resolve));
  const tokenPort = (tokens.address() as { port: number }).port;

  const minted = mintKey('lpk_');
  await createPostgresPublicKeyRepository(db).create({
    productId,
    environment: 'production',
    name: 'bench',
    prefix: 'lpk_',
    hash: minted.hash,
    visible: minted.visible,
    scope: { kind: 'toolkit', toolkit: 'realtime' },
    createdBy: null,
  });
  const publicKey = minted.secret;
  let platform: ReturnType<typeof fork> | null = null;
  let latency: { publishUrl: string; headers: Record<string, string> } | undefined;
  if (args.latencyHook) {
    await createCatalogTopics(config, shared.kafka('bench-topics'), logger);
    const platformArgs: PlatformArgs = {
      databaseUrl: args.databaseUrl,
      redisUrl: args.redisUrl,
      redisKeyPrefix: args.redisKeyPrefix,
      kafkaTopicPrefix,
    };
    platform = fork(new URL('./lattice-platform.ts', import.meta.url), [JSON.stringify(platformArgs)], {
      execArgv: ['--import', 'tsx'],
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    });
    const edgeUrl = await new Promise<string>((resolve, reject) => {
      platform!.once('message', (m: { edgeUrl: string }) => resolve(m.edgeUrl));
      platform!.once('exit', (code) => reject(new Error(`the platform child exited (${code})`)));
    });
    // The integrator's backend key (the edge loads its key snapshot at start, after this).
    latency = {
      publishUrl: `${edgeUrl}/${productId}/realtime/messages`,
      headers: { authorization: `Bearer ${publicKey}`, 'content-type': 'application/json' },
    };
  }

  return {
    ready: {
      url: gateway.url,
      feed: { kind: 'lattice-fanout', redisKeyPrefix: args.redisKeyPrefix, productId },
      client: { protocol: 'ws-json', tokenUrl: `http://127.0.0.1:${tokenPort}/` },
      channelPrefix: 'bench:',
      ...(latency ? { latency } : {}),
    },
    async stop() {
      if (platform) {
        const exited = new Promise((resolve) => platform!.once('exit', resolve));
        platform.send({ type: 'stop' });
        await exited;
      }
      tokens.close();
      await gateway.close();
      await shared.close();
      await db.destroy();
    },
  };
});
