// Stops only what ensureInfra started, as recorded in the run state; a server that was already
// running when ensureInfra looked is never in the state, so it is never touched.
import { rm } from 'node:fs/promises';
import type { Logger } from '@lattice/core';
import { infraPaths, kafkaNodePaths } from './paths.ts';
import { processMatches, stopProcess } from './process.ts';
import {
  type ManagedService,
  RunStateStore,
  type ServiceName,
  withoutService,
  withRunLock,
} from './run-state.ts';

export interface StopInfraOptions {
  logger: Logger;
  cacheDir?: string;
  /** Stop only these (e.g. what one ensureInfra call started); default: everything recorded. */
  only?: readonly ServiceName[];
  /** Grace period after the polite signal before SIGKILL. */
  timeoutMs?: number;
}

export interface StopInfraResult {
  /** Each name once, however many of its processes (a cluster's brokers) were stopped. */
  stopped: ServiceName[];
  /** Recorded but no longer running (exited, or the pid now belongs to another program). */
  gone: ServiceName[];
}

export async function stopInfra(opts: StopInfraOptions): Promise<StopInfraResult> {
  const { logger, only, timeoutMs = 30_000 } = opts;
  const paths = infraPaths(opts.cacheDir);
  return withRunLock(paths.run.lockDir, logger, async () => {
    const store = new RunStateStore(paths.run.stateFile, logger);
    const targets = (await store.read()).services.filter((s) => !only || only.includes(s.name));
    const stopped: ServiceName[] = [];
    const gone: ServiceName[] = [];
    const stopOne = async (s: ManagedService) => {
      const ours = await processMatches(s.pid, s.commandMarker);
      const result = ours
        ? await stopProcess(s.pid, { signal: s.stopSignal, timeoutMs, logger, what: s.name })
        : 'gone';
      const list = result === 'gone' ? gone : stopped;
      if (!list.includes(s.name)) list.push(s.name);
      await store.update((state) => withoutService(state, s.name, s.node));
      if (s.name === 'kafka') {
        const pidFile = s.node === undefined ? paths.kafka.pidFile : kafkaNodePaths(paths, s.node).pidFile;
        await rm(pidFile, { force: true });
      }
      logger.info({ pid: s.pid, node: s.node, address: s.address, result }, `${s.name} ${result}`);
    };
    await Promise.all(targets.map(stopOne));
    return { stopped, gone };
  });
}
