// The chaos run's figures per fault, from what the clients were answered and what arrived:
//   answers      every request whose attempt began in the fault's window (from the fault to the
//                next one), by kind: 2xx; documented refusals (503 `*_unavailable`, 429, 409
//                `idempotency_key_in_use`, each by status and code); failed connections to the
//                process the fault killed, while it was down (nobody left to answer); and
//                violations: any other status (a 500, an undocumented 503), a connection refused
//                or dropped by a process that was up, a request unanswered within 15 s.
//   recovery     per stream, from the service's return: the first success, and when the stream
//                was back to normal and stayed so for STABLE_S seconds. Normal for requests: at
//                least 95 % of a 3 s window's answers 2xx, at a rate of at least 80 % of the
//                baseline's; for what is delivered (subscribers, smart host, webhooks): the oldest
//                thing fed to it and not yet delivered no older than in the baseline (twice its
//                worst, at least 2 s).
// The baseline is the traffic before the first fault (its first 5 s left out: connections warming).
import type { Sample } from '../soak/sampler.ts';
import type { Outcome } from '../support/post-outcome.ts';
import type { ChaosResult } from './chaos-run.ts';
import type { FaultEvent } from './faults.ts';

export const REQUEST_STREAMS = ['publishes', 'sends', 'management reads', 'edge reads'] as const;
export const DELIVERY_STREAMS = ['subscribers', 'smart host', 'webhooks'] as const;
export type RequestStream = (typeof REQUEST_STREAMS)[number];
export type DeliveryStream = (typeof DELIVERY_STREAMS)[number];
export type Stream = RequestStream | DeliveryStream;

const WINDOW_MS = 3_000;
const STABLE_S = 5;
const MIN_OK_SHARE = 0.95;
const MIN_RATE_SHARE = 0.8;
const WARMUP_SKIP_MS = 5_000;

export interface StreamAnswers {
  attempts: number;
  ok: number;
  /** Documented refusals by `status code`. */
  refused: Record<string, number>;
  /** Failed connections to the process the fault had killed, while it was down. */
  toKilled: number;
  /** What must never happen, by kind (`500 internal_error`, `connection failed (ECONNRESET)`, …). */
  violations: Record<string, number>;
  /** Refusals (503) that came without the documented Retry-After. */
  withoutRetryAfter: number;
}

export interface RefusalTime {
  median: number;
  max: number;
}

export interface Recovery {
  stream: Stream;
  /** s from the return to the first success (a 2xx; something delivered); null: none in the window. */
  firstSuccessS: number | null;
  /** s from the return until normal for good (STABLE_S seconds); null: not within the window. */
  normalS: number | null;
}

export interface FaultFigures {
  n: number;
  event: FaultEvent;
  /** The window: from the fault to the next one (or the end of the traffic), ms since the start. */
  fromMs: number;
  toMs: number;
  answers: Record<RequestStream, StreamAnswers>;
  /** How long the documented refusals took to come, median and slowest; null: none. */
  refusalTimeS: RefusalTime | null;
  /** The age of the oldest thing not yet delivered, at worst in the window, per delivery stream, s. */
  worstDelayS: Record<DeliveryStream, number>;
  recovery: Recovery[];
  /** The slowest stream's `normalS`: the return to full service; null when one never got there. */
  fullServiceS: number | null;
  violations: number;
}

export interface ChaosFigures {
  baseline: {
    answers: Record<RequestStream, StreamAnswers>;
    refusalTimeS: RefusalTime | null;
    /** 2xx a second per request stream. */
    okPerSecond: Record<RequestStream, number>;
    /** The age of the oldest thing not yet delivered, at worst, per delivery stream, s. */
    worstDelayS: Record<DeliveryStream, number>;
    violations: number;
  };
  faults: FaultFigures[];
  /** Violations over the whole run (baseline included). */
  violations: number;
}

function emptyAnswers(): StreamAnswers {
  return { attempts: 0, ok: 0, refused: {}, toKilled: 0, violations: {}, withoutRetryAfter: 0 };
}

const originOf = (url: string) => {
  try {
    return new URL(url).origin;
  } catch {
    return url;
  }
};

/** How one answer counts in the window of `fault` (null: the baseline). */
export function classify(o: Outcome, fault: FaultEvent | null, into: StreamAnswers): void {
  into.attempts++;
  if (o.status >= 200 && o.status < 300) {
    into.ok++;
    return;
  }
  const add = (bag: Record<string, number>, key: string) => {
    bag[key] = (bag[key] ?? 0) + 1;
  };
  if (o.status === 0) {
    if (o.problem?.startsWith('no answer')) {
      add(into.violations, 'no answer within 15 s');
      return;
    }
    const killed =
      fault !== null &&
      fault.kind === 'role' &&
      fault.origins.includes(originOf(o.url)) &&
      o.answeredAtMs >= fault.atMs &&
      o.startedAtMs <= (fault.backAtMs ?? Number.POSITIVE_INFINITY);
    if (killed) into.toKilled++;
    else {
      const cause = /\(([^)]+)\)$/.exec(o.problem ?? '')?.[1] ?? o.problem ?? 'unknown';
      add(into.violations, `connection failed (${cause})`);
    }
    return;
  }
  const key = `${o.status} ${o.code ?? '(no code)'}`;
  const documented =
    (o.status === 503 && /^[a-z_]+_unavailable$/.test(o.code ?? '')) ||
    o.status === 429 ||
    (o.status === 409 && o.code === 'idempotency_key_in_use');
  if (!documented) {
    add(into.violations, key);
    return;
  }
  add(into.refused, key);
  if (o.status === 503 && !o.retryAfter) into.withoutRetryAfter++;
}

const count = (a: StreamAnswers) => Object.values(a.violations).reduce((n, v) => n + v, 0);

function answersIn(
  outcomes: Record<RequestStream, Outcome[]>,
  fromMs: number,
  toMs: number,
  fault: FaultEvent | null,
): Record<RequestStream, StreamAnswers> {
  const out = {} as Record<RequestStream, StreamAnswers>;
  for (const stream of REQUEST_STREAMS) {
    const a = emptyAnswers();
    for (const o of outcomes[stream])
      if (o.startedAtMs >= fromMs && o.startedAtMs < toMs) classify(o, fault, a);
    out[stream] = a;
  }
  return out;
}

/** How long the documented refusals (503, 429, 409) of requests begun in the window took, s. */
function refusalTimeIn(
  outcomes: Record<RequestStream, Outcome[]>,
  fromMs: number,
  toMs: number,
): RefusalTime | null {
  const times = REQUEST_STREAMS.flatMap((s) =>
    outcomes[s]
      .filter((o) => o.startedAtMs >= fromMs && o.startedAtMs < toMs && [503, 429, 409].includes(o.status))
      .map((o) => (o.answeredAtMs - o.startedAtMs) / 1000),
  ).sort((a, b) => a - b);
  if (times.length === 0) return null;
  return { median: times[Math.floor(times.length / 2)]!, max: times.at(-1)! };
}

/** The running totals of what feeds each delivery stream and of what it delivered. */
export function deliveryTotals(r: ChaosResult, stream: DeliveryStream): { up: number[]; down: number[] } {
  const subs = Math.max(1, r.settings.subscribers);
  const pick: Record<DeliveryStream, [(s: Sample) => number, (s: Sample) => number]> = {
    subscribers: [(s) => s.published, (s) => s.delivered / subs],
    'smart host': [(s) => s.sent, (s) => s.handedOver],
    webhooks: [(s) => s.handedOver, (s) => s.webhooks],
  };
  const [up, down] = pick[stream];
  return { up: r.samples.map(up), down: r.samples.map(down) };
}

/**
 * How far behind what fed it each sample of a delivery stream was, in s: the age of the oldest
 * thing fed and not yet delivered, from the sample at which the feed first went past what has been
 * delivered (0 when everything fed has been delivered). A pause of the feed adds nothing to it.
 */
export function delaysOf(r: ChaosResult, stream: DeliveryStream): number[] {
  const { up, down } = deliveryTotals(r, stream);
  const t = r.samples.map((s) => s.tMs);
  let j = 0;
  return down.map((d, i) => {
    if (d >= up[i]!) return 0;
    // The first sample at which the feed was past d; the feed only grows.
    while (j < i && up[j]! <= d) j++;
    while (j > 0 && up[j - 1]! > d) j--;
    return (t[i]! - t[j]!) / 1000;
  });
}

/** The share of 2xx among the answers of the 3 s before each instant (0 when nothing answered). */
function okShareAt(outcomes: Outcome[], tMs: number): { ok: number; answers: number } {
  let ok = 0;
  let answers = 0;
  for (const o of outcomes) {
    if (o.answeredAtMs <= tMs - WINDOW_MS || o.answeredAtMs > tMs) continue;
    answers++;
    if (o.status >= 200 && o.status < 300) ok++;
  }
  return { ok, answers };
}

export function requestOutcomes(r: ChaosResult): Record<RequestStream, Outcome[]> {
  const out = {} as Record<RequestStream, Outcome[]>;
  for (const s of REQUEST_STREAMS)
    out[s] = [...(r.requests[s] ?? [])].sort((a, b) => a.answeredAtMs - b.answeredAtMs);
  return out;
}

export function figuresOf(r: ChaosResult): ChaosFigures {
  const outcomes = requestOutcomes(r);
  const firstFault = r.faults[0]?.atMs ?? r.loadMs;
  const baseFrom = Math.min(WARMUP_SKIP_MS, firstFault / 2);
  const baseSeconds = Math.max(1, (firstFault - baseFrom) / 1000);
  const baselineAnswers = answersIn(outcomes, 0, firstFault, null);
  const okPerSecond = {} as Record<RequestStream, number>;
  for (const s of REQUEST_STREAMS) {
    const ok = outcomes[s].filter(
      (o) => o.status >= 200 && o.status < 300 && o.answeredAtMs >= baseFrom && o.answeredAtMs < firstFault,
    ).length;
    okPerSecond[s] = ok / baseSeconds;
  }
  const delays = {} as Record<DeliveryStream, number[]>;
  const worstDelayS = {} as Record<DeliveryStream, number>;
  for (const s of DELIVERY_STREAMS) {
    delays[s] = delaysOf(r, s);
    const base = delays[s].filter((_, i) => {
      const t = r.samples[i]!.tMs;
      return t >= baseFrom && t < firstFault;
    });
    worstDelayS[s] = Math.max(0, ...base);
  }

  const faults: FaultFigures[] = r.faults.map((event, i) => {
    const fromMs = event.atMs;
    const toMs = r.faults[i + 1]?.atMs ?? r.loadMs;
    const answers = answersIn(outcomes, fromMs, toMs, event);
    const refusalTimeS = refusalTimeIn(outcomes, fromMs, toMs);
    const worstIn = {} as Record<DeliveryStream, number>;
    for (const s of DELIVERY_STREAMS)
      worstIn[s] = Math.max(
        0,
        ...delays[s].filter((_, k) => r.samples[k]!.tMs >= fromMs && r.samples[k]!.tMs < toMs),
      );
    const recovery: Recovery[] = [];
    const back = event.backAtMs;
    for (const stream of REQUEST_STREAMS) {
      if (back === null) {
        recovery.push({ stream, firstSuccessS: null, normalS: null });
        continue;
      }
      const list = outcomes[stream];
      const first = list.find(
        (o) => o.answeredAtMs >= back && o.answeredAtMs < toMs && o.status >= 200 && o.status < 300,
      );
      const normalAt = (tMs: number) => {
        const { ok, answers: n } = okShareAt(list, tMs + WINDOW_MS);
        return (
          n > 0 && ok / n >= MIN_OK_SHARE && ok / (WINDOW_MS / 1000) >= MIN_RATE_SHARE * okPerSecond[stream]
        );
      };
      recovery.push({
        stream,
        firstSuccessS: first ? (first.answeredAtMs - back) / 1000 : null,
        normalS: stableFrom(back, toMs - WINDOW_MS, normalAt),
      });
    }
    for (const stream of DELIVERY_STREAMS) {
      if (back === null) {
        recovery.push({ stream, firstSuccessS: null, normalS: null });
        continue;
      }
      const { down } = deliveryTotals(r, stream);
      const idx = r.samples.findIndex(
        (s, k) => k > 0 && s.tMs >= back && s.tMs < toMs && down[k]! > down[k - 1]!,
      );
      const bound = Math.max(2, 2 * worstDelayS[stream]);
      const normalAt = (tMs: number) => {
        const k = r.samples.findIndex((s) => s.tMs >= tMs);
        return k >= 0 && delays[stream][k]! <= bound;
      };
      recovery.push({
        stream,
        // A sample says what arrived during the second before it.
        firstSuccessS: idx > 0 ? Math.max(0, (r.samples[idx - 1]!.tMs - back) / 1000) : null,
        normalS: stableFrom(back, toMs, normalAt),
      });
    }
    const normals = recovery.map((x) => x.normalS);
    const fullServiceS = normals.some((x) => x === null) ? null : Math.max(0, ...(normals as number[]));
    const violations = REQUEST_STREAMS.reduce((n, s) => n + count(answers[s]), 0);
    return {
      n: i + 1,
      event,
      fromMs,
      toMs,
      answers,
      refusalTimeS,
      worstDelayS: worstIn,
      recovery,
      fullServiceS,
      violations,
    };
  });
  const baselineViolations = REQUEST_STREAMS.reduce((n, s) => n + count(baselineAnswers[s]), 0);
  return {
    baseline: {
      answers: baselineAnswers,
      refusalTimeS: refusalTimeIn(outcomes, 0, firstFault),
      okPerSecond,
      worstDelayS,
      violations: baselineViolations,
    },
    faults,
    violations: baselineViolations + faults.reduce((n, f) => n + f.violations, 0),
  };
}

/**
 * The first instant from `fromMs` on (in steps of 1 s, but the first check at `fromMs` itself)
 * at which `normalAt` holds for STABLE_S consecutive seconds, in s after `fromMs`; null when it
 * does not before `toMs`.
 */
function stableFrom(fromMs: number, toMs: number, normalAt: (tMs: number) => boolean): number | null {
  for (let t = fromMs; t + STABLE_S * 1000 <= toMs; t += 1000) {
    let stable = true;
    for (let k = 0; k < STABLE_S && stable; k++) stable = normalAt(t + k * 1000);
    if (stable) return (t - fromMs) / 1000;
  }
  return null;
}
