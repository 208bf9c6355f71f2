// Prometheus metrics of the partition host. Several hosts may share one registry (tests, the
// all-in-one `lattice start`), so metrics are registered once and labelled by topic.
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

export interface ActorHostMetrics {
  records: Counter<'topic' | 'outcome'>;
  handlerErrors: Counter<'topic' | 'kind'>;
  rebalances: Counter<'group'>;
  lag: Gauge<'topic' | 'partition'>;
  batchSeconds: Histogram<'topic'>;
  batchAge: Gauge<'topic' | 'partition'>;
  hostUp: Gauge<'topic'>;
}

function once<T>(registry: Registry, name: string, make: () => T): T {
  return (registry.getSingleMetric(name) as T | undefined) ?? make();
}

export function actorHostMetrics(registry: Registry): ActorHostMetrics {
  const registers = [registry];
  return {
    records: once(
      registry,
      'lattice_actor_records_total',
      () =>
        new Counter({
          name: 'lattice_actor_records_total',
          help: 'Records handled by partition actors, by outcome (applied, replay_skipped, dead_lettered).',
          labelNames: ['topic', 'outcome'],
          registers,
        }),
    ),
    handlerErrors: once(
      registry,
      'lattice_actor_handler_errors_total',
      () =>
        new Counter({
          name: 'lattice_actor_handler_errors_total',
          help: 'Actor handler failures, by kind (retryable, terminal, decode).',
          labelNames: ['topic', 'kind'],
          registers,
        }),
    ),
    rebalances: once(
      registry,
      'lattice_actor_rebalances_total',
      () =>
        new Counter({
          name: 'lattice_actor_rebalances_total',
          help: 'Consumer group joins (each one a rebalance of partitions).',
          labelNames: ['group'],
          registers,
        }),
    ),
    lag: once(
      registry,
      'lattice_actor_lag_records',
      () =>
        new Gauge({
          name: 'lattice_actor_lag_records',
          help: 'Records behind the high watermark after the last batch, per partition.',
          labelNames: ['topic', 'partition'],
          registers,
        }),
    ),
    batchSeconds: once(
      registry,
      'lattice_actor_batch_seconds',
      () =>
        new Histogram({
          name: 'lattice_actor_batch_seconds',
          help: 'Time to apply one fetched batch, effects durable.',
          labelNames: ['topic'],
          buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
          registers,
        }),
    ),
    batchAge: once(
      registry,
      'lattice_actor_batch_in_flight_seconds',
      () =>
        new Gauge({
          name: 'lattice_actor_batch_in_flight_seconds',
          help: 'Age of the batch being applied per partition (0 when idle); grows while a key retries.',
          labelNames: ['topic', 'partition'],
          registers,
        }),
    ),
    hostUp: once(
      registry,
      'lattice_actor_host_up',
      () =>
        new Gauge({
          name: 'lattice_actor_host_up',
          help: '1 while the host consumes; 0 after its consumer crashed for good.',
          labelNames: ['topic'],
          registers,
        }),
    ),
  };
}
