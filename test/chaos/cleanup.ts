// Everything the chaos run starts is registered here as it starts and undone in reverse order,
// once, whether the run ends, fails or is interrupted (Ctrl-C). Each step is bounded; after the
// last, any child process of this one still alive (a role whose start was cut short) is killed
// by its pid: nothing the run started outlives it.
import { readdir, readFile } from 'node:fs/promises';
import { sleep } from '@lattice/core';

const STEP_BOUND_MS = 150_000;

export class Cleanup {
  private readonly steps: Array<{ name: string; fn: () => Promise<unknown> }> = [];
  private running: Promise<void> | null = null;
  private readonly log: (line: string) => void;

  constructor(log: (line: string) => void) {
    this.log = log;
  }

  add(name: string, fn: () => Promise<unknown>): void {
    this.steps.push({ name, fn });
  }

  /** Runs every step once (later calls wait for the same run); steps added meanwhile run too. */
  run(): Promise<void> {
    this.running ??= (async () => {
      for (let step = this.steps.pop(); step; step = this.steps.pop()) {
        const outcome = await Promise.race([
          step.fn().then(
            () => 'done',
            (err: unknown) => `failed: ${String(err).slice(0, 300)}`,
          ),
          sleep(STEP_BOUND_MS).then(() => `not done after ${STEP_BOUND_MS / 1000} s; going on`),
        ]);
        if (outcome !== 'done') this.log(`cleanup: ${step.name} ${outcome}`);
      }
      await killOwnChildren(this.log);
    })();
    return this.running;
  }
}

/** The pids whose parent is this process (Linux /proc). */
export async function ownChildren(): Promise<number[]> {
  const pids: number[] = [];
  for (const entry of await readdir('/proc').catch(() => [] as string[])) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => '');
    // pid (comm) state ppid …: comm may hold spaces and parentheses, so read after the last ')'.
    const [state, ppid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(ppid) === process.pid && state !== 'Z') pids.push(Number(entry));
  }
  return pids;
}

/** SIGKILLs every live child of this process, naming each (but tsx's esbuild service, which ends with it). */
export async function killOwnChildren(log: (line: string) => void): Promise<void> {
  for (const pid of await ownChildren()) {
    const cmd = (await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '')).replaceAll('\0', ' ');
    if (cmd.includes('/@esbuild/')) continue;
    log(`cleanup: child ${pid} still running (${cmd.slice(0, 120)}): SIGKILL`);
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone meanwhile
    }
  }
}
