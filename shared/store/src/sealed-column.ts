// A column holding values sealed with the platform keyring (sealSecret in @lattice/core). Each
// toolkit lists its own (MAIL_SEALED_COLUMNS, REALTIME_SEALED_COLUMNS), since the purposes are
// its own; `lattice secrets reseal` re-seals all of them after a rotation of LATTICE_SECRET_KEYS.

export interface SealedColumn {
  table: string;
  /** The table's primary key: a single column, of this type (resealing pages and writes by it). */
  key: { column: string; type: 'uuid' | 'text' };
  column: string;
  purpose: string;
  /**
   * A column that held the value in plain text before it was sealed (rows written before the
   * sealed column existed): resealing seals it into `column` and clears it in the same write.
   */
  plaintextColumn?: string;
}
