// Keyset pagination shared by every key list: newest first (created_at, then id, descending),
// continued after the row a cursor names. The cursor is that row's id, so a page boundary stays
// exact however many keys share a creation time, and rows added meanwhile never shift a page.
import { isUuid } from '@lattice/core';
import type { Knex } from 'knex';

export interface KeyPage {
  /** At most this many rows. */
  limit: number;
  /** Id of the last row of the previous page; rows strictly after it come next. */
  afterId?: string;
}

/**
 * Orders a query over `table` newest first and, given a page, narrows it to the rows after the
 * cursor and limits it. A cursor that names no row of the product reads as the end of the list.
 * Returns false when the cursor cannot be an id at all: the caller answers an empty page
 * without asking the database.
 */
export function applyKeyPage(
  query: Knex.QueryBuilder,
  table: string,
  productId: string,
  page: KeyPage | undefined,
): boolean {
  query.orderBy([
    { column: 'created_at', order: 'desc' },
    { column: 'id', order: 'desc' },
  ]);
  if (page === undefined) return true;
  if (page.afterId !== undefined) {
    if (!isUuid(page.afterId)) return false;
    query.whereRaw('(created_at, id) < (select created_at, id from ?? where id = ? and product_id = ?)', [
      table,
      page.afterId,
      productId,
    ]);
  }
  query.limit(page.limit);
  return true;
}
