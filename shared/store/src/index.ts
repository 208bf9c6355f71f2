export type { BootstrapInput, BootstrapResult } from './bootstrap.ts';
export { bootstrapProduct } from './bootstrap.ts';
export type { Db, DbExecutor, DbOptions } from './db.ts';
export { createDb } from './db.ts';
export { createPostgresMemberRepository } from './member-repository.postgres.ts';
export type { MemberRecord, MemberRepository, MemberRole } from './member-repository.ts';
export { MEMBER_ROLES } from './member-repository.ts';
export type { IssuedMemberToken } from './member-token-issue.ts';
export { issueMemberToken, MEMBER_TOKEN_PREFIX } from './member-token-issue.ts';
export { createPostgresMemberTokenRepository } from './member-token-repository.postgres.ts';
export type {
  ActiveMemberToken,
  MemberTokenRecord,
  MemberTokenRepository,
  NewMemberToken,
} from './member-token-repository.ts';
export { createMigrationSource, MIGRATIONS_DIR, migrateLatest } from './migrate.ts';
export { createPostgresProductRepository } from './product-repository.postgres.ts';
export type { ProductRecord, ProductRepository } from './product-repository.ts';
