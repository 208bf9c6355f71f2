// A service that lattice started earlier may still be booting: wait for it rather than start a
// second one on the same port and data. One whose process is gone is forgotten.
import type { Logger } from '@lattice/core';
import { type HostPort, isListening, isLocalHost } from './address.ts';
import { pollUntilReady } from './poll.ts';
import { exitedReason, processMatches } from './process.ts';
import {
  findService,
  type ManagedService,
  type RunStateStore,
  type ServiceName,
  withoutService,
} from './run-state.ts';

/** True when an earlier managed `name` is still running and `wait` saw it become ready. */
export async function reuseManagedService(
  name: ServiceName,
  store: RunStateStore,
  wait: (managed: ManagedService) => Promise<unknown>,
): Promise<boolean> {
  const managed = findService(await store.read(), name);
  if (managed && (await processMatches(managed.pid, managed.commandMarker))) {
    await wait(managed);
    return true;
  }
  if (managed) await store.update((s) => withoutService(s, name));
  return false;
}

/**
 * The checks before starting a local server: something already answers (reuse it), one we
 * started earlier is still booting (wait for it), or the address is local and free (start one).
 * Throws when a server cannot be started there.
 */
export async function decideStart(opts: {
  name: ServiceName;
  where: string;
  address: HostPort;
  probe: () => Promise<boolean>;
  store: RunStateStore;
  logger: Logger;
  readyTimeoutMs: number;
  portInUseProblem: string;
}): Promise<'reused' | 'start'> {
  if (await opts.probe()) return 'reused';
  const waitForEarlier = (managed: ManagedService) =>
    pollUntilReady({
      what: opts.where,
      probe: opts.probe,
      timeoutMs: opts.readyTimeoutMs,
      logger: opts.logger,
      failure: exitedReason(managed),
    });
  if (await reuseManagedService(opts.name, opts.store, waitForEarlier)) return 'reused';
  if (!isLocalHost(opts.address.host))
    throw new Error(`${opts.where} does not answer and is not on this machine`);
  if (await isListening(opts.address)) throw new Error(`${opts.where}: ${opts.portInUseProblem}`);
  return 'start';
}
