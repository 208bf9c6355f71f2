// Organization area: the caller's own product. The product is never in the path; it is the one
// the credential belongs to.
import { ApiError } from '@lattice/core';
import type { RouteDef } from '@lattice/http';
import type { ProductRepository } from '@lattice/store';
import { principalOf } from './principal.ts';

export function organizationRoutes(deps: { products: ProductRepository }): RouteDef[] {
  return [
    {
      method: 'GET',
      path: '/organization/product',
      operationId: 'organization_product_get',
      summary: 'Get the product the credential belongs to',
      description:
        'Returns the id, name and creation time of the caller’s product, and the calling credential’s kind, member role and member id (the dashboard shows only the actions the role may take).',
      area: 'organization',
      auth: 'management',
      responses: { 200: 'organization-product' },
      async handler(ctx) {
        const principal = principalOf(ctx);
        const product = await deps.products.findById(principal.productId);
        if (!product) throw new ApiError(404, 'not_found', 'lookup', 'The product no longer exists');
        return {
          status: 200,
          body: {
            id: product.id,
            name: product.name,
            created_at: product.createdAt.toISOString(),
            caller: {
              credential_kind: principal.credentialKind,
              role: principal.role,
              member_id: principal.memberId,
            },
          },
        };
      },
    },
  ];
}
