// Re-sealing after a rotation of LATTICE_SECRET_KEYS: every sealed value whose kid is not the
// current one is opened and sealed again under the current kid, so the old entry can leave the
// keyring. Safe while the platform runs: a row is written only if it still holds the value that
// was read (compare and set), and readers open either value as long as both kids are held. Run
// again, it finds nothing to do. Plaintexts never leave this module; progress names only
// tables, kids and counts.
import { openSecret, SecretKeyError, type SecretKeyring, sealSecret } from '@lattice/core';
import type { SealedColumn } from '@lattice/mail';
import type { Db } from '@lattice/store';

const KID = /^[a-z0-9]{1,16}$/;
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

/** How many values of a column each kid sealed; a value that names no valid kid counts as `malformed`. */
async function census(db: Db, c: SealedColumn): Promise<Map<string, number>> {
  const rows = (await db(c.table)
    .whereNotNull(c.column)
    .select(db.raw("split_part(??, '.', 1) as kid", [c.column]))
    .count({ n: '*' })
    .groupByRaw('1')) as Array<{ kid: string; n: string | number }>;
  const byKid = new Map<string, number>();
  for (const r of rows) {
    // What precedes the first dot of a malformed value could be anything: never print it.
    const kid = KID.test(r.kid) ? r.kid : 'malformed';
    byKid.set(kid, (byKid.get(kid) ?? 0) + Number(r.n));
  }
  return byKid;
}

/** Refuses before changing anything when some value was sealed by a kid the keyring lacks. */
async function checkKidsHeld(opts: ResealOptions): Promise<void> {
  const missing: string[] = [];
  for (const c of opts.columns) {
    const byKid = await census(opts.db, c);
    const summary = [...byKid].map(([kid, n]) => `${n} under ${kid}`).join(', ') || 'none';
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
  const result: PassResult = { resealed: 0, raced: 0, failed: [] };
  let after: string | undefined;
  for (;;) {
    const q = db(c.table)
      .whereNotNull(c.column)
      // Kids are [a-z0-9], so the pattern holds no wildcard of its own.
      .whereNot(c.column, 'like', `${current}.%`)
      .orderBy('id')
      .limit(batchSize)
      .select({ id: 'id', sealed: c.column });
    if (after !== undefined) q.where('id', '>', after);
    const rows = (await q) as Array<{ id: string; sealed: string }>;
    if (rows.length === 0) return result;
    after = rows[rows.length - 1]!.id;
    const changes: Array<[string, string, string]> = [];
    for (const row of rows) {
      try {
        const plaintext = openSecret(keyring, c.purpose, row.sealed);
        changes.push([row.id, row.sealed, sealSecret(keyring, c.purpose, plaintext)]);
      } catch (err) {
        if (!(err instanceof SecretKeyError)) throw err;
        result.failed.push({ id: row.id, reason: err.message });
      }
    }
    if (changes.length > 0) {
      // One statement per batch, each row written only while it still holds what was read.
      const updated = (await db.raw(
        `update ?? as t set ?? = v.sealed
           from (values ${changes.map(() => '(?::uuid, ?, ?)').join(', ')}) as v(id, old, sealed)
          where t.id = v.id and t.?? = v.old
          returning t.id`,
        [c.table, c.column, ...changes.flat(), c.column],
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
