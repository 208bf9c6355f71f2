// Organization area: the audit log (docs/organization.md "Audit log"), newest first, for owners
// and admins.
import type { RouteDef } from '@lattice/http';
import type { AuditLog } from '@lattice/store';
import { principalOf } from '../routes/principal.ts';
import { auditEntryView, pageOf } from './organization-views.ts';

export function auditLogRoutes(deps: { auditLog: AuditLog }): RouteDef[] {
  return [
    {
      area: 'organization',
      auth: 'management',
      method: 'GET',
      path: '/organization/audit-log',
      operationId: 'organization_audit-log_list',
      summary: 'Read the audit log',
      description:
        'Every successful change of the product’s credentials and settings, newest first: public ' +
        'keys, members, member tokens, mail and realtime keys, webhook endpoints, mail domains, ' +
        'namespaces and suppressions added or removed by hand. Each entry says when, which ' +
        'credential (and member), the operation, its target, the request id and the names of ' +
        'the fields it set: never a value or a secret. Owners and admins only.',
      access: { roles: ['owner', 'admin'] },
      request: { query: 'audit-log-query' },
      responses: { 200: 'audit-log' },
      async handler(ctx) {
        const limit = ctx.query.limit as number;
        const cursor = ctx.query.cursor as string | undefined;
        const rows = await deps.auditLog.list(principalOf(ctx).productId, {
          limit: limit + 1,
          ...(cursor === undefined ? {} : { beforeId: cursor }),
        });
        return { status: 200, body: pageOf(rows, limit, auditEntryView) };
      },
    },
  ];
}
