// Configuration is resolved once, in a composition root: option > environment > default, into a
// typed object whose names carry units. Nothing else in Lattice reads process.env.
import { homedir } from 'node:os';
import type { LogLevel } from './logger.ts';

export type Environment = 'production' | 'development';
export const ENVIRONMENTS: readonly Environment[] = ['production', 'development'];

export interface LatticeConfig {
  host: string;
  databaseUrl: string;
  redisUrl: string;
  kafkaBrokers: string[];
  kafkaClientId: string;
  /** Partition count used when Lattice creates its topics. */
  kafkaPartitions: number;
  /**
   * Replication factor of the topics Lattice creates (KAFKA_REPLICATION_FACTOR); 'cluster'
   * (default): min(3, the brokers the cluster reports), with min.insync.replicas 2 at 3 copies
   * (docs/operations.md "Replication").
   */
  kafkaReplicationFactor: number | 'cluster';
  /** Prepended to every topic name; tests use a unique one each. */
  kafkaTopicPrefix: string;
  managementPort: number;
  /**
   * Host headers `/mcp` accepts besides the API's own address (MANAGEMENT_PUBLIC_HOSTS, e.g. the
   * name a reverse proxy serves it under); anything else is refused as DNS rebinding.
   */
  managementPublicHosts: string[];
  /**
   * MANAGEMENT_CHECK_ANSWERS: check every answer against the operation's declared responses and
   * error answers, answering 500 on a mismatch. For test and staging platforms, never needed in
   * production (the suite runs with it on).
   */
  managementCheckAnswers: boolean;
  /** `/metrics` and `/healthz` of the actors role when it runs alone. */
  actorsPort: number;
  /**
   * Kafka group session of the actors role's hosts (ACTORS_SESSION_TIMEOUT_MS): how long a host
   * that died without leaving keeps its partitions before the others take them over.
   */
  actorsSessionTimeoutMs: number;
  /**
   * ACTORS_PARTITIONS_CONCURRENCY: how many partitions' batches of one fetch an actor host applies
   * at once (the others wait for a free slot; the next fetch waits for all of them).
   */
  actorsPartitionsConcurrency: number;
  /**
   * ACTORS_METADATA_MAX_AGE_MS: how often the actor hosts re-read topic metadata, which bounds how
   * soon they take on partitions added by `lattice topics scale`.
   */
  actorsMetadataMaxAgeMs: number;
  /** `/metrics` and `/healthz` of an edge run alone (`lattice start edge --env …`), per environment. */
  edgeMetricsPorts: Record<Environment, number>;
  /** Public edge origin per environment ({public_url}, {public_dev_url}). */
  publicUrls: Record<Environment, string>;
  /** Where browsers connect, per environment; the gateway listens on this URL's port. */
  gatewayUrls: Record<Environment, string>;
  /** `/metrics` and `/healthz` of a gateway run alone, per environment. */
  gatewayMetricsPorts: Record<Environment, number>;
  /** The WebSocket protocol's limits and timers at the gateway (decisions.md defaults). */
  gateway: GatewayLimits;
  /** The smart host every email is handed to (SMTP_URL); `lattice start` points it at its sink. */
  smtpUrl: string;
  smtpSinkPort: number;
  /** The inbound role's SMTP receiver of bounces and complaints (the MX of the return paths). */
  inboundSmtpPort: number;
  /** `/metrics` and `/healthz` of the inbound role when it runs alone. */
  inboundMetricsPort: number;
  /** The mail toolkit's limits, timers and DNS settings (decisions.md "Mail"). */
  mail: MailConfig;
  /** Mail webhook delivery (decisions.md "Webhook delivery defaults"). */
  webhooks: WebhookConfig;
  /** How long what the platform records is kept, and how its purges run (docs/operations.md "Retention"). */
  retention: RetentionConfig;
  /** `lattice mcp`: the management API it serves tools of (LATTICE_BASE_URL) and the credential (LATTICE_API_KEY). */
  agent: { baseUrl: string; apiKey: string };
  /**
   * LATTICE_SECRET_KEYS as given (`kid:base64url,…`, first current; secret-keyring.ts). Empty: the
   * composition root keeps a generated one under `keyringDir`, one per database (local use only;
   * every host of a deployment must share the same value).
   */
  secretKeys: string;
  logLevel: LogLevel;
  /** Prefix of every Redis key and channel; tests use a unique one each. */
  redisKeyPrefix: string;
  /**
   * KAFKA_PARTITION_PLAN_LEASE_MS: a producing process that could not read the topics' partition
   * plans (Redis) for this long stops producing until it can, and `lattice topics scale` counts a
   * process silent for this long as gone (docs/operations.md). One minute by default: the
   * platform rides through a Redis outage that long, and a scale waits at most that long for a
   * producer that crashed.
   */
  partitionPlanLeaseMs: number;
  /** How often an edge reloads its public key snapshot; also how long a revoked key answers 403. */
  snapshotRefreshMs: number;
  /**
   * How long an edge serves its snapshot when no load succeeds any more (the database unreachable
   * from it); after that keyed routes answer 503 (fail closed). Default 10 × snapshotRefreshMs.
   */
  snapshotMaxAgeMs: number;
  /** The edge's per-IP limit, requests per minute. */
  perIpRequestsPerMinute: number;
  /**
   * How long a rate-limit or quota call may wait for Redis before the in-process limiter answers
   * instead (the per-IP lease requests, the publish quota).
   */
  rateLimitRedisTimeoutMs: number;
  /**
   * The deployment's per-product publish quota (REALTIME_PUBLISH_*); a number left out keeps the
   * realtime toolkit's default (the spec's).
   */
  publishQuota: PublishQuotaSettings;
  /**
   * Which proxies the edge trusts for the client address (X-Forwarded-For), in express
   * `trust proxy` terms: `false` (default: the socket address), `loopback`, a hop count, CIDRs.
   */
  trustProxy: string;
  /** Where `lattice start` keeps local state (demo product, payload bucket). */
  dataDir: string;
  /**
   * Where a generated local keyring is kept when LATTICE_SECRET_KEYS is empty: one file per
   * database, found by every checkout of the same user (LATTICE_KEYRING_DIR; default
   * `$XDG_DATA_HOME/lattice/keyrings`, else `~/.local/share/lattice/keyrings`).
   */
  keyringDir: string;
  /**
   * Every HTTP role's cut for slow requests (docs/operations.md "Slow requests"): a request whose headers
   * have not all arrived within `headersMs` (HTTP_HEADERS_TIMEOUT_MS, 10 s) or that is not
   * received whole, body included, within `requestMs` (HTTP_REQUEST_TIMEOUT_MS, 30 s) is answered
   * 408 and its connection closed.
   */
  httpTimeouts: HttpTimeouts;
}

export interface HttpTimeouts {
  headersMs: number;
  requestMs: number;
}

export interface GatewayLimits {
  /** Browser origins allowed to connect (GATEWAY_ALLOWED_ORIGINS, comma-separated); empty: any. */
  allowedOrigins: string[];
  /** A client text frame above this closes the connection with 1009. */
  maxFrameBytes: number;
  /** RFC 6455 ping period; a connection that missed two pongs is closed. */
  pingIntervalMs: number;
  /** A connection whose unsent data exceeds this is closed with 4200. */
  sendBufferMaxBytes: number;
  /**
   * Live authenticated connections one token may hold across the environment's gateways
   * (GATEWAY_MAX_CONNECTIONS_PER_TOKEN); the next `auth` closes its connection with 4429.
   */
  maxConnectionsPerToken: number;
}

export interface MailConfig {
  /** Sends per product per fixed 1 s window (MAIL_SEND_RATE_PER_SECOND). */
  sendRatePerSecond: number;
  /** Waits before each retry of a 4xx answer (MAIL_RETRY_DELAYS_MS); one attempt per value. */
  retryDelaysMs: number[];
  /** Resolvers for domain verification (DNS_SERVERS, `ip` or `ip:port`); empty: the system's. */
  dnsServers: string[];
  /** Host the return-path subdomain's MX record points at: the inbound receiver's public name. */
  returnPathMx: string;
  /** Domain the return-path subdomain's SPF record includes. */
  spfInclude: string;
  /** The inbound receiver refuses messages above this (552). */
  inboundMaxBytes: number;
  /** Connections of the pooled SMTP transport per actors process. */
  smtpMaxConnections: number;
}

export interface WebhookConfig {
  /** Waits after failed attempts 1 to 4 (WEBHOOK_RETRY_DELAYS_MS, exactly four values). */
  retryDelaysMs: number[];
  /** One attempt's limit, connect, TLS and answer included (WEBHOOK_TIMEOUT_MS). */
  timeoutMs: number;
  /**
   * Loopback, RFC 1918, 100.64/10 and fc00::/7 targets allowed (WEBHOOK_ALLOW_PRIVATE_TARGETS).
   * null when not set: refused, except by `lattice start` running the whole platform locally.
   */
  allowPrivateTargets: boolean | null;
}

export interface RetentionConfig {
  /** Webhook deliveries, after their last attempt (WEBHOOK_DELIVERY_RETENTION_DAYS, 30). */
  webhookDeliveryDays: number;
  /** Emails and their events, after the last event (MAIL_RETENTION_DAYS, 30). */
  mailDays: number;
  /** Records of the dead-letter topic (DEAD_LETTER_RETENTION_DAYS, 14): the topic's retention.ms. */
  deadLetterDays: number;
  /** How often each purge runs (RETENTION_PURGE_INTERVAL_MS, 60 s). */
  purgeIntervalMs: number;
  /** A run starts no batch after this (RETENTION_PURGE_BUDGET_MS, 2 s). */
  purgeBudgetMs: number;
  /** Rows per delete statement (RETENTION_PURGE_BATCH, 1 000). */
  purgeBatchSize: number;
}

export interface PublishQuotaSettings {
  sustainedPerSecond?: number;
  windowMs?: number;
  burstPerWindow?: number;
  hardLimitPerWindow?: number;
}

export type ConfigOverrides = Partial<LatticeConfig>;
type Env = Record<string, string | undefined>;

export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

function int(env: Env, name: string, fallback: number, min = 0, max = Number.MAX_SAFE_INTEGER): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max) {
    throw new ConfigError(`${name} must be an integer from ${min} to ${max}, got "${raw}"`);
  }
  return n;
}

function httpTimeouts(env: Env): HttpTimeouts {
  const headersMs = int(env, 'HTTP_HEADERS_TIMEOUT_MS', 10_000, 100, 600_000);
  const requestMs = int(env, 'HTTP_REQUEST_TIMEOUT_MS', 30_000, 100, 3_600_000);
  // The whole request includes its headers: a shorter whole would make the headers' cut moot.
  if (requestMs < headersMs) {
    throw new ConfigError(
      `HTTP_REQUEST_TIMEOUT_MS (${requestMs}) must be at least HTTP_HEADERS_TIMEOUT_MS (${headersMs})`,
    );
  }
  return { headersMs, requestMs };
}

/** An integer the environment may leave unset, for settings whose default lives elsewhere. */
function optionalInt(env: Env, name: string, min: number): number | undefined {
  const raw = env[name];
  return raw === undefined || raw === '' ? undefined : int(env, name, 0, min);
}

function publishQuotaSettings(env: Env): PublishQuotaSettings {
  const read: Array<[keyof PublishQuotaSettings, string, number]> = [
    ['sustainedPerSecond', 'REALTIME_PUBLISH_SUSTAINED_PER_SECOND', 0],
    ['windowMs', 'REALTIME_PUBLISH_WINDOW_MS', 1],
    ['burstPerWindow', 'REALTIME_PUBLISH_BURST', 0],
    ['hardLimitPerWindow', 'REALTIME_PUBLISH_HARD_LIMIT', 1],
  ];
  const settings: PublishQuotaSettings = {};
  for (const [field, name, min] of read) {
    const value = optionalInt(env, name, min);
    if (value !== undefined) settings[field] = value;
  }
  return settings;
}

/** A comma-separated list of integers, or the fallback when unset. */
function intList(env: Env, name: string, fallback: number[], min: number, max: number): number[] {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const values = raw.split(',').map((v) => Number(v.trim()));
  if (values.length === 0 || values.some((n) => !Number.isInteger(n) || n < min || n > max))
    throw new ConfigError(`${name} must be comma-separated integers from ${min} to ${max}, got "${raw}"`);
  return values;
}

/** decisions.md: "holds exactly four values" (attempts 2 to 5 follow them). */
function webhookRetryDelays(env: Env): number[] {
  const name = 'WEBHOOK_RETRY_DELAYS_MS';
  const delays = intList(env, name, [5_000, 300_000, 1_800_000, 7_200_000], 0, 7 * 86_400_000);
  if (delays.length !== 4)
    throw new ConfigError(`${name} must hold exactly four delays, got ${delays.length}`);
  return delays;
}

function bool<F extends boolean | null>(env: Env, name: string, fallback: F): boolean | F {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (raw === 'true') return true;
  if (raw === 'false') return false;
  throw new ConfigError(`${name} must be true or false, got "${raw}"`);
}

function list(env: Env, name: string): string[] {
  return (env[name] ?? '')
    .split(',')
    .map((v) => v.trim())
    .filter(Boolean);
}

/** The user's data folder (XDG base directories), where every checkout of this user looks. */
function defaultKeyringDir(env: Env): string {
  const dataHome = env.XDG_DATA_HOME || `${env.HOME || homedir()}/.local/share`;
  return `${dataHome}/lattice/keyrings`;
}

function str(env: Env, name: string, fallback: string): string {
  const raw = env[name];
  return raw === undefined || raw === '' ? fallback : raw;
}

/** KAFKA_REPLICATION_FACTOR: 1 to 16, or `cluster` (also when unset): follow the cluster's size. */
function replicationFactor(env: Env): number | 'cluster' {
  const raw = env.KAFKA_REPLICATION_FACTOR;
  if (raw === undefined || raw === '' || raw === 'cluster') return 'cluster';
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > 16)
    throw new ConfigError(
      `KAFKA_REPLICATION_FACTOR must be an integer from 1 to 16 or "cluster", got "${raw}"`,
    );
  return n;
}

const LEVELS: readonly LogLevel[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

export function loadConfig(env: Env, overrides: ConfigOverrides = {}): LatticeConfig {
  const host = str(env, 'LATTICE_HOST', '127.0.0.1');
  const port = (name: string, fallback: number) => int(env, name, fallback, 0, 65535);
  const logLevel = str(env, 'LOG_LEVEL', 'info') as LogLevel;
  if (!LEVELS.includes(logLevel)) throw new ConfigError(`LOG_LEVEL must be one of ${LEVELS.join(', ')}`);
  const brokers = str(env, 'KAFKA_BROKERS', '127.0.0.1:9092')
    .split(',')
    .map((b) => b.trim())
    .filter(Boolean);
  const config: LatticeConfig = {
    host,
    databaseUrl: str(env, 'DATABASE_URL', 'postgres://postgres@127.0.0.1:5432/lattice'),
    redisUrl: str(env, 'REDIS_URL', 'redis://127.0.0.1:6379'),
    kafkaBrokers: brokers,
    kafkaClientId: str(env, 'KAFKA_CLIENT_ID', 'lattice'),
    kafkaPartitions: int(env, 'KAFKA_PARTITIONS', 12, 1, 10000),
    kafkaReplicationFactor: replicationFactor(env),
    kafkaTopicPrefix: str(env, 'KAFKA_TOPIC_PREFIX', ''),
    managementPort: port('MANAGEMENT_PORT', 4000),
    managementPublicHosts: list(env, 'MANAGEMENT_PUBLIC_HOSTS'),
    managementCheckAnswers: bool(env, 'MANAGEMENT_CHECK_ANSWERS', false),
    actorsPort: port('ACTORS_PORT', 4005),
    actorsSessionTimeoutMs: int(env, 'ACTORS_SESSION_TIMEOUT_MS', 30_000, 6_000, 300_000),
    actorsPartitionsConcurrency: int(env, 'ACTORS_PARTITIONS_CONCURRENCY', 4, 1, 1_000),
    actorsMetadataMaxAgeMs: int(env, 'ACTORS_METADATA_MAX_AGE_MS', 30_000, 1_000, 3_600_000),
    edgeMetricsPorts: {
      production: port('EDGE_METRICS_PORT', 4006),
      development: port('EDGE_DEV_METRICS_PORT', 4007),
    },
    publicUrls: {
      production: str(env, 'PUBLIC_URL', `http://${host}:4001`),
      development: str(env, 'PUBLIC_DEV_URL', `http://${host}:4002`),
    },
    gatewayUrls: {
      production: str(env, 'GATEWAY_URL', `ws://${host}:4003`),
      development: str(env, 'GATEWAY_DEV_URL', `ws://${host}:4004`),
    },
    gatewayMetricsPorts: {
      production: port('GATEWAY_METRICS_PORT', 4008),
      development: port('GATEWAY_DEV_METRICS_PORT', 4009),
    },
    gateway: {
      allowedOrigins: str(env, 'GATEWAY_ALLOWED_ORIGINS', '')
        .split(',')
        .map((o) => o.trim())
        .filter(Boolean),
      maxFrameBytes: int(env, 'GATEWAY_MAX_FRAME_BYTES', 65_536, 1024, 16 * 1024 * 1024),
      pingIntervalMs: int(env, 'GATEWAY_PING_INTERVAL_MS', 25_000, 100, 3_600_000),
      sendBufferMaxBytes: int(env, 'GATEWAY_SEND_BUFFER_MAX_BYTES', 1_048_576, 1024, 1024 * 1024 * 1024),
      maxConnectionsPerToken: int(env, 'GATEWAY_MAX_CONNECTIONS_PER_TOKEN', 100, 1, 1_000_000),
    },
    // Unless set, the local mailbox `lattice start` runs, wherever SMTP_SINK_PORT puts it.
    smtpUrl: str(env, 'SMTP_URL', `smtp://${host}:${port('SMTP_SINK_PORT', 2525)}`),
    smtpSinkPort: port('SMTP_SINK_PORT', 2525),
    inboundSmtpPort: port('INBOUND_SMTP_PORT', 2526),
    inboundMetricsPort: port('INBOUND_METRICS_PORT', 4010),
    mail: {
      sendRatePerSecond: int(env, 'MAIL_SEND_RATE_PER_SECOND', 10, 1, 1_000_000),
      retryDelaysMs: intList(env, 'MAIL_RETRY_DELAYS_MS', [60_000, 300_000, 1_800_000], 0, 86_400_000),
      dnsServers: list(env, 'DNS_SERVERS'),
      returnPathMx: str(env, 'MAIL_RETURN_PATH_MX', 'mx.lattice.localhost'),
      spfInclude: str(env, 'MAIL_SPF_INCLUDE', 'spf.lattice.localhost'),
      inboundMaxBytes: int(env, 'INBOUND_SMTP_MAX_BYTES', 10 * 1024 * 1024, 1024, 100 * 1024 * 1024),
      smtpMaxConnections: int(env, 'SMTP_POOL_MAX_CONNECTIONS', 5, 1, 100),
    },
    webhooks: {
      retryDelaysMs: webhookRetryDelays(env),
      timeoutMs: int(env, 'WEBHOOK_TIMEOUT_MS', 10_000, 1, 600_000),
      allowPrivateTargets: bool(env, 'WEBHOOK_ALLOW_PRIVATE_TARGETS', null),
    },
    retention: {
      webhookDeliveryDays: int(env, 'WEBHOOK_DELIVERY_RETENTION_DAYS', 30, 1, 3650),
      mailDays: int(env, 'MAIL_RETENTION_DAYS', 30, 1, 3650),
      deadLetterDays: int(env, 'DEAD_LETTER_RETENTION_DAYS', 14, 1, 3650),
      purgeIntervalMs: int(env, 'RETENTION_PURGE_INTERVAL_MS', 60_000, 1_000, 86_400_000),
      purgeBudgetMs: int(env, 'RETENTION_PURGE_BUDGET_MS', 2_000, 0, 600_000),
      purgeBatchSize: int(env, 'RETENTION_PURGE_BATCH', 1_000, 1, 100_000),
    },
    agent: {
      baseUrl: str(env, 'LATTICE_BASE_URL', `http://${host}:${port('MANAGEMENT_PORT', 4000)}`),
      apiKey: str(env, 'LATTICE_API_KEY', ''),
    },
    secretKeys: str(env, 'LATTICE_SECRET_KEYS', ''),
    logLevel,
    redisKeyPrefix: str(env, 'REDIS_KEY_PREFIX', 'lattice:'),
    partitionPlanLeaseMs: int(env, 'KAFKA_PARTITION_PLAN_LEASE_MS', 60_000, 1_000),
    snapshotRefreshMs: int(env, 'PUBLIC_KEY_SNAPSHOT_REFRESH_MS', 30_000, 100, 3_600_000),
    // Derived from the period below unless set, once overrides are applied.
    snapshotMaxAgeMs: int(env, 'PUBLIC_KEY_SNAPSHOT_MAX_AGE_MS', 0, 200, 86_400_000),
    perIpRequestsPerMinute: int(env, 'EDGE_PER_IP_LIMIT', 100, 1, 1_000_000_000),
    rateLimitRedisTimeoutMs: int(env, 'RATE_LIMIT_REDIS_TIMEOUT_MS', 250, 1, 60_000),
    publishQuota: publishQuotaSettings(env),
    trustProxy: str(env, 'EDGE_TRUST_PROXY', 'false'),
    dataDir: str(env, 'LATTICE_DATA_DIR', '.lattice'),
    keyringDir: str(env, 'LATTICE_KEYRING_DIR', defaultKeyringDir(env)),
    httpTimeouts: httpTimeouts(env),
  };
  const merged = { ...config, ...overrides };
  if (merged.snapshotMaxAgeMs === 0) merged.snapshotMaxAgeMs = 10 * merged.snapshotRefreshMs;
  if (merged.snapshotMaxAgeMs < 2 * merged.snapshotRefreshMs) {
    throw new ConfigError(
      `PUBLIC_KEY_SNAPSHOT_MAX_AGE_MS must be at least twice PUBLIC_KEY_SNAPSHOT_REFRESH_MS (${merged.snapshotRefreshMs}), got ${merged.snapshotMaxAgeMs}`,
    );
  }
  return merged;
}

/** The port an origin such as `http://127.0.0.1:4001` listens on. */
export function portOf(origin: string): number {
  const url = new URL(origin);
  if (url.port) return Number(url.port);
  return url.protocol === 'https:' || url.protocol === 'wss:' ? 443 : 80;
}
