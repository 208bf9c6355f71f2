// Re-sealing after a rotation of LATTICE_SECRET_KEYS: every sealed value whose kid is not the
// current one is opened and sealed again under the current kid, so the old entry can leave the
// keyring. Safe while the platform runs: a row is written only if it still holds the value that
// was read (compare and set), and readers open either value as long as both kids are held. Run
// again, it finds nothing to do. A column that replaced a plaintext one (SealedColumn
// .plaintextColumn) has its plaintext values sealed too, the plaintext cleared in the same
// conditional write, so after one run no plaintext is left. Plaintexts never leave this module;
// progress names only tables, kids and counts.
import { openSecret, SecretKeyError, type SecretKeyring, sealSecret } from '@lattice/core';
import { type Db, type SealedColumn, sealedCensus } from '@lattice/store';

const DEFAULT_BATCH = 200;
/** Passes over a column; another pass is needed only for rows changed while they were read. */
const MAX_PASSES = 5;

/** Nothing can be (or was) resealed as asked; the message says what the operator should do. */
export class ResealRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ResealRefused';
  }
}

export interface ResealOptions {
  db: Db;
  keyring: SecretKeyring;
  columns: readonly SealedColumn[];
  /** Rows read and written per statement. */
  batchSize?: number;
  progress: (line: string) => void;
}

export interface ResealOutcome {
  kid: string;
  /** Values resealed per table. */
  resealed: Record<string, number>;
}

/** Key column types a SealedColumn may name: interpolated into SQL as casts, so a closed list. */
const KEY_TYPES: ReadonlySet<string> = new Set(['uuid', 'text']);

interface Census {
  /** Sealed values per kid; a value that names no valid kid counts as `malformed`. */
  byKid: Map<string, number>;
  /** Values still in the plaintext column. */
  plaintext: number;
}

async function census(db: Db, c: SealedColumn): Promise<Census> {
  const byKid = await sealedCensus(db, c);
  let plaintext = 0;
  if (c.plaintextColumn) {
    const [row] = (await db(c.table).whereNotNull(c.plaintextColumn).count({ n: '*' })) as Array<{
      n: string | number;
    }>;
    plaintext = Number(row?.n ?? 0);
  }
  return { byKid, plaintext };
}

/** Refuses before changing anything when some value was sealed by a kid the keyring lacks. */
async function checkKidsHeld(opts: ResealOptions): Promise<void> {
  const missing: string[] = [];
  for (const c of opts.columns) {
    if (!KEY_TYPES.has(c.key.type)) throw new Error(`${c.table}: unsupported key type ${c.key.type}`);
    const { byKid, plaintext } = await census(opts.db, c);
    const counts = [...byKid].map(([kid, n]) => `${n} under ${kid}`);
    if (plaintext > 0) counts.push(`${plaintext} in plain text`);
    const summary = counts.join(', ') || 'none';
    opts.progress(`${c.table}.${c.column}: ${summary} (current: ${opts.keyring.currentKid})`);
    for (const [kid, n] of byKid) {
      if (kid === 'malformed') missing.push(`${c.table}.${c.column}: ${n} value(s) malformed`);
      else if (!opts.keyring.purposeKey(kid, c.purpose))
        missing.push(`${c.table}.${c.column}: ${n} value(s) sealed with ${kid}`);
    }
  }
  if (missing.length > 0) {
    throw new ResealRefused(
      `LATTICE_SECRET_KEYS does not hold every kid in use; nothing was changed.\n  ${missing.join('\n  ')}\n` +
        'Put each missing entry back after the current one (first) and run again.',
    );
  }
}

interface PassResult {
  resealed: number;
  /** Rows whose value changed between the read and the write (another pass reads them again). */
  raced: number;
  /** Values that did not open (tampered, or a kid that appeared after the check). */
  failed: Array<{ id: string; reason: string }>;
}

async function resealPass(opts: ResealOptions, c: SealedColumn): Promise<PassResult> {
  const { db, keyring } = opts;
  const batchSize = opts.batchSize ?? DEFAULT_BATCH;
  const current = keyring.currentKid;
  const key = c.key.column;
  const plain = c.plaintextColumn;
  const result: PassResult = { resealed: 0, raced: 0, failed: [] };
  let after: string | undefined;
  for (;;) {
    const q = db(c.table)
      .where((w) => {
        w.where((sealed) =>
          sealed
            .whereNotNull(c.column)
            // Kids are [a-z0-9], so the pattern holds no wildcard of its own.
            .whereNot(c.column, 'like', `${current}.%`),
        );
        if (plain) w.orWhereNotNull(plain);
      })
      .orderBy(key)
      .limit(batchSize)
      .select({ id: key, sealed: c.column, ...(plain ? { plaintext: plain } : {}) });
    if (after !== undefined) q.where(key, '>', after);
    const rows = (await q) as Array<{ id: string; sealed: string | null; plaintext?: string | null }>;
    if (rows.length === 0) return result;
    after = rows[rows.length - 1]!.id;
    // [key, sealed read, plaintext read (with a plaintext column), new seal]
    const changes: Array<Array<string | null>> = [];
    for (const row of rows) {
      try {
        // The sealed value is what readers use when both are there.
        const plaintext =
          row.sealed !== null ? openSecret(keyring, c.purpose, row.sealed) : (row.plaintext as string);
        const sealed = sealSecret(keyring, c.purpose, plaintext);
        changes.push(
          plain ? [row.id, row.sealed, row.plaintext ?? null, sealed] : [row.id, row.sealed, sealed],
        );
      } catch (err) {
        if (!(err instanceof SecretKeyError)) throw err;
        result.failed.push({ id: row.id, reason: err.message });
      }
    }
    if (changes.length > 0) {
      // One statement per batch, each row written only while it still holds what was read
      // (`is not distinct from`: a plaintext row's sealed value read was null). The key type is
      // one of KEY_TYPES, checked before anything was changed.
      const tuple = plain ? `(?::${c.key.type}, ?, ?, ?)` : `(?::${c.key.type}, ?, ?)`;
      const updated = (await db.raw(
        `update ?? as t set ?? = v.sealed${plain ? ', ?? = null' : ''}
           from (values ${changes.map(() => tuple).join(', ')}) as v(id, old, ${plain ? 'old_plain, ' : ''}sealed)
          where t.?? = v.id and t.?? is not distinct from v.old${plain ? ' and t.?? is not distinct from v.old_plain' : ''}
          returning t.??`,
        [
          c.table,
          c.column,
          ...(plain ? [plain] : []),
          ...changes.flat(),
          key,
          c.column,
          ...(plain ? [plain] : []),
          key,
        ],
      )) as { rows: unknown[] };
      result.resealed += updated.rows.length;
      result.raced += changes.length - updated.rows.length;
    }
    opts.progress(`${c.table}: resealed ${result.resealed} so far`);
  }
}

export async function resealAll(opts: ResealOptions): Promise<ResealOutcome> {
  await checkKidsHeld(opts);
  const resealed: Record<string, number> = {};
  const failures: string[] = [];
  for (const c of opts.columns) {
    let total = 0;
    let pass: PassResult = { resealed: 0, raced: 1, failed: [] };
    for (let n = 0; n < MAX_PASSES && pass.raced > 0; n++) {
      pass = await resealPass(opts, c);
      total += pass.resealed;
      if (pass.raced > 0) opts.progress(`${c.table}: ${pass.raced} row(s) changed while read; reading again`);
    }
    resealed[c.table] = total;
    opts.progress(`${c.table}: resealed ${total} value(s) under ${opts.keyring.currentKid}`);
    if (pass.raced > 0)
      failures.push(`${c.table}: ${pass.raced} row(s) kept changing while read; run the command again`);
    for (const f of pass.failed) failures.push(`${c.table} ${f.id}: ${f.reason}`);
  }
  if (failures.length > 0) {
    throw new ResealRefused(
      `resealed ${JSON.stringify(resealed)}, but not everything:\n  ${failures.join('\n  ')}`,
    );
  }
  return { kid: opts.keyring.currentKid, resealed };
}
