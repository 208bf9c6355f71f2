// Where the time goes on the durable path (docs/architecture.md "Where the time goes"): one
// Prometheus histogram, `lattice_pipeline_stage_seconds{flow, stage}`, observed once per record
// (per message, email or webhook attempt) at the end of each stage. Both labels are bounded: the
// flows and stages are the lists below, nothing per product or channel.
//
//   realtime  accepted_produced   publish request accepted → its record acknowledged by Kafka (the 202)
//             produced_fetched    the record's Kafka timestamp (taken when its send left) → fetched by the actor host
//                                 (observed once the record is applied: replays are not counted)
//             fetched_applied     fetched → the channel's state and history committed in PostgreSQL
//             applied_fanned_out  committed → published on Redis (PUBLISH answered: in the gateways' buffers)
//             received_pushed     a gateway read it from Redis → written to its subscribers' sockets
//             accepted_pushed     publish accepted → written to subscribers' sockets (end to end, at the gateway)
//   mail      accepted_produced   send request accepted → record acknowledged by Kafka
//             produced_fetched    as realtime, on mail.outbound
//             fetched_sent        fetched → accepted by the smart host
//             accepted_sent       send accepted → accepted by the smart host (end to end)
//   webhooks  event_attempted     the event's delivery stored by its fan-out (due at once) → first attempt sent
//
// Several roles share a registry (`lattice start`, tests): the histogram is created once per
// registry, and its children (one per flow and stage) once per caller, so an observation
// allocates nothing.
import { Histogram, type Registry } from 'prom-client';

export const PIPELINE_STAGES = {
  realtime: [
    'accepted_produced',
    'produced_fetched',
    'fetched_applied',
    'applied_fanned_out',
    'received_pushed',
    'accepted_pushed',
  ],
  mail: ['accepted_produced', 'produced_fetched', 'fetched_sent', 'accepted_sent'],
  webhooks: ['event_attempted'],
} as const;

export type PipelineFlow = keyof typeof PIPELINE_STAGES;
export type PipelineStage<F extends PipelineFlow> = (typeof PIPELINE_STAGES)[F][number];

export const PIPELINE_STAGE_METRIC = 'lattice_pipeline_stage_seconds';

/** Seconds, from a millisecond up: the stages of a healthy path take 1 to 50 ms. */
const BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export interface StageTimer<F extends PipelineFlow> {
  /** One record took `ms` milliseconds in `stage` (negative clock skew counts as 0). */
  observe(stage: PipelineStage<F>, ms: number): void;
  /** `count` records took `ms` each (a batch's records that ended a stage together). */
  observeMany(stage: PipelineStage<F>, ms: number, count: number): void;
}

function histogramOn(registry: Registry): Histogram<'flow' | 'stage'> {
  const existing = registry.getSingleMetric(PIPELINE_STAGE_METRIC);
  if (existing) return existing as Histogram<'flow' | 'stage'>;
  return new Histogram({
    name: PIPELINE_STAGE_METRIC,
    help: 'Latency of each stage of the durable path per record, by flow (realtime, mail, webhooks) and stage (docs/architecture.md "Where the time goes").',
    labelNames: ['flow', 'stage'],
    buckets: BUCKETS,
    registers: [registry],
  });
}

export function stageTimer<F extends PipelineFlow>(registry: Registry, flow: F): StageTimer<F> {
  const histogram = histogramOn(registry);
  const children = new Map<string, ReturnType<typeof histogram.labels>>();
  for (const stage of PIPELINE_STAGES[flow]) {
    // Exported at 0 from the start, so a dashboard shows every stage before the first record.
    histogram.zero({ flow, stage });
    children.set(stage, histogram.labels({ flow, stage }));
  }
  const childOf = (stage: string) => children.get(stage)!;
  return {
    observe(stage, ms) {
      childOf(stage).observe(Math.max(0, ms) / 1000);
    },
    observeMany(stage, ms, count) {
      const child = childOf(stage);
      const seconds = Math.max(0, ms) / 1000;
      for (let i = 0; i < count; i++) child.observe(seconds);
    },
  };
}

/** For code run without a registry (unit tests, tools): observes nothing. */
export const NO_STAGE_TIMER: StageTimer<never> = { observe() {}, observeMany() {} };
