// Periodic maintenance the actors role runs beside its partition hosts (history purge, presence
// sweep). Each job runs every `intervalMs`, never overlapping itself; a failure is logged and
// the job runs again at its next turn. Stopping waits for a run in progress. The timers run on
// the scheduler given, so tests drive the period with a ManualScheduler.
import { errorMessage, type Logger, type Scheduler, type Timer } from '@lattice/core';
import type { RecordProducer } from '@lattice/kafka';

export interface PeriodicJobContext {
  /** The role's producer (idempotent, acks=all). */
  producer: RecordProducer;
  /** `config.kafkaTopicPrefix`. */
  topicPrefix: string;
}

export interface PeriodicJob {
  name: string;
  intervalMs: number;
  run(ctx: PeriodicJobContext): Promise<void>;
}

export interface RunningJobs {
  stop(): Promise<void>;
}

export function startPeriodicJobs(
  jobs: readonly PeriodicJob[],
  ctx: PeriodicJobContext,
  logger: Logger,
  scheduler: Scheduler,
): RunningJobs {
  let stopped = false;
  const timers = new Set<Timer>();
  const inFlight = new Set<Promise<void>>();
  const log = logger.child({ component: 'periodic-jobs' });

  function schedule(job: PeriodicJob): void {
    if (stopped) return;
    // unref: the role's consumers keep the process alive; a pending job must not.
    const timer = scheduler.setTimeout(
      () => {
        timers.delete(timer);
        const startedMs = scheduler.nowMs();
        const run = job
          .run(ctx)
          .catch((err: unknown) =>
            log.error({ job: job.name, err: errorMessage(err) }, 'periodic job failed'),
          )
          .finally(() => {
            inFlight.delete(run);
            log.debug({ job: job.name, durationMs: scheduler.nowMs() - startedMs }, 'periodic job ran');
            schedule(job);
          });
        inFlight.add(run);
      },
      job.intervalMs,
      { unref: true },
    );
    timers.add(timer);
  }

  for (const job of jobs) schedule(job);
  if (jobs.length > 0)
    log.info({ jobs: jobs.map((j) => `${j.name}/${j.intervalMs}ms`) }, 'periodic jobs started');
  return {
    async stop() {
      stopped = true;
      for (const t of timers) scheduler.clearTimer(t);
      timers.clear();
      await Promise.all([...inFlight]);
    },
  };
}
