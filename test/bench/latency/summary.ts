// The latency benchmark's figures reduced: per arm and rate the medians over rounds (loss counts
// summed over rounds: one lost message matters), the ratios Lattice ÷ bare (the median of each
// round's ratio, so drift on the machine during a round hits both alike), and the goals, each
// computed as met or missed from those figures.
import type { ArmName } from './arm.ts';
import type { PhaseResult } from './phase.ts';
import type { StageFigures, StageName } from './stages.ts';

export interface Summary {
  arm: ArmName;
  ratePerS: number;
  rounds: number;
  p50Ms: number;
  p95Ms: number;
  p99Ms: number;
  maxMs: number;
  answeredPerS: number;
  deliveriesPerS: number;
  lost: number;
  duplicated: number;
  outOfOrder: number;
  unexpected: number;
  publishFailed: number;
  answerP50Ms: number;
  answerP99Ms: number;
  cpuUsPerMessage: Record<string, number>;
  serverUsPerMessage: number;
  infraUsPerMessage: number;
  clientsUsPerMessage: number;
  /** Each stage's p50 and p99, medians over rounds (Lattice arms). */
  stages: Partial<Record<StageName, StageFigures>>;
}

export function median(values: number[]): number {
  const s = values.filter((v) => Number.isFinite(v)).sort((a, b) => a - b);
  if (s.length === 0) return Number.NaN;
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);

export function summarize(phases: PhaseResult[], arm: ArmName, ratePerS: number): Summary | null {
  const mine = phases.filter((p) => p.arm === arm && p.ratePerS === ratePerS);
  if (mine.length === 0) return null;
  const m = (figure: (p: PhaseResult) => number) => median(mine.map(figure));
  const cpuUsPerMessage: Record<string, number> = {};
  for (const name of Object.keys(mine[0]!.cpuUsPerMessage))
    cpuUsPerMessage[name] = m((p) => p.cpuUsPerMessage[name] ?? Number.NaN);
  return {
    arm,
    ratePerS,
    rounds: mine.length,
    p50Ms: m((p) => p.p50Ms),
    p95Ms: m((p) => p.p95Ms),
    p99Ms: m((p) => p.p99Ms),
    maxMs: m((p) => p.maxMs),
    answeredPerS: m((p) => p.answeredPerS),
    deliveriesPerS: m((p) => p.deliveriesPerS),
    lost: sum(mine.map((p) => p.lost)),
    duplicated: sum(mine.map((p) => p.duplicated)),
    outOfOrder: sum(mine.map((p) => p.outOfOrder)),
    unexpected: sum(mine.map((p) => p.unexpected)),
    publishFailed: sum(mine.map((p) => p.publishFailed)),
    answerP50Ms: m((p) => p.answerP50Ms),
    answerP99Ms: m((p) => p.answerP99Ms),
    cpuUsPerMessage,
    serverUsPerMessage: m((p) => p.serverUsPerMessage),
    infraUsPerMessage: m(
      (p) => p.infraUsPerMessage.postgres + p.infraUsPerMessage.kafka + p.infraUsPerMessage.redis,
    ),
    clientsUsPerMessage: m((p) => p.clientsUsPerMessage),
    stages: stagesOf(mine),
  };
}

function stagesOf(mine: PhaseResult[]): Partial<Record<StageName, StageFigures>> {
  const out: Partial<Record<StageName, StageFigures>> = {};
  const names = new Set(mine.flatMap((p) => Object.keys(p.stages ?? {}))) as Set<StageName>;
  for (const stage of names) {
    const of = (figure: keyof StageFigures) =>
      median(mine.map((p) => p.stages?.[stage]?.[figure] ?? Number.NaN));
    out[stage] = { records: of('records'), p50Ms: of('p50Ms'), p99Ms: of('p99Ms') };
  }
  return out;
}

/** Median over rounds of `arm`'s figure ÷ bare-pipeline's in the same round and rate. */
export function ratioToBare(
  phases: PhaseResult[],
  arm: ArmName,
  ratePerS: number,
  figure: 'p50Ms' | 'p99Ms',
): number {
  const bare = phases.filter((p) => p.arm === 'bare-pipeline' && p.ratePerS === ratePerS);
  return median(
    phases
      .filter((p) => p.arm === arm && p.ratePerS === ratePerS)
      .map((p) => {
        const b = bare.find((x) => x.round === p.round);
        return b ? p[figure] / b[figure] : Number.NaN;
      }),
  );
}

export type Verdict = 'met' | 'missed' | 'not measured';

export interface GoalResult {
  goal: string;
  measured: string;
  verdict: Verdict;
}

const GOALS: Array<{ arm: ArmName; ratePerS: number; figure: 'p50Ms' | 'p99Ms' | 'lost'; atMost: number }> = [
  { arm: 'lattice-apart', ratePerS: 1000, figure: 'p50Ms', atMost: 1.5 },
  { arm: 'lattice-apart', ratePerS: 1000, figure: 'p99Ms', atMost: 2 },
  { arm: 'lattice-apart', ratePerS: 3000, figure: 'lost', atMost: 0 },
  { arm: 'lattice-apart', ratePerS: 3000, figure: 'p99Ms', atMost: 3 },
  { arm: 'lattice-one', ratePerS: 1000, figure: 'p99Ms', atMost: 3 },
];

const fmt = (n: number, digits: number) => (Number.isFinite(n) ? n.toFixed(digits) : '—');

export function goalResults(phases: PhaseResult[]): GoalResult[] {
  const results: GoalResult[] = GOALS.map((g) => {
    const rate = `${g.ratePerS.toLocaleString('en')}/s`;
    if (g.figure === 'lost') {
      const mine = phases.filter((p) => p.arm === g.arm && p.ratePerS === g.ratePerS);
      const lost = sum(mine.map((p) => p.lost));
      return {
        goal: `${g.arm} at ${rate}: no message lost`,
        measured: mine.length ? `${lost} deliveries lost over ${mine.length} rounds` : '—',
        verdict: mine.length === 0 ? 'not measured' : lost <= g.atMost ? 'met' : 'missed',
      };
    }
    const ratio = ratioToBare(phases, g.arm, g.ratePerS, g.figure);
    const name = g.figure === 'p50Ms' ? 'p50' : 'p99';
    return {
      goal: `${g.arm} at ${rate}: ${name} ≤ ${g.atMost} × bare-pipeline`,
      measured: Number.isFinite(ratio) ? `${fmt(ratio, 2)} ×` : '—',
      verdict: !Number.isFinite(ratio) ? 'not measured' : ratio <= g.atMost ? 'met' : 'missed',
    };
  });
  const lattice = phases.filter((p) => p.arm !== 'bare-pipeline');
  const wrong = sum(lattice.map((p) => p.lost + p.duplicated + p.outOfOrder));
  results.push({
    goal: 'Lattice arms, every phase: nothing lost, duplicated or out of order',
    measured: lattice.length ? `${wrong} deliveries in ${lattice.length} phases` : '—',
    verdict: lattice.length === 0 ? 'not measured' : wrong === 0 ? 'met' : 'missed',
  });
  return results;
}
