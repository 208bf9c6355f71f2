// What a process knows of the sealed values it needs (docs/operations.md "Secrets at start"):
// whether the keyring opens what the database holds, as found by the last check of a sample per
// kid and purpose (at start and periodically), and whether any value failed to open at request
// time within the last window. `/healthz` reports the purposes failing; a request-time failure
// stops counting once a whole window has passed without another.
import type { Clock } from './clock.ts';
import type { SecretKeyring } from './secret-keyring.ts';

/** How long a value that did not open at request time keeps its purpose failing. */
export const SECRET_FAILURE_WINDOW_MS = 5 * 60_000;

/** One kid of one sealed column whose values the keyring does not open. */
export interface SealedValueProblem {
  table: string;
  column: string;
  purpose: string;
  /** The kid the values name (`malformed` when they name none). */
  kid: string;
  /** How many values of the column name that kid. */
  count: number;
  reason: 'kid_missing' | 'does_not_open' | 'malformed';
}

export interface SecretHealth {
  /**
   * openSecret's hook: a value of `purpose` sealed under `kid` did not open just now. A value of
   * no sealed shape (`malformed`) says nothing of the keyring and fails no purpose.
   */
  openFailed(purpose: string, kid: string): void;
  /** The latest check of the database's sealed values. */
  checked(problems: readonly SealedValueProblem[]): void;
  /** The purposes failing now, sorted; empty when every sealed value opens. */
  failing(): string[];
}

export function createSecretHealth(opts: { clock: Clock; windowMs?: number }): SecretHealth {
  const windowMs = opts.windowMs ?? SECRET_FAILURE_WINDOW_MS;
  const lastFailureMs = new Map<string, number>();
  let checkedFailing = new Set<string>();
  return {
    openFailed(purpose, kid) {
      // A malformed value opens under no keyring: counted by the caller, not the keyring's health.
      if (kid === 'malformed') return;
      lastFailureMs.set(purpose, opts.clock.nowMs());
    },
    checked(problems) {
      checkedFailing = new Set(problems.map((p) => p.purpose));
    },
    failing() {
      const now = opts.clock.nowMs();
      const failing = new Set(checkedFailing);
      for (const [purpose, at] of lastFailureMs) {
        if (now - at < windowMs) failing.add(purpose);
        else lastFailureMs.delete(purpose);
      }
      return [...failing].sort();
    },
  };
}

/** The keyring, reporting every value that does not open to `onFailure` (counters, health). */
export function reportingKeyring(
  keyring: SecretKeyring,
  onFailure: (purpose: string, kid: string) => void,
): SecretKeyring {
  return {
    currentKid: keyring.currentKid,
    purposeKey: (kid, purpose) => keyring.purposeKey(kid, purpose),
    openFailed(purpose, kid) {
      keyring.openFailed?.(purpose, kid);
      onFailure(purpose, kid);
    },
  };
}

/**
 * The one line a role prints when it cannot start: what the database needs that the keyring
 * lacks, and the remedy. Names kids, tables and counts, never a key.
 */
export function sealedValuesMessage(problems: readonly SealedValueProblem[]): string {
  const missing = [...new Set(problems.filter((p) => p.reason === 'kid_missing').map((p) => p.kid))];
  const differing = [...new Set(problems.filter((p) => p.reason === 'does_not_open').map((p) => p.kid))];
  const where = problems.map((p) => `${p.table}.${p.column}: ${p.count} under ${p.kid}`).join(', ');
  const parts: string[] = [];
  if (missing.length > 0) parts.push(`LATTICE_SECRET_KEYS lacks kid(s) ${missing.join(', ')}`);
  if (differing.length > 0)
    parts.push(
      `LATTICE_SECRET_KEYS holds kid(s) ${differing.join(', ')} with a key other than the one that sealed them`,
    );
  if (problems.some((p) => p.reason === 'malformed')) parts.push('some sealed values are malformed');
  return (
    `sealed secrets in the database do not open: ${parts.join('; ')} (${where}). ` +
    'Set LATTICE_SECRET_KEYS to the keys that sealed them (the current one first), or after a rotation ' +
    'keep the old entries and run `lattice secrets reseal`; see docs/operations.md "Secrets at start".'
  );
}
