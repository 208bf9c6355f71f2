// Does the keyring open what the database holds? For each sealed column, the kids its values
// name (every value carries the kid that sealed it, so the database records which kids sealed
// what) and, for each kid the keyring holds, one sample opened: enough to tell a missing kid, a
// kid whose key differs from the one that sealed (two keyrings that both call their key `local`),
// and malformed values apart (docs/operations.md "Secrets at start"). Malformed values are no
// keyring's fault: they are reported, and a role starts all the same. Reads only.
import { openSecret, type SealedValueProblem, SecretKeyError, type SecretKeyring } from '@lattice/core';
import type { DbExecutor } from './db.ts';
import type { SealedColumn } from './sealed-column.ts';

/** sealSecret's shape, `kid.iv.ciphertext.tag`: anything else is malformed, whatever it starts with. */
const SEALED_SHAPE = '^[a-z0-9]{1,16}[.][^.]*[.][^.]*[.][^.]*$';

/** How many values of the column each kid sealed; values not of the sealed shape under `malformed`. */
export async function sealedCensus(db: DbExecutor, c: SealedColumn): Promise<Map<string, number>> {
  const rows = (await db(c.table)
    .whereNotNull(c.column)
    // What precedes the first dot of a malformed value could be anything: never read it.
    .select(
      db.raw(`case when ?? ~ '${SEALED_SHAPE}' then split_part(??, '.', 1) else 'malformed' end as kid`, [
        c.column,
        c.column,
      ]),
    )
    .count({ n: '*' })
    .groupByRaw('1')) as Array<{ kid: string; n: string | number }>;
  const byKid = new Map<string, number>();
  for (const r of rows) byKid.set(r.kid, (byKid.get(r.kid) ?? 0) + Number(r.n));
  return byKid;
}

export async function checkSealedValues(
  db: DbExecutor,
  keyring: SecretKeyring,
  columns: readonly SealedColumn[],
): Promise<SealedValueProblem[]> {
  const problems: SealedValueProblem[] = [];
  for (const c of columns) {
    for (const [kid, count] of await sealedCensus(db, c)) {
      const at = { table: c.table, column: c.column, purpose: c.purpose, kid, count };
      if (kid === 'malformed') {
        problems.push({ ...at, reason: 'malformed' });
        continue;
      }
      if (!keyring.purposeKey(kid, c.purpose)) {
        problems.push({ ...at, reason: 'kid_missing' });
        continue;
      }
      const sample = (await db(c.table)
        .whereRaw("split_part(??, '.', 1) = ?", [c.column, kid])
        .first({ value: c.column })) as { value: string } | undefined;
      if (!sample) continue; // resealed since the census
      try {
        openSecret(keyring, c.purpose, sample.value);
      } catch (err) {
        if (!(err instanceof SecretKeyError)) throw err;
        problems.push({ ...at, reason: 'does_not_open' });
      }
    }
  }
  return problems;
}
