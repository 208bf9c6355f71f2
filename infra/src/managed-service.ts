// A service that lattice started earlier may still be booting: wait for it rather than start a
// second one on the same port and data. One whose process is gone is forgotten.
import { processMatches } from './process.ts';
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
