// `lattice start [ROLE]` as a child process of the benchmark (the `lattice` command as a user runs
// it, test/support/lattice-process.ts), waited for until it prints its ready line, and stopped
// with SIGTERM. A start that fails or hangs takes its process down with it, and a stop that
// hangs ends with SIGKILL: the benchmark leaves no process behind.
import type { ChildProcess } from 'node:child_process';
import { lattice } from '../../support/lattice-process.ts';

const OUTPUT_KEPT = 32 * 1024;

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

export async function startLattice(
  args: string[],
  env: Record<string, string>,
  ready: string,
  timeoutMs = 120_000,
): Promise<ChildProcess> {
  const child = lattice(['start', ...args], env);
  let out = '';
  const keep = (d: Buffer) => {
    out = (out + d.toString()).slice(-OUTPUT_KEPT);
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`did not come up in ${timeoutMs / 1000} s`)),
        timeoutMs,
      );
      const check = () => {
        if (!out.includes(ready)) return;
        clearTimeout(timer);
        child.stdout!.off('data', check);
        resolve();
      };
      child.stdout!.on('data', check);
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`exited with ${code}`));
      });
    });
  } catch (err) {
    child.kill('SIGKILL');
    await exited(child);
    throw new Error(`lattice start ${args.join(' ')}: ${(err as Error).message}\n${out.slice(-4000)}`);
  }
  return child;
}

/** SIGTERM, then SIGKILL if it has not exited within `timeoutMs`. */
export async function stopLattice(child: ChildProcess, timeoutMs = 45_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const done = exited(child);
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  await done;
  clearTimeout(timer);
}
