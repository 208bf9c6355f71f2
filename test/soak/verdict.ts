// The soak's pass/fail: nothing accepted lost anywhere, no hang, no answer a client must never
// get, order and offsets intact, and each kind of duplicate within its bound (docs/operations.md
// "The soak": a duplicate needs a fault that leaves an outcome in doubt, so each bound is the
// number of such faults times what can be in doubt at one).
import type { Accounting } from './accounting.ts';
import type { SoakResult } from './soak.ts';

export interface Bounds {
  /** History: a retried publish whose Idempotency-Key record went with Redis (one in flight per channel). */
  publishes: number;
  /** The smart host: copies handed over again after an actor host died before recording them (the SMTP pool per host). */
  emails: number;
  /** The endpoint: an attempt repeated after an actor host died before recording its outcome (one in flight per endpoint). */
  webhooks: number;
}

/** The SMTP pool of one actor host (SMTP_POOL_MAX_CONNECTIONS' default). */
const SMTP_POOL = 5;

export function boundsOf(r: SoakResult): Bounds {
  const faults = (target: string) => r.chaos.filter((e) => e.target.startsWith(target)).length;
  return {
    publishes: r.settings.channels * faults('redis'),
    emails: SMTP_POOL * faults('actors'),
    webhooks: faults('actors'),
  };
}

export function verdictOf(r: SoakResult): { problems: string[]; bounds: Bounds } {
  const bounds = boundsOf(r);
  const problems = accountingProblems(r.accounting, bounds);
  for (const e of r.chaos) if (e.problem) problems.push(`${e.target} did not come back: ${e.problem}`);
  return { problems, bounds };
}

/** What the counts alone fail on (the chaos run, test/chaos/, applies it with bounds of its own). */
export function accountingProblems(a: Accounting, bounds: Bounds): string[] {
  const problems: string[] = [];
  // What must not happen at all, and what may happen up to its bound.
  const mustBeZero: Array<[string, number]> = [
    ['publishes lost', a.publishes.lost],
    ['publishes out of order', a.publishes.outOfOrder],
    ['history offset faults', a.publishes.offsetFaults],
    ["202 ids not history's", a.publishes.idMismatches],
    ['publish requests hung', a.publishes.hangs],
    ['publish answers never expected', a.publishes.unexpected.length],
    ['messages lost at subscribers', a.subscribers.lost],
    ['messages duplicated at subscribers', a.subscribers.duplicated],
    ['messages out of order at subscribers', a.subscribers.outOfOrder],
    ['subscriptions not recovered', a.subscribers.unrecovered],
    ['emails lost', a.emails.lost],
    ['send requests hung', a.emails.hangs],
    ['send answers never expected', a.emails.unexpected.length],
    ['extra copies the sender did not count', a.emails.duplicated - a.emails.duplicatesCounted],
    ['webhook deliveries lost', a.webhooks.lost],
    ['events delivered under two ids', a.webhooks.duplicatedEvents],
  ];
  const bounded: Array<[string, number, number]> = [
    ['publishes duplicated in history', a.publishes.duplicated, bounds.publishes],
    ['emails handed over twice', a.emails.duplicated, bounds.emails],
    ['webhook attempts repeated', a.webhooks.duplicated, bounds.webhooks],
  ];
  for (const [what, n] of mustBeZero) if (n !== 0) problems.push(`${what}: ${n}`);
  for (const [what, n, bound] of bounded) if (n > bound) problems.push(`${what}: ${n}, bound ${bound}`);
  return problems;
}
