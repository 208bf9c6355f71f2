import { isUuid, newId } from '@lattice/core';
import type { DbExecutor } from '@lattice/store';
import { areaKeyQueries } from './area-key-queries.ts';
import type { MailKeyRecord, MailKeyRepository, MailKeyScope } from './mail-key-repository.ts';

const TABLE = 'mail_api_keys';
const COLUMNS = ['id', 'product_id', 'name', 'scope', 'domain_id', 'visible', 'created_by', 'created_at'];

interface Row {
  id: string;
  product_id: string;
  name: string;
  scope: MailKeyScope;
  domain_id: string | null;
  visible: string;
  created_by: string | null;
  created_at: Date;
}

function toRecord(r: Row): MailKeyRecord {
  return {
    id: r.id,
    productId: r.product_id,
    name: r.name,
    scope: r.scope,
    domainId: r.domain_id,
    visible: r.visible,
    createdBy: r.created_by,
    createdAt: r.created_at,
  };
}

export function createPostgresMailKeyRepository(db: DbExecutor): MailKeyRepository {
  return {
    async create(key) {
      const row = {
        id: newId(),
        product_id: key.productId,
        name: key.name,
        scope: key.scope,
        key_hash: key.hash,
        visible: key.visible,
        created_by: key.createdBy,
      };
      if (key.domainId === null) {
        const [inserted] = await db(TABLE)
          .insert({ ...row, domain_id: null })
          .returning(COLUMNS);
        return toRecord(inserted as Row);
      }
      if (!isUuid(key.domainId)) return undefined;
      // One statement: the row exists only if the domain is the product's, so no other
      // product's domain can ever be attached. Parameters of a SELECT list have no type of their
      // own, hence the casts.
      const result = (await db.raw(
        `insert into ${TABLE} (id, product_id, name, scope, key_hash, visible, created_by, domain_id)
         select ?::uuid, ?::uuid, ?::text, ?::text, ?::text, ?::text, ?::uuid, d.id
         from mail_domains d where d.id = ? and d.product_id = ?
         returning ${COLUMNS.join(', ')}`,
        [
          row.id,
          row.product_id,
          row.name,
          row.scope,
          row.key_hash,
          row.visible,
          row.created_by,
          key.domainId,
          key.productId,
        ],
      )) as { rows: Row[] };
      const inserted = result.rows[0];
      return inserted ? toRecord(inserted) : undefined;
    },
    ...areaKeyQueries<Row, MailKeyRecord>(db, TABLE, COLUMNS, toRecord),
  };
}
