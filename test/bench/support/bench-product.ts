// What the benchmarks set up the same way: a product with a `bench` namespace (an hour of
// history, no presence, no client events) and a realtime public key for it, and a platform
// process with its limits out of the way (the benchmarks measure the path, not the limits), its
// logs at the production level (platform-log.ts) and its roles' settings as `lattice start`
// gives them.
import { actorsRole } from '@lattice/actors';
import { createRoleShared } from '@lattice/cli';
import { type LatticeConfig, loadConfig, type MailConfig } from '@lattice/core';
import { createPostgresPublicKeyRepository, mintKey } from '@lattice/keys';
import { createPostgresNamespaceRepository, type PublishQuota } from '@lattice/realtime';
import { bootstrapProduct, createDb, type Db } from '@lattice/store';
import { Registry } from 'prom-client';
import { fileLogger, type LogLevel } from './platform-log.ts';

export const LIMIT_NEVER_REACHED = 1_000_000_000;

/** The publish quota of a benchmark's platform: never reached. */
export const QUOTA_OUT_OF_THE_WAY: PublishQuota = {
  sustainedPerSecond: LIMIT_NEVER_REACHED,
  windowMs: 10_000,
  burstPerWindow: 0,
  hardLimitPerWindow: LIMIT_NEVER_REACHED,
};

/** A product with the `bench` namespace and a production realtime public key (`lpk_`). */
export async function benchProduct(db: Db, name: string): Promise<{ productId: string; publicKey: string }> {
  const { product_id: productId } = await bootstrapProduct(db, { name });
  await createPostgresNamespaceRepository(db).put(productId, 'bench', {
    presence: false,
    clientEvents: false,
    historyWindowSeconds: 3600,
    archiveDays: 0,
  });
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
  return { productId, publicKey: minted.secret };
}

/**
 * Deletes a benchmark's product with its channels' rows, which have no foreign key to it (the
 * actors' history purge and presence sweep look at every product).
 */
export async function deleteBenchProduct(db: Db, productId: string): Promise<void> {
  for (const table of ['channel_history', 'channel_state', 'channel_presence'])
    await db(table).where({ product_id: productId }).delete();
  await db('products').where({ id: productId }).delete();
}

export interface BenchPlatformArgs {
  databaseUrl: string;
  /** Default: the environment's (REDIS_URL) or the local one. */
  redisUrl?: string;
  redisKeyPrefix: string;
  kafkaTopicPrefix: string;
  /** The smart host the actors hand mail to (SMTP_URL). */
  smtpUrl?: string;
  /** LATTICE_SECRET_KEYS of the run (DKIM keys sealed by the parent open in the children). */
  secretKeys?: string;
  /** Mail settings over the environment's (MAIL_SEND_RATE_PER_SECOND, …). */
  mail?: Partial<MailConfig>;
  /** The process's log level (the production one unless a run says otherwise) and its log file. */
  logLevel: LogLevel;
  logFile: string;
}

/**
 * The configuration and shared resources of a benchmark's platform process: limits out of the
 * way (publish quota, per-IP limit; the mail send rate when `args.mail` raises it), logs at
 * `args.logLevel` to `args.logFile`. The caller closes `shared`, then `db`.
 */
export function benchPlatform(args: BenchPlatformArgs, name: string) {
  const base = loadConfig(process.env, {
    databaseUrl: args.databaseUrl,
    ...(args.redisUrl ? { redisUrl: args.redisUrl } : {}),
    redisKeyPrefix: args.redisKeyPrefix,
    kafkaTopicPrefix: args.kafkaTopicPrefix,
    publicUrls: { production: 'http://127.0.0.1:0', development: 'http://127.0.0.1:0' },
    perIpRequestsPerMinute: LIMIT_NEVER_REACHED,
    managementPort: 0,
    ...(args.smtpUrl ? { smtpUrl: args.smtpUrl } : {}),
    ...(args.secretKeys ? { secretKeys: args.secretKeys } : {}),
    logLevel: args.logLevel,
  });
  const config = { ...base, mail: { ...base.mail, ...args.mail } };
  const logger = fileLogger(name, args.logLevel, args.logFile);
  const db = createDb({ databaseUrl: config.databaseUrl, logger, poolMax: 20 });
  const shared = createRoleShared({
    config,
    logger,
    registry: new Registry(),
    db,
    realtime: { quota: QUOTA_OUT_OF_THE_WAY },
  });
  return { config, logger, db, shared };
}

/**
 * The actors role's settings as `lattice start actors` derives them (every periodic job at its
 * interval, over every product). The role listens on no port of its own (the inbound SMTP
 * receiver is the `inbound` role, which no benchmark runs).
 */
export function actorsSettingsOf(config: LatticeConfig): ReturnType<typeof actorsRole.configOf> {
  return actorsRole.configOf(config);
}
