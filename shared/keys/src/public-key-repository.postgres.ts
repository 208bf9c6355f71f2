import { type Environment, isUuid, newId } from '@lattice/core';
import type { DbExecutor } from '@lattice/store';
import type { SnapshotKey } from './key-check.ts';
import { applyKeyPage } from './key-page.ts';
import type { NewPublicKey, PublicKeyRecord, PublicKeyRepository } from './public-key-repository.ts';
import type { PublicKeyScope } from './scope.ts';

/** A public_keys row as PUBLIC_KEY_COLUMNS selects it (shared with the importer). */
export interface PublicKeyRow {
  id: string;
  product_id: string;
  environment: Environment;
  name: string;
  prefix: string;
  visible: string;
  scope: PublicKeyScope;
  status: 'active' | 'revoked';
  created_at: Date;
  created_by: string | null;
  revoked_at: Date | null;
  imported_from: 'mail' | 'realtime' | null;
  source_key_id: string | null;
}

export const PUBLIC_KEY_COLUMNS = [
  'id',
  'product_id',
  'environment',
  'name',
  'prefix',
  'visible',
  'scope',
  'status',
  'created_at',
  'created_by',
  'revoked_at',
  'imported_from',
  'source_key_id',
];

export function toPublicKeyRecord(r: PublicKeyRow): PublicKeyRecord {
  return {
    id: r.id,
    productId: r.product_id,
    environment: r.environment,
    name: r.name,
    prefix: r.prefix,
    visible: r.visible,
    scope: r.scope,
    status: r.status,
    createdAt: r.created_at,
    createdBy: r.created_by,
    revokedAt: r.revoked_at,
    importedFrom: r.imported_from,
    sourceKeyId: r.source_key_id,
  };
}

export function createPostgresPublicKeyRepository(db: DbExecutor): PublicKeyRepository {
  // Untyped table access: rows are mapped through toPublicKeyRecord, where their shape is stated once.
  const table = () => db('public_keys');
  return {
    async create(key: NewPublicKey) {
      const [row] = await table()
        .insert({
          id: newId(),
          product_id: key.productId,
          environment: key.environment,
          name: key.name,
          prefix: key.prefix,
          key_hash: key.hash,
          visible: key.visible,
          scope: JSON.stringify(key.scope),
          status: 'active',
          created_by: key.createdBy,
          ...(key.createdAt ? { created_at: key.createdAt } : {}),
          imported_from: key.importedFrom ?? null,
          source_key_id: key.sourceKeyId ?? null,
        })
        .returning(PUBLIC_KEY_COLUMNS);
      return toPublicKeyRecord(row as PublicKeyRow);
    },
    async list(productId, environment, page) {
      if (!isUuid(productId)) return [];
      const q = table().select(PUBLIC_KEY_COLUMNS).where({ product_id: productId });
      if (environment) q.andWhere({ environment });
      if (!applyKeyPage(q, 'public_keys', productId, page)) return [];
      return ((await q) as unknown as PublicKeyRow[]).map(toPublicKeyRecord);
    },
    async get(productId, id) {
      if (!isUuid(productId) || !isUuid(id)) return undefined;
      const row = (await table().select(PUBLIC_KEY_COLUMNS).where({ product_id: productId, id }).first()) as
        | PublicKeyRow
        | undefined;
      return row ? toPublicKeyRecord(row) : undefined;
    },
    async updateScope(productId, id, scope) {
      if (!isUuid(productId) || !isUuid(id)) return undefined;
      const [row] = await table()
        .where({ product_id: productId, id, status: 'active' })
        .update({ scope: JSON.stringify(scope), updated_at: db.fn.now() })
        .returning(PUBLIC_KEY_COLUMNS);
      return row ? toPublicKeyRecord(row as PublicKeyRow) : undefined;
    },
    async revoke(productId, id) {
      if (!isUuid(productId) || !isUuid(id)) return undefined;
      const [row] = await table()
        .where({ product_id: productId, id, status: 'active' })
        .update({ status: 'revoked', revoked_at: db.fn.now(), updated_at: db.fn.now() })
        .returning(PUBLIC_KEY_COLUMNS);
      return row ? toPublicKeyRecord(row as PublicKeyRow) : undefined;
    },
    snapshotKeys: (environment, revokedAfter) => snapshotRows(db, environment, null, revokedAfter),
    async changedSince(environment, since, revokedAfter) {
      const { rows } = (await db.raw('select now() as as_of')) as { rows: Array<{ as_of: Date }> };
      const keys = await snapshotRows(db, environment, since, revokedAfter);
      return { keys, asOf: rows[0]!.as_of };
    },
  };
}

type SnapshotRow = {
  id: string;
  product_id: string;
  key_hash: string;
  scope: PublicKeyScope;
  revoked_at: Date | null;
};

/** `since` null: active keys plus those revoked after `revokedAfter`; else every row changed after `since`. */
async function snapshotRows(
  db: DbExecutor,
  environment: Environment,
  since: Date | null,
  revokedAfter: Date,
): Promise<SnapshotKey[]> {
  const q = db('public_keys')
    .select('id', 'product_id', 'key_hash', 'scope', 'revoked_at')
    .where({ environment });
  if (since) q.andWhere('updated_at', '>', since);
  else q.andWhere((w) => w.where({ status: 'active' }).orWhere('revoked_at', '>', revokedAfter));
  const rows = (await q) as SnapshotRow[];
  return rows.map((r) => ({
    id: r.id,
    productId: r.product_id,
    hash: r.key_hash,
    scope: r.scope,
    revokedAtMs: r.revoked_at ? r.revoked_at.getTime() : null,
  }));
}
