// Starts ledger hosts as child processes and follows what they report on stdout. Everything
// they print (progress lines, logs, stderr) is copied to the test run's log file, not the terminal.
import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { writeToTestLog } from '@lattice/core/testing';

const LEDGER_ENTRY = fileURLToPath(new URL('./ledger-host-process.ts', import.meta.url));

export interface HostProcess {
  name: string;
  proc: ChildProcess;
  partitions: number[];
  joins: number;
  exited: boolean;
  kill(signal: NodeJS.Signals): void;
}

/** Runs `entry` (a host that prints `{"event":"assigned","partitions":[…]}` lines) as a child process. */
export function spawnHostProcess(entry: string, name: string, env: Record<string, string>): HostProcess {
  const proc = spawn(process.execPath, ['--import', 'tsx', entry], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
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
  createInterface({ input: proc.stderr! }).on('line', (line) => writeToTestLog(`${name} stderr: ${line}`));
  createInterface({ input: proc.stdout! }).on('line', (line) => {
    writeToTestLog(line);
    if (!line.startsWith('{')) return;
    const msg = JSON.parse(line) as { event: string; partitions?: number[] };
    if (msg.event === 'assigned') {
      host.partitions = msg.partitions ?? [];
      host.joins++;
    }
  });
  return host;
}

/** A ledger actor host (test/integration/actor-host/ledger-host-process.ts). */
export function spawnHost(name: string, env: Record<string, string>): HostProcess {
  return spawnHostProcess(LEDGER_ENTRY, name, {
    ...env,
    LEDGER_HOST: name,
    LOG_LEVEL: process.env.LEDGER_LOG_LEVEL ?? 'warn',
  });
}

/** True once the live hosts together own every partition exactly once. */
export function coversAll(hosts: HostProcess[], partitions: number): boolean {
  const owned = hosts.filter((h) => !h.exited).flatMap((h) => h.partitions);
  return owned.length === partitions && new Set(owned).size === partitions;
}

export async function stopAll(hosts: HostProcess[]): Promise<void> {
  await Promise.all(
    hosts
      .filter((h) => !h.exited)
      .map(
        (h) =>
          new Promise<void>((resolve) => {
            const timer = setTimeout(() => h.kill('SIGKILL'), 15_000);
            h.proc.once('exit', () => {
              clearTimeout(timer);
              resolve();
            });
            h.kill('SIGTERM');
          }),
      ),
  );
}
