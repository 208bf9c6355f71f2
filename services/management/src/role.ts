// The `management` role: the management API, /openapi.json, and `/metrics` and `/healthz` for
// the process (every role's metrics when all run together).
import type {
  HttpTimeouts,
  LatticeConfig,
  Logger,
  Role,
  RunningRole,
  SecretHealth,
  SecretKeyring,
} from '@lattice/core';
import { createTargetGuard, type MailHttp } from '@lattice/mail';
import type { RealtimeHttp } from '@lattice/realtime';
import type { Db } from '@lattice/store';
import type { Redis } from 'ioredis';
import type { Registry } from 'prom-client';
import type { MailDomainSettings } from './app.ts';
import { createRedisKeyChangeNotifier } from './notify/key-change-notifier.redis.ts';
import { type RunningManagement, startManagement } from './server.ts';

/** The configuration the role reads; tests change fields of it. */
export interface ManagementSettings {
  host: string;
  /** 0 picks a free one (tests). */
  port: number;
  /** Key changes are announced under it (keyChangesChannel). */
  redisKeyPrefix: string;
  /** Check handler answers against their response schemas (tests). */
  validateResponses: boolean;
  /** DNS_SERVERS, MAIL_RETURN_PATH_MX, MAIL_SPF_INCLUDE. */
  mail: MailDomainSettings;
  /** WEBHOOK_ALLOW_PRIVATE_TARGETS, as the actors role reads it: the same targets pass both checks. */
  allowPrivateWebhookTargets: boolean;
  /** MANAGEMENT_PUBLIC_HOSTS: Host headers `/mcp` accepts besides the API's own address. */
  publicHosts: string[];
  /** HTTP_HEADERS_TIMEOUT_MS, HTTP_REQUEST_TIMEOUT_MS. */
  httpTimeouts: HttpTimeouts;
}

export function managementSettingsOf(config: LatticeConfig): ManagementSettings {
  return {
    host: config.host,
    port: config.managementPort,
    redisKeyPrefix: config.redisKeyPrefix,
    validateResponses: config.managementCheckAnswers,
    mail: {
      dnsServers: config.mail.dnsServers,
      returnPathMx: config.mail.returnPathMx,
      spfInclude: config.mail.spfInclude,
    },
    allowPrivateWebhookTargets: config.webhooks.allowPrivateTargets ?? false,
    publicHosts: config.managementPublicHosts,
    httpTimeouts: config.httpTimeouts,
  };
}

/** What management takes from the process that runs it. */
export interface ManagementShared {
  db: Db;
  logger: Logger;
  registry: Registry;
  /** The process's connection of this name, opened on first use and closed by its owner. */
  redis(name: string): Redis;
  /** The realtime services, shared with the edges when they run in one process. */
  realtime(): RealtimeHttp;
  /** The platform's keyring (LATTICE_SECRET_KEYS or the local data folder's). */
  secretKeys: SecretKeyring;
  /** Whether that keyring opens the sealed values the process needs (`/healthz` says). */
  secretHealth?: SecretHealth;
  /** The mail services (sending, reading emails), shared with the edges in one process. */
  mail(): MailHttp;
}

export type RunningManagementRole = RunningManagement & RunningRole & { url: string };

export const managementRole: Role<ManagementSettings, ManagementShared, RunningManagementRole> = {
  name: 'management',
  configOf: managementSettingsOf,
  async start(settings, shared) {
    const running = await startManagement(
      { host: settings.host, port: settings.port, timeouts: settings.httpTimeouts },
      {
        db: shared.db,
        logger: shared.logger,
        registry: shared.registry,
        // The edges reload early on these instead of at their next period.
        keyChanges: createRedisKeyChangeNotifier({
          redis: shared.redis('management'),
          keyPrefix: settings.redisKeyPrefix,
          logger: shared.logger,
        }),
        realtime: shared.realtime(),
        validateResponses: settings.validateResponses,
        publicHosts: settings.publicHosts,
        secretKeys: shared.secretKeys,
        ...(shared.secretHealth ? { secretHealth: shared.secretHealth } : {}),
        mail: settings.mail,
        mailHttp: shared.mail(),
        webhookTargets: createTargetGuard({ allowPrivateTargets: settings.allowPrivateWebhookTargets }),
      },
    );
    // Its `/healthz` checks the database per request; the process itself is healthy once listening.
    return { ...running, health: () => ({ ok: true }) };
  },
};
