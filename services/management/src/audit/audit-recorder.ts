// Runs each audited operation (RouteDef.audit) and the writing of its audit entries in one
// transaction (docs/organization.md "Audit log"):
// - a successful change and its entries commit together: the handler's repositories are built on
//   the transaction scope's executor, so they write in the transaction this opens;
// - a refused or failed change (validation, 403, 404, 409, a database error, a fault while the
//   entry is written) rolls back whole and leaves no entry;
// - the route's `prepare` (slow checks that write nothing) runs before the transaction opens.
// Entries name fields, never values, so no secret or key value can reach the log.
import type { AuditTarget, Principal, RouteAudit, RouteContext, RouteDef, RouteResult } from '@lattice/http';
import { requestIdOf } from '@lattice/http';
import {
  AUDIT_ACTOR_KINDS,
  type AuditActor,
  type AuditActorKind,
  type AuditLog,
  type TransactionScope,
} from '@lattice/store';

export interface AuditRecorderDeps {
  scope: TransactionScope;
  /** Built on `scope.db`, so it appends in the change's transaction. */
  auditLog: AuditLog;
}

export function withAudit(route: RouteDef, deps: AuditRecorderDeps): RouteDef {
  const audit = route.audit;
  if (!audit) return route;
  return {
    ...route,
    async handler(ctx) {
      const prepared = audit.prepare ? { ...ctx, prepared: await audit.prepare(ctx) } : ctx;
      return deps.scope.run(async () => {
        const result = await route.handler(prepared);
        if (result.status >= 200 && result.status < 300) {
          const principal = prepared.principal;
          if (!principal) throw new Error(`${route.operationId} is audited but has no principal`);
          for (const target of auditTargets(audit, prepared, result)) {
            await deps.auditLog.append({
              productId: principal.productId,
              actor: actorOf(principal),
              operation: route.operationId,
              target: { type: audit.targetType, id: target.id },
              requestId: requestIdOf(ctx.res) ?? null,
              changes: target.changes,
            });
          }
        }
        return result;
      });
    },
  };
}

export function actorOf(principal: Principal): AuditActor {
  const kind = principal.credentialKind as AuditActorKind;
  // A credential kind the log has no name for is a composition mistake, not a caller's error.
  if (!AUDIT_ACTOR_KINDS.includes(kind)) throw new Error(`no audit actor kind for "${kind}"`);
  return { kind, memberId: principal.memberId, credentialId: principal.credentialId };
}

/** RouteAudit.targets, or its default: the answer's `id` (else the last path parameter). */
function auditTargets(audit: RouteAudit, ctx: RouteContext, result: RouteResult): AuditTarget[] {
  if (audit.targets) return audit.targets(ctx, result);
  const answered = (result.body as { id?: unknown } | undefined)?.id;
  const params = Object.values(ctx.params);
  const id = typeof answered === 'string' ? answered : params.length > 0 ? String(params.at(-1)) : null;
  return [{ id, changes: bodyFields(ctx) }];
}

/** The request body's top-level field names: what a create or an update set. */
export function bodyFields(ctx: RouteContext): string[] {
  const body = ctx.body;
  return body !== null && typeof body === 'object' && !Array.isArray(body) ? Object.keys(body).sort() : [];
}
