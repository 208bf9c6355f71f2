// Prometheus metrics of the partition host. Several hosts share one registry (tests, every role of
// `lattice start`, and always the actors role: one host per actor kind, two of them on
// `mail.events`), so metrics are registered once and labelled by consumer group and topic.
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { LagSource } from './consumer-lag.ts';

export type RecordOutcome = 'applied' | 'replay_skipped' | 'dead_lettered';
export type HandlerErrorKind = 'retryable' | 'terminal' | 'decode';

export const RECORD_OUTCOMES: readonly RecordOutcome[] = ['applied', 'replay_skipped', 'dead_lettered'];
export const HANDLER_ERROR_KINDS: readonly HandlerErrorKind[] = ['retryable', 'terminal', 'decode'];

export interface ActorHostMetrics {
  records: Counter<'group' | 'topic' | 'outcome'>;
  handlerErrors: Counter<'group' | 'topic' | 'kind'>;
  rebalances: Counter<'group'>;
  batchSeconds: Histogram<'group' | 'topic'>;
  batchAge: Gauge<'group' | 'topic' | 'partition'>;
  hostUp: Gauge<'group' | 'topic'>;
  /** Reports the host's lag on `lattice_actor_lag_records` until the returned function is called. */
  watchLag(source: LagSource): () => void;
}

interface Family extends Omit<ActorHostMetrics, 'watchLag'> {
  lagSources: Set<LagSource>;
}

const families = new WeakMap<Registry, Family>();

function familyOn(registry: Registry): Family {
  const existing = families.get(registry);
  if (existing) return existing;
  const registers = [registry];
  const lagSources = new Set<LagSource>();
  new Gauge({
    name: 'lattice_actor_lag_records',
    help: 'Records of a partition not yet applied: its high watermark minus the group’s committed offset, read from the broker when scraped (partitions this host owns).',
    labelNames: ['group', 'topic', 'partition'],
    registers,
    // Read at scrape time, not after each batch: a partition stuck on a retrying key fetches no
    // new batch, and its lag must still be seen to grow. Every scrape starts from nothing, so a
    // partition this host no longer owns (revoked, or the host stopped) leaves the gauge.
    async collect() {
      const read = await Promise.all(
        [...lagSources].map(async (source) => ({ source, lags: await source.read() })),
      );
      this.reset();
      for (const { source, lags } of read) {
        for (const { partition, lag } of lags ?? []) {
          this.set({ group: source.group, topic: source.topic, partition: String(partition) }, lag);
        }
      }
    },
  });
  const family: Family = {
    records: new Counter({
      name: 'lattice_actor_records_total',
      help: 'Records handled by partition actors, by outcome (applied, replay_skipped, dead_lettered).',
      labelNames: ['group', 'topic', 'outcome'],
      registers,
    }),
    handlerErrors: new Counter({
      name: 'lattice_actor_handler_errors_total',
      help: 'Actor handler failures, by kind (retryable, terminal, decode).',
      labelNames: ['group', 'topic', 'kind'],
      registers,
    }),
    rebalances: new Counter({
      name: 'lattice_actor_rebalances_total',
      help: 'Consumer group joins (each one a rebalance of partitions).',
      labelNames: ['group'],
      registers,
    }),
    batchSeconds: new Histogram({
      name: 'lattice_actor_batch_seconds',
      help: 'Time to apply one fetched batch, effects durable.',
      labelNames: ['group', 'topic'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers,
    }),
    batchAge: new Gauge({
      name: 'lattice_actor_batch_in_flight_seconds',
      help: 'Age of the batch being applied per partition (0 when idle); grows while a key retries.',
      labelNames: ['group', 'topic', 'partition'],
      registers,
    }),
    hostUp: new Gauge({
      name: 'lattice_actor_host_up',
      help: '1 while the host consumes; 0 after its consumer crashed for good.',
      labelNames: ['group', 'topic'],
      registers,
    }),
    lagSources,
  };
  families.set(registry, family);
  return family;
}

export function actorHostMetrics(registry: Registry): ActorHostMetrics {
  const family = familyOn(registry);
  return {
    ...family,
    watchLag(source) {
      family.lagSources.add(source);
      return () => family.lagSources.delete(source);
    },
  };
}
