// Where the time goes in a Lattice arm: the realtime stage histograms
// (`lattice_pipeline_stage_seconds`, docs/architecture.md "Where the time goes") scraped from
// every role's /metrics when the measured phase starts and again once it has drained; the
// difference is the phase's own records, and each stage's p50 and p99 are read from its buckets
// (linear within a bucket, as Prometheus's histogram_quantile does).
import { PIPELINE_STAGE_METRIC, PIPELINE_STAGES } from '@lattice/kafka';
import { parseExposition } from '../../support/prometheus-text.ts';

export type StageName = (typeof PIPELINE_STAGES.realtime)[number];

/** Per stage: cumulative counts by upper bound (seconds), summed over the scraped processes. */
export type StageScrape = Map<StageName, Map<number, number>>;

export interface StageFigures {
  records: number;
  p50Ms: number;
  p99Ms: number;
}

export async function scrapeStages(urls: readonly string[]): Promise<StageScrape> {
  const out: StageScrape = new Map(PIPELINE_STAGES.realtime.map((s) => [s, new Map<number, number>()]));
  await Promise.all(
    urls.map(async (url) => {
      const text = await (await fetch(url)).text();
      for (const s of parseExposition(text).samples) {
        if (s.name !== `${PIPELINE_STAGE_METRIC}_bucket` || s.labels.flow !== 'realtime') continue;
        const buckets = out.get(s.labels.stage as StageName);
        if (!buckets) continue;
        const le = s.labels.le === '+Inf' ? Number.POSITIVE_INFINITY : Number(s.labels.le);
        buckets.set(le, (buckets.get(le) ?? 0) + s.value);
      }
    }),
  );
  return out;
}

function quantileMs(bounds: number[], counts: number[], q: number): number {
  const total = counts[counts.length - 1] ?? 0;
  if (total === 0) return Number.NaN;
  const rank = q * total;
  for (let i = 0; i < bounds.length; i++) {
    if (counts[i]! < rank) continue;
    const upper = bounds[i]!;
    const lower = i === 0 ? 0 : bounds[i - 1]!;
    const below = i === 0 ? 0 : counts[i - 1]!;
    // The last finite bound stands for anything beyond it.
    if (!Number.isFinite(upper)) return lower * 1000;
    const inBucket = counts[i]! - below;
    return (lower + (upper - lower) * (inBucket === 0 ? 1 : (rank - below) / inBucket)) * 1000;
  }
  return Number.NaN;
}

/** The stages of the records between two scrapes. */
export function stagesBetween(
  before: StageScrape,
  after: StageScrape,
): Partial<Record<StageName, StageFigures>> {
  const out: Partial<Record<StageName, StageFigures>> = {};
  for (const [stage, buckets] of after) {
    const bounds = [...buckets.keys()].sort((a, b) => a - b);
    const counts = bounds.map((b) => buckets.get(b)! - (before.get(stage)?.get(b) ?? 0));
    const records = counts[counts.length - 1] ?? 0;
    if (records <= 0) continue;
    out[stage] = {
      records,
      p50Ms: quantileMs(bounds, counts, 0.5),
      p99Ms: quantileMs(bounds, counts, 0.99),
    };
  }
  return out;
}
