// One sample a second of the soak: the clients' running totals (what the plot turns into
// throughput) and the actor hosts' consumer lag as their /metrics report it
// (`lattice_actor_lag_records`, summed per topic over the hosts that answer), with the
// processes that were down at that moment.
import { sleep } from '@lattice/core';
import { parseExposition } from '../support/prometheus-text.ts';
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
  /** Lag per topic (without the run's prefix), over the hosts that answered. */
  lag: Record<string, number>;
  lagTotal: number;
  down: string[];
}

export interface SamplerOptions {
  startedAtMs: number;
  traffic: Traffic;
  handedOver: Map<string, number>;
  webhooks: () => number;
  actors: SoakProcess[];
  all: SoakProcess[];
}

export interface Sampler {
  samples: Sample[];
  stop(): Promise<void>;
}

async function lagOf(host: SoakProcess, lag: Record<string, number>): Promise<void> {
  try {
    const res = await fetch(`${host.metricsUrl}/metrics`, { signal: AbortSignal.timeout(800) });
    for (const s of parseExposition(await res.text()).samples) {
      if (s.name !== 'lattice_actor_lag_records') continue;
      // `soak-<run>.channel-commands` → `channel-commands`
      const topic = (s.labels.topic ?? '?').replace(/^soak-[^.]+\./, '');
      lag[topic] = (lag[topic] ?? 0) + s.value;
    }
  } catch {
    // down or too slow to answer: its lag is not known this second
  }
}

export function startSampler(opts: SamplerOptions): Sampler {
  const samples: Sample[] = [];
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      const nextMs = Date.now() + 1_000;
      const lag: Record<string, number> = {};
      await Promise.all(opts.actors.filter((a) => a.running()).map((a) => lagOf(a, lag)));
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
