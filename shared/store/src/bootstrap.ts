// `lattice bootstrap`: a product, its owner member and an owner token in one transaction, plus
// optionally a domain marked verified (a trusted operator shortcut; the API verifies via DNS).
import { newId } from '@lattice/core';
import type { Db } from './db.ts';
import { createPostgresMemberRepository } from './member-repository.postgres.ts';
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

const PRODUCT_NAME_MAX = 200;
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
