// The management API's catalog: every product operation, by area. Operational routes are added
// by the app. This list is what /openapi.json and the agent tools are generated from.
import type { Logger, SecretHealth } from '@lattice/core';
import type { OpenApiDocument, OpenApiInfo, RouteDef } from '@lattice/http';
import type { MailKeyRepository, RealtimeKeyRepository } from '@lattice/keys';
import type { MailHttp, SuppressionStore, WebhookEndpointStore } from '@lattice/mail';
import type { NamespaceRepository, RealtimeHttp } from '@lattice/realtime';
import type {
  AuditLog,
  Db,
  MemberRepository,
  MemberTokenRepository,
  ProductRepository,
} from '@lattice/store';
import type { Registry } from 'prom-client';
import { type DashboardRouteDeps, dashboardRoutes } from './dashboard/dashboard-routes.ts';
import { auditLogRoutes } from './organization/audit-log-routes.ts';
import { memberRoutes } from './organization/member-routes.ts';
import { memberTokenRoutes } from './organization/member-token-routes.ts';
import { type MailDomainRouteDeps, mailDomainRoutes } from './routes/mail-domain-routes.ts';
import { mailEmailRoutes } from './routes/mail-email-routes.ts';
import { mailKeyRoutes } from './routes/mail-key-routes.ts';
import { mailSuppressionRoutes } from './routes/mail-suppression-routes.ts';
import { mailWebhookRoutes, type WebhookTargetCheck } from './routes/mail-webhook-routes.ts';
import { organizationRoutes } from './routes/organization-routes.ts';
import { type PublicKeyRouteDeps, publicKeyRoutes } from './routes/public-key-routes.ts';
import { realtimeChannelRoutes } from './routes/realtime-channel-routes.ts';
import { realtimeKeyRoutes } from './routes/realtime-key-routes.ts';
import { realtimeNamespaceRoutes } from './routes/realtime-namespace-routes.ts';
import { systemRoutes } from './routes/system-routes.ts';

export interface CatalogDeps extends PublicKeyRouteDeps, MailDomainRouteDeps {
  products: ProductRepository;
  members: MemberRepository;
  memberTokens: MemberTokenRepository;
  auditLog: AuditLog;
  mailKeys: MailKeyRepository;
  realtimeKeys: RealtimeKeyRepository;
  /** The mail area's suppression list. */
  suppressions: SuppressionStore;
  /** Tokens, publishing and reads of the realtime area. */
  realtime: RealtimeHttp;
  /** The realtime area's namespaces, written in the management API's own transactions. */
  namespaces: NamespaceRepository;
  /** Sending and reading emails; the wakes of webhook endpoint actors. */
  mail: MailHttp;
  /** The mail area's webhook endpoints and their deliveries. */
  webhooks: WebhookEndpointStore;
  /** Refuses webhook URLs the platform must not call. */
  webhookTargets: WebhookTargetCheck;
  logger: Logger;
}

export function managementCatalog(deps: CatalogDeps): RouteDef[] {
  return [
    ...organizationRoutes(deps),
    ...memberRoutes(deps),
    ...memberTokenRoutes(deps),
    ...auditLogRoutes(deps),
    ...publicKeyRoutes(deps),
    ...mailKeyRoutes(deps),
    ...mailDomainRoutes(deps),
    ...mailEmailRoutes(deps),
    ...mailSuppressionRoutes(deps),
    ...mailWebhookRoutes({
      webhooks: deps.webhooks,
      targets: deps.webhookTargets,
      wakes: deps.mail.webhookWakes,
      logger: deps.logger,
    }),
    ...realtimeKeyRoutes(deps),
    ...realtimeNamespaceRoutes({ namespaces: deps.namespaces }),
    ...realtimeChannelRoutes(deps),
  ];
}

/** Everything the management router serves: operational routes (the dashboard's too) plus the catalog. */
export function managementRoutes(deps: {
  catalog: readonly RouteDef[];
  openApi: OpenApiDocument;
  db: Db;
  registry: Registry;
  secretHealth?: SecretHealth;
  dashboard: DashboardRouteDeps;
}): RouteDef[] {
  return [...systemRoutes(deps), ...dashboardRoutes(deps.dashboard), ...deps.catalog];
}

export const MANAGEMENT_API_INFO: OpenApiInfo = {
  title: 'Lattice management API',
  description:
    'Bearer-authenticated management of a Lattice product. Every operation is also an agent tool ' +
    'whose name is the operationId. `x-lattice.catalog_version` changes exactly when the catalog does.',
  // Relative: the document is served by the API it describes, under the same base URL.
  servers: [{ url: '/', description: 'The management API that serves this document' }],
  tagDescriptions: {
    organization:
      'The product, its members and their tokens, the audit log, and the public keys that open the public edge.',
    mail: 'Sending domains, mail API keys, emails, the suppression list and delivery webhooks.',
    realtime:
      'Realtime API keys, namespaces, delegated tokens, server-side publishing, history and presence.',
  },
};
