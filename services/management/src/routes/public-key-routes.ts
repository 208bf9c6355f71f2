// Organization area: the product's public keys, which open the public edge. Listing is open to
// every member; creating, re-scoping, revoking and importing need an owner or admin. Area keys
// never reach these routes (they are not organization credentials). Every change is announced
// to the edges of the key's environment so they reload early.
import type { Environment } from '@lattice/core';
import type { RouteDef } from '@lattice/http';
import {
  type AreaKeyImporter,
  IMPORT_ENVIRONMENT,
  type ImportSource,
  issuePublicKey,
  type PublicKeyRepository,
  type PublicKeyScope,
  parseScope,
} from '@lattice/keys';
import { KEY_MANAGERS } from '../auth/access-policy.ts';
import { notFound, publicKeyRevoked, validationError } from '../errors.ts';
import type { KeyChangeNotifier } from '../notify/key-change-notifier.ts';
import { listAnswer, pageRequest, publicKeyView } from './key-views.ts';
import { principalOf } from './principal.ts';

export interface PublicKeyRouteDeps {
  publicKeys: PublicKeyRepository;
  importer: AreaKeyImporter;
  keyChanges: KeyChangeNotifier;
}

const common = { area: 'organization', auth: 'management' } as const;

/** Semantic scope checks JSON Schema cannot make (a route scope must name a keyed route). */
function scopeOf(body: unknown): PublicKeyScope {
  const parsed = parseScope((body as { scope: unknown }).scope, 'body.scope');
  if ('fields' in parsed) throw validationError(parsed.fields);
  return parsed.scope;
}

export function publicKeyRoutes(deps: PublicKeyRouteDeps): RouteDef[] {
  const { publicKeys, keyChanges } = deps;

  /** The id names no key of the product (404), or a revoked one (409). */
  const refusalFor = async (productId: string, id: string) =>
    (await publicKeys.get(productId, id)) ? publicKeyRevoked() : notFound('public key');

  return [
    {
      ...common,
      method: 'POST',
      path: '/organization/public-keys',
      operationId: 'organization_public-keys_create',
      audit: { targetType: 'public_key' },
      summary: 'Create a product public key',
      description:
        'Mints an `lpk_` key for the public edge of one environment (default production). The ' +
        'answer carries the full key in `key`, once; it is stored only as a hash. Edges accept it ' +
        'within about one snapshot window (30 s by default).',
      access: KEY_MANAGERS,
      request: { body: 'public-key-create' },
      responses: { 201: 'public-key-created' },
      async handler(ctx) {
        const principal = principalOf(ctx);
        const body = ctx.body as { name: string; environment: Environment };
        const { key, record } = await issuePublicKey(publicKeys, {
          productId: principal.productId,
          environment: body.environment,
          name: body.name,
          scope: scopeOf(ctx.body),
          createdBy: principal.memberId,
        });
        void keyChanges.keyChanged({
          productId: record.productId,
          environment: record.environment,
          keyIds: [record.id],
          change: 'created',
        });
        return { status: 201, body: { ...publicKeyView(record), key } };
      },
    },
    {
      ...common,
      method: 'GET',
      path: '/organization/public-keys',
      operationId: 'organization_public-keys_list',
      summary: 'List the product public keys',
      description:
        'Active and revoked keys, newest first, optionally of one environment. Shows the first ' +
        'eight characters of each key, never the key.',
      request: { query: 'public-key-list-query' },
      responses: { 200: 'public-key-list' },
      async handler(ctx) {
        const page = pageRequest(ctx.query);
        const environment = ctx.query.environment as Environment | undefined;
        const rows = await publicKeys.list(principalOf(ctx).productId, environment, page);
        return { status: 200, body: listAnswer(rows, page, publicKeyView) };
      },
    },
    {
      ...common,
      method: 'PUT',
      path: '/organization/public-keys/:id/scope',
      operationId: 'organization_public-keys_update-scope',
      audit: { targetType: 'public_key' },
      summary: 'Change what an active public key opens',
      description:
        'Replaces the scope of an active key; effective on the edges within about one snapshot ' +
        'window. A revoked key answers 409 `public_key_revoked`.',
      access: KEY_MANAGERS,
      request: { params: 'key-id-params', body: 'public-key-scope-update' },
      responses: { 200: 'public-key' },
      errors: [notFound('public key'), publicKeyRevoked()],
      async handler(ctx) {
        const { productId } = principalOf(ctx);
        const id = ctx.params.id as string;
        const record = await publicKeys.updateScope(productId, id, scopeOf(ctx.body));
        if (!record) throw await refusalFor(productId, id);
        void keyChanges.keyChanged({
          productId,
          environment: record.environment,
          keyIds: [record.id],
          change: 'scope_updated',
        });
        return { status: 200, body: publicKeyView(record) };
      },
    },
    {
      ...common,
      method: 'POST',
      path: '/organization/public-keys/:id/revoke',
      operationId: 'organization_public-keys_revoke',
      audit: {
        targetType: 'public_key',
        targets: (ctx) => [{ id: ctx.params.id as string, changes: ['status'] }],
      },
      summary: 'Revoke a public key, permanently',
      description:
        'There is no un-revoke. Requests with the key may pass for up to one snapshot window, ' +
        'then get `403 public_key_scope` for one more, then `401 public_key_invalid`. Revoking a ' +
        'revoked key answers 409 `public_key_revoked`. Revoking an imported key leaves its source ' +
        'key working on its toolkit’s own API.',
      access: KEY_MANAGERS,
      request: { params: 'key-id-params' },
      responses: { 200: 'public-key' },
      errors: [notFound('public key'), publicKeyRevoked()],
      async handler(ctx) {
        const { productId } = principalOf(ctx);
        const id = ctx.params.id as string;
        const record = await publicKeys.revoke(productId, id);
        if (!record) throw await refusalFor(productId, id);
        void keyChanges.keyChanged({
          productId,
          environment: record.environment,
          keyIds: [record.id],
          change: 'revoked',
        });
        return { status: 200, body: publicKeyView(record) };
      },
    },
    {
      ...common,
      method: 'POST',
      path: '/organization/public-keys/import',
      operationId: 'organization_public-keys_import',
      audit: {
        targetType: 'public_key',
        // One entry per key added; an import that adds nothing changed nothing.
        targets: (_ctx, result) =>
          (result.body as { data: Array<{ id: string }> }).data.map((k) => ({
            id: k.id,
            changes: ['imported_from'],
          })),
      },
      summary: 'Import a toolkit’s API keys as public keys',
      description:
        'Copies every active mail (`lmk_`) or realtime (`rtk_`) key not imported before into the ' +
        'production public key list, keeping its value, visible part, name and creation date. ' +
        'Mail keys get the mail toolkit as scope, without their domain lock; realtime keys the ' +
        'realtime toolkit; an unnamed realtime key is named `Imported from realtime`. The two ' +
        'records are revoked independently. Answers the keys added.',
      access: KEY_MANAGERS,
      request: { body: 'public-key-import' },
      responses: { 200: 'public-key-import-result' },
      async handler(ctx) {
        const { productId } = principalOf(ctx);
        const { toolkit } = ctx.body as { toolkit: ImportSource };
        const imported = await deps.importer.importKeys(productId, toolkit);
        if (imported.length > 0) {
          void keyChanges.keyChanged({
            productId,
            environment: IMPORT_ENVIRONMENT,
            keyIds: imported.map((k) => k.id),
            change: 'imported',
          });
        }
        return { status: 200, body: { data: imported.map(publicKeyView) } };
      },
    },
  ];
}
