// Starts channel actor hosts as child processes and follows what they report on stdout; the
// waiting and stopping helpers are the actor host tests' own.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { HostProcess } from '../actor-host/host-processes.ts';

export { coversAll, type HostProcess, stopAll, waitUntil } from '../actor-host/host-processes.ts';

const ENTRY = fileURLToPath(new URL('./channel-host-process.ts', import.meta.url));

export function spawnChannelHost(name: string, env: Record<string, string>): HostProcess {
  const proc = spawn(
    process.execPath,
    ['--disable-warning=TimeoutNegativeWarning', '--import', 'tsx', ENTRY],
    {
      env: { ...process.env, ...env, RT_HOST: name, LOG_LEVEL: process.env.RT_HOST_LOG_LEVEL ?? 'warn' },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const host: HostProcess = {
    name,
    proc,
    partitions: [],
    joins: 0,
    exited: false,
    kill: (signal) => proc.kill(signal),
  };
  proc.on('exit', () => {
    host.exited = true;
  });
  createInterface({ input: proc.stdout! }).on('line', (line) => {
    if (!line.startsWith('{')) return;
    const msg = JSON.parse(line) as { event: string; partitions?: number[] };
    if (msg.event === 'assigned') {
      host.partitions = msg.partitions ?? [];
      host.joins++;
    }
  });
  return host;
}
