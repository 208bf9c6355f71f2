// The soak's chaos: one fault at a time, every `everyMs`, rotating over the kinds of process so
// that each is hit in turn (the actor hosts, the gateways, the edges and Redis), each victim
// stopped abruptly (SIGKILL; a gateway every other time with SIGTERM, its drain) and started
// again `downMs` later on the same ports, as a supervisor would.
import { sleep } from '@lattice/core';
import type { SoakProcess } from './processes.ts';

export interface ChaosEvent {
  /** When the fault began, in ms since the soak's start. */
  atMs: number;
  target: string;
  signal: 'SIGKILL' | 'SIGTERM';
  /** When it answered again (ms since the start); null if it never came back. */
  backAtMs: number | null;
  problem: string | null;
}

export interface Chaos {
  events: ChaosEvent[];
  /** Stops after the fault in progress has been repaired. */
  stop(): Promise<void>;
}

export interface ChaosOptions {
  everyMs: number;
  downMs: number;
  /** The victims of each kind, in the rotation's order of kinds. */
  kinds: SoakProcess[][];
  startedAtMs: number;
  log: (line: string) => void;
}

/** The faults in order: the n-th hits `kinds[n % kinds]`, taking that kind's victims in turn. */
export function faultAt(
  n: number,
  kinds: SoakProcess[][],
): { victim: SoakProcess; signal: 'SIGKILL' | 'SIGTERM' } {
  const round = Math.floor(n / kinds.length);
  const victims = kinds[n % kinds.length]!;
  const victim = victims[round % victims.length]!;
  // A gateway is drained (SIGTERM: close 4100 to every client) every other time the gateways are
  // hit, alternating so that each gateway sees both.
  const drain = (round + Math.floor(round / victims.length)) % 2 === 1;
  const signal = victim.kind === 'gateway' && drain ? 'SIGTERM' : 'SIGKILL';
  return { victim, signal };
}

export function startChaos(opts: ChaosOptions): Chaos {
  const events: ChaosEvent[] = [];
  let stopped = false;
  let wake: () => void = () => undefined;
  const running = (async () => {
    for (let n = 0; ; n++) {
      await Promise.race([sleep(opts.everyMs), new Promise<void>((r) => (wake = r))]);
      if (stopped) return;
      const { victim, signal } = faultAt(n, opts.kinds);
      const event: ChaosEvent = {
        atMs: Date.now() - opts.startedAtMs,
        target: victim.name,
        signal,
        backAtMs: null,
        problem: null,
      };
      events.push(event);
      opts.log(`chaos: ${signal} ${victim.name}`);
      try {
        await victim.stop(signal);
        await sleep(opts.downMs);
        await victim.start();
        event.backAtMs = Date.now() - opts.startedAtMs;
        opts.log(`chaos: ${victim.name} back after ${((event.backAtMs - event.atMs) / 1000).toFixed(1)} s`);
      } catch (err) {
        event.problem = String(err);
        opts.log(`chaos: ${victim.name} did not come back: ${String(err).slice(0, 300)}`);
      }
    }
  })();
  return {
    events,
    async stop() {
      stopped = true;
      wake();
      await running;
    },
  };
}
