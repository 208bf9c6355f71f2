// The chaos run's faults, one at a time in a fixed order: each backing service stopped for
// `faultMs` and started again, then each role process SIGKILLed and started again `killDownMs`
// after it died, as a supervisor would; after each return, `pauseMs` of plain traffic in which
// the recovery is measured (windows.ts) before the next fault.
import { sleep } from '@lattice/core';

export interface FaultTarget {
  /** `redis`, `postgres`, `kafka`, `management-1`, `edge-1`, … */
  name: string;
  kind: 'backing' | 'role';
  /**
   * Where clients reach it (`http://127.0.0.1:port`): a connection to one of them that fails
   * while it is down is the fault's doing, not a violation.
   */
  origins: string[];
  /** Backing: the operator's stop; role: SIGKILL. Resolves once the process is gone. */
  stop(): Promise<void>;
  /** Resolves once it answers again. */
  start(): Promise<void>;
}

export interface FaultEvent {
  target: string;
  kind: 'backing' | 'role';
  action: 'stop' | 'SIGKILL';
  origins: string[];
  /** ms since the traffic started: the stop asked for or the signal sent. */
  atMs: number;
  /** Its process gone. */
  goneAtMs: number | null;
  /** Start asked for. */
  restartAtMs: number | null;
  /** Answering again: the service's return. */
  backAtMs: number | null;
  problem: string | null;
}

export interface FaultOptions {
  targets: FaultTarget[];
  startedAtMs: number;
  /** How long a backing service stays stopped, from the stop asked for to the start. */
  faultMs: number;
  /** How long a killed role process stays down before it is started again. */
  killDownMs: number;
  /** Plain traffic after each return, before the next fault. */
  pauseMs: number;
  signal: AbortSignal;
  log: (line: string) => void;
}

export interface Faults {
  events: FaultEvent[];
  /** Resolves when the last fault's pause is over, or at once after the step in progress on abort. */
  done: Promise<void>;
}

/** Resolves after `ms`, or as soon as `signal` aborts. */
export function pause(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}

export function runFaults(opts: FaultOptions): Faults {
  const events: FaultEvent[] = [];
  const now = () => Date.now() - opts.startedAtMs;
  const s = (ms: number) => (ms / 1000).toFixed(1);
  const done = (async () => {
    for (const t of opts.targets) {
      if (opts.signal.aborted) return;
      const e: FaultEvent = {
        target: t.name,
        kind: t.kind,
        action: t.kind === 'backing' ? 'stop' : 'SIGKILL',
        origins: t.origins,
        atMs: now(),
        goneAtMs: null,
        restartAtMs: null,
        backAtMs: null,
        problem: null,
      };
      events.push(e);
      opts.log(`fault ${events.length}/${opts.targets.length}: ${e.action} ${t.name}`);
      try {
        await t.stop();
        e.goneAtMs = now();
        const downMs = t.kind === 'backing' ? e.atMs + opts.faultMs - e.goneAtMs : opts.killDownMs;
        opts.log(`${t.name} gone after ${s(e.goneAtMs - e.atMs)} s; starting it again in ${s(downMs)} s`);
        await pause(Math.max(0, downMs), opts.signal);
        // Interrupted: left stopped, nothing for the cleanup to wait for.
        if (opts.signal.aborted) return;
        e.restartAtMs = now();
        await startWithRetry(t);
        e.backAtMs = now();
        opts.log(
          `${t.name} back: answering ${s(e.backAtMs - e.restartAtMs)} s after its start, ${s(e.backAtMs - e.atMs)} s after the fault`,
        );
      } catch (err) {
        e.problem = String(err).slice(0, 2000);
        opts.log(`${t.name} did not come back: ${e.problem.slice(0, 300)}`);
      }
      await pause(opts.pauseMs, opts.signal);
    }
  })();
  return { events, done };
}

/** One more try after a failed start (a port not yet released, a slow JVM), then the failure stands. */
async function startWithRetry(t: FaultTarget): Promise<void> {
  try {
    await t.start();
  } catch {
    await sleep(5_000);
    await t.start();
  }
}
