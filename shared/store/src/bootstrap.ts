// `lattice bootstrap`: a product, its owner member and an owner token in one transaction, plus
// optionally a domain marked verified (a trusted operator shortcut; the API verifies via DNS);
// or a member of a given role added to an existing product. Each writes its audit entry (actor
// `cli`) in the same transaction.
import { newId } from '@lattice/core';
import { createPostgresAuditLog } from './audit-log.postgres.ts';
import type { Db, DbExecutor } from './db.ts';
import { createPostgresMemberRepository } from './member-repository.postgres.ts';
import { MEMBER_ROLES, type MemberRecord, type MemberRole } from './member-repository.ts';
import { issueMemberToken } from './member-token-issue.ts';
import { createPostgresMemberTokenRepository } from './member-token-repository.postgres.ts';
import { createPostgresProductRepository } from './product-repository.postgres.ts';

export interface BootstrapInput {
  name: string;
  verifiedDomain?: string;
}

/** The shape `lattice bootstrap` prints; snake_case because it is a public JSON answer. */
export interface BootstrapResult {
  product_id: string;
  owner_token: string;
}

/** What `lattice bootstrap --product-id ID --role ROLE` prints. */
export interface AddedMemberResult {
  product_id: string;
  member_id: string;
  member_token: string;
}

const PRODUCT_NAME_MAX = 200;
const MEMBER_NAME_MAX = 64;
const DOMAIN_RE = /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z][a-z0-9-]{0,61}[a-z0-9]$/;

export async function bootstrapProduct(db: Db, input: BootstrapInput): Promise<BootstrapResult> {
  const name = input.name.trim();
  if (name.length === 0 || name.length > PRODUCT_NAME_MAX) {
    throw new RangeError(`product name must be 1 to ${PRODUCT_NAME_MAX} characters`);
  }
  const domain = input.verifiedDomain?.trim().toLowerCase().replace(/\.$/, '');
  if (domain !== undefined && !DOMAIN_RE.test(domain)) {
    throw new RangeError(`"${input.verifiedDomain}" is not a domain name`);
  }

  return db.transaction(async (trx) => {
    const product = await createPostgresProductRepository(trx).create({ name });
    const owner = await createPostgresMemberRepository(trx).create({
      productId: product.id,
      name: 'owner',
      role: 'owner',
    });
    const { token } = await issueMemberToken(createPostgresMemberTokenRepository(trx), {
      productId: product.id,
      memberId: owner.id,
      name: 'bootstrap owner token',
    });
    await recordCliMember(trx, owner);
    if (domain !== undefined) {
      // Mail domains get their own repository with the mail toolkit; bootstrap only seeds one row.
      await trx('mail_domains').insert({
        id: newId(),
        product_id: product.id,
        name: domain,
        status: 'verified',
      });
    }
    return { product_id: product.id, owner_token: token };
  });
}

/** Adds a member of `role` to an existing product, with its first token. */
export async function addMember(
  db: Db,
  input: { productId: string; role: string; name?: string },
): Promise<AddedMemberResult> {
  if (!MEMBER_ROLES.includes(input.role as MemberRole)) {
    throw new RangeError(`role must be one of ${MEMBER_ROLES.join(', ')}, got "${input.role}"`);
  }
  const role = input.role as MemberRole;
  const name = (input.name ?? `${role} (bootstrap)`).trim();
  if (name.length === 0 || name.length > MEMBER_NAME_MAX) {
    throw new RangeError(`member name must be 1 to ${MEMBER_NAME_MAX} characters`);
  }
  const product = await createPostgresProductRepository(db).findById(input.productId);
  if (!product) throw new RangeError(`no product has the id "${input.productId}"`);

  return db.transaction(async (trx) => {
    const member = await createPostgresMemberRepository(trx).create({ productId: product.id, name, role });
    const { token } = await issueMemberToken(createPostgresMemberTokenRepository(trx), {
      productId: product.id,
      memberId: member.id,
      name: 'bootstrap token',
    });
    await recordCliMember(trx, member);
    return { product_id: product.id, member_id: member.id, member_token: token };
  });
}

function recordCliMember(trx: DbExecutor, member: MemberRecord) {
  return createPostgresAuditLog(trx).append({
    productId: member.productId,
    actor: { kind: 'cli', memberId: null, credentialId: null },
    operation: 'organization_members_create',
    target: { type: 'member', id: member.id },
    requestId: null,
    changes: ['name', 'role'],
  });
}
