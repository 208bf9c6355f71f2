// The retention purges as periodic jobs of the actors role (docs/operations.md "Retention"), with
// what an operator watches: rows purged per table, the age of each table's oldest row, and whether
// the last run stopped on its budget with rows left (`lattice_retention_behind`, the alert
// LatticeRetentionBehind when it stays so). The purges run one after another in a single job, so
// a host never has two of them at the database at once (two at full speed doubled the live path's
// p99 latency tenfold in bench:retention); each rests between its batches. Every actors host runs
// the job; the purges skip rows another holds, so several hosts split the work.
import { type Clock, type Logger, type RetentionConfig, sleep } from '@lattice/core';
import {
  createEmailPurge,
  createIdempotencyKeyPurge,
  createWebhookDeliveryPurge,
  type RetentionPurge,
  type RetentionPurgeOptions,
} from '@lattice/mail';
import type { Knex } from 'knex';
import { Counter, Gauge, type Registry } from 'prom-client';
import type { PeriodicJob } from './periodic-jobs.ts';

export interface RetentionJobsDeps {
  db: Knex;
  clock: Clock;
  logger: Logger;
  registry: Registry;
  settings: RetentionConfig;
  /** Only these products' rows (tests sharing a database); default every product. */
  productIds?: readonly string[];
  /** The rest between batches; default a real sleep. */
  pause?: (ms: number) => Promise<void>;
}

export function retentionJobs(deps: RetentionJobsDeps): PeriodicJob[] {
  const { settings } = deps;
  const metrics = retentionMetrics(deps.registry);
  const log = deps.logger.child({ component: 'retention' });
  const common: RetentionPurgeOptions = {
    db: deps.db,
    clock: deps.clock,
    batchSize: settings.purgeBatchSize,
    budgetMs: settings.purgeBudgetMs,
    pause: deps.pause ?? ((ms) => sleep(ms)),
    ...(deps.productIds ? { productIds: deps.productIds } : {}),
  };
  const purges: RetentionPurge[] = [
    createWebhookDeliveryPurge({ ...common, retentionDays: settings.webhookDeliveryDays }),
    createEmailPurge({ ...common, retentionDays: settings.mailDays }),
    createIdempotencyKeyPurge(common),
  ];
  return [
    {
      name: 'retention',
      intervalMs: settings.purgeIntervalMs,
      async run() {
        for (const purge of purges) {
          const run = await purge.runOnce();
          for (const [table, n] of Object.entries(run.deletedByTable)) metrics.purged.inc({ table }, n);
          metrics.behind.set({ table: purge.table }, run.drained ? 0 : 1);
          metrics.oldest.set({ table: purge.table }, (await purge.oldestAgeMs()) / 1000);
          if (run.deleted > 0 || !run.drained)
            log.info(
              { table: purge.table, ...run },
              run.drained ? 'retention purge done' : 'retention purge stopped on its budget',
            );
        }
      },
    },
  ];
}

function retentionMetrics(registry: Registry) {
  const get = <T>(name: string, make: () => T): T =>
    (registry.getSingleMetric(name) as T | undefined) ?? make();
  return {
    purged: get(
      'lattice_retention_purged_rows_total',
      () =>
        new Counter({
          name: 'lattice_retention_purged_rows_total',
          help: 'Rows deleted by the retention purges, by table',
          labelNames: ['table'],
          registers: [registry],
        }),
    ),
    oldest: get(
      'lattice_retention_oldest_row_age_seconds',
      () =>
        new Gauge({
          name: 'lattice_retention_oldest_row_age_seconds',
          help: 'Age of the oldest row a purged table keeps, as of its last purge run',
          labelNames: ['table'],
          registers: [registry],
        }),
    ),
    behind: get(
      'lattice_retention_behind',
      () =>
        new Gauge({
          name: 'lattice_retention_behind',
          help: '1 when the last purge run of the table stopped on its time budget with rows left to purge',
          labelNames: ['table'],
          registers: [registry],
        }),
    ),
  };
}
