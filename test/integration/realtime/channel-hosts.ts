// Channel actor hosts as child processes; spawning, waiting and stopping are the actor host
// tests' own helpers.
import { fileURLToPath } from 'node:url';
import { type HostProcess, spawnHostProcess } from '../actor-host/host-processes.ts';

export { waitUntil } from '../../support/wait-until.ts';
export { coversAll, type HostProcess, stopAll } from '../actor-host/host-processes.ts';

const ENTRY = fileURLToPath(new URL('./channel-host-process.ts', import.meta.url));

export function spawnChannelHost(name: string, env: Record<string, string>): HostProcess {
  return spawnHostProcess(ENTRY, name, {
    ...env,
    RT_HOST: name,
    LOG_LEVEL: process.env.RT_HOST_LOG_LEVEL ?? 'warn',
  });
}
