// What the realtime benchmarks set up the same way: a product with a `bench` namespace (an hour of
// history, no presence, no client events) and a realtime public key for it, and a platform
// process with its limits out of the way (the benchmarks measure the path, not the limits).
import { createRoleShared } from '@lattice/cli';
import { createLogger, loadConfig, type MailConfig } from '@lattice/core';
import { createPostgresPublicKeyRepository, mintKey } from '@lattice/keys';
import { createPostgresNamespaceRepository, type PublishQuota } from '@lattice/realtime';
import { bootstrapProduct, createDb, type Db } from '@lattice/store';
import { Registry } from 'prom-client';

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
}

/**
 * The configuration and shared resources of a benchmark's platform process: limits out of the
 * way (publish quota, per-IP limit; the mail send rate when `args.mail` raises it), logs at error
 * (kafkajs reports the leader moves of fresh topics as warnings). The caller closes `shared`,
 * then `db`.
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
    logLevel: 'warn',
  });
  const config = { ...base, mail: { ...base.mail, ...args.mail } };
  const logger = createLogger({ name, level: 'error' });
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
