export { createPostgresAuditLog } from './audit-log.postgres.ts';
export type {
  AuditActor,
  AuditActorKind,
  AuditEntry,
  AuditLog,
  AuditPage,
  NewAuditEntry,
} from './audit-log.ts';
export { AUDIT_ACTOR_KINDS } from './audit-log.ts';
export type { BatchedRun, BatchOutcome } from './batched-delete.ts';
export { runBatches } from './batched-delete.ts';
export type { AddedMemberResult, BootstrapResult } from './bootstrap.ts';
export { addMember, bootstrapProduct } from './bootstrap.ts';
export type { Db, DbExecutor } from './db.ts';
export { createDb } from './db.ts';
export { isDataError } from './db-errors.ts';
export { createPostgresMemberRepository } from './member-repository.postgres.ts';
export type { MemberPage, MemberRecord, MemberRepository, MemberRole } from './member-repository.ts';
export { MEMBER_ROLES } from './member-repository.ts';
export { issueMemberToken, MEMBER_TOKEN_PREFIX } from './member-token-issue.ts';
export { createPostgresMemberTokenRepository } from './member-token-repository.postgres.ts';
export type { MemberTokenPage, MemberTokenRecord, MemberTokenRepository } from './member-token-repository.ts';
export { migrateLatest } from './migrate.ts';
export { createPostgresProductRepository } from './product-repository.postgres.ts';
export type { ProductRepository } from './product-repository.ts';
export { checkSealedValues, sealedCensus } from './sealed-check.ts';
export type { SealedColumn } from './sealed-column.ts';
export type { TransactionScope } from './transaction-scope.ts';
export { createTransactionScope } from './transaction-scope.ts';
