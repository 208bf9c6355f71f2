// One sample a second of the soak: the clients' running totals (what the plot turns into
// throughput), the actor groups' consumer lag as the broker sees it (group-lag.ts), and the
// processes that were down at that moment.
import { sleep } from '@lattice/core';
import type { GroupLag } from './group-lag.ts';
import type { SoakProcess } from './processes.ts';
import type { Traffic } from './traffic.ts';

export interface Sample {
  /** ms since the soak's start. */
  tMs: number;
  /** Running totals. */
  published: number;
  delivered: number;
  sent: number;
  handedOver: number;
  webhooks: number;
  /** Lag per actor group (by kind). */
  lag: Record<string, number>;
  lagTotal: number;
  down: string[];
}

export interface SamplerOptions {
  startedAtMs: number;
  traffic: Traffic;
  handedOver: Map<string, number>;
  webhooks: () => number;
  lag: GroupLag;
  all: SoakProcess[];
}

export interface Sampler {
  samples: Sample[];
  stop(): Promise<void>;
}

export function startSampler(opts: SamplerOptions): Sampler {
  const samples: Sample[] = [];
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      const nextMs = Date.now() + 1_000;
      // The broker unreachable for a moment: the last lag it told stands for this second.
      const lag = await opts.lag.read().catch(() => samples.at(-1)?.lag ?? {});
      let handedOver = 0;
      for (const n of opts.handedOver.values()) handedOver += n;
      const publishes = [...opts.traffic.publishes.values()];
      samples.push({
        tMs: Date.now() - opts.startedAtMs,
        published: publishes.reduce((n, s) => n + s.accepted, 0),
        delivered: opts.traffic.delivered(),
        sent: opts.traffic.sends.accepted,
        handedOver,
        webhooks: opts.webhooks(),
        lag,
        lagTotal: Object.values(lag).reduce((a, b) => a + b, 0),
        down: opts.all.filter((p) => !p.running()).map((p) => p.name),
      });
      await sleep(Math.max(0, nextMs - Date.now()));
    }
  })();
  return {
    samples,
    async stop() {
      stopped = true;
      await loop;
    },
  };
}
