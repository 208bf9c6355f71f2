// One phase of the latency benchmark: one arm at one rate in one round. Fresh channels (so every
// sequence starts at 1), their subscribers connected (with a token each for Lattice), then the
// publisher's ramp and measured phase; the server processes' CPU time is read from /proc at the
// measured phase's start and end. Then the drain (every accepted message to every subscriber, or
// the drain timeout), the subscribers' checks and latencies, and the connections closed.
import { setTimeout as sleep } from 'node:timers/promises';
import { percentile } from '../support/http-load.ts';
import { infraCpu, machineCpu, processCpuUs } from '../support/machine-cpu.ts';
import type { Arm, ArmName } from './arm.ts';
import type { Publisher, Subscribers } from './clients.ts';
import type { Expected } from './messages.ts';
import {
  type StageFigures,
  type StageName,
  type StageScrape,
  scrapeStages,
  stagesBetween,
} from './stages.ts';

export interface PhaseSettings {
  channels: number;
  subscribersPerChannel: number;
  rampS: number;
  durationS: number;
  /** Most sockets of the publisher's keep-alive agent. */
  sockets: number;
  drainTimeoutMs: number;
}

export interface PhaseResult {
  arm: ArmName;
  ratePerS: number;
  round: number;
  /** Publishes sent in the measured phase. */
  messages: number;
  /** Deliveries of those messages (the latency samples). */
  deliveries: number;
  p50Ms: number;
  p95Ms: number;
  p99Ms: number;
  maxMs: number;
  /** 2xx answers and deliveries per second during the measured phase. */
  answeredPerS: number;
  deliveriesPerS: number;
  /** Publishes (ramp included) not answered 2xx, and the answers by status. */
  publishFailed: number;
  statuses: Record<string, number>;
  /** In deliveries, over the whole phase (ramp included). */
  lost: number;
  duplicated: number;
  outOfOrder: number;
  unexpected: number;
  /** Publish → 2xx answer of the measured phase's publishes. */
  answerP50Ms: number;
  answerP99Ms: number;
  /** Lattice arms: each stage's p50 and p99 over the phase (docs/architecture.md "Where the time goes"). */
  stages?: Partial<Record<StageName, StageFigures>>;
  /** CPU time (user + system) per message of the measured phase, by server process. */
  cpuUsPerMessage: Record<string, number>;
  serverUsPerMessage: number;
  /** The same for the infrastructure (all of its processes) and the load clients. */
  infraUsPerMessage: { postgres: number; kafka: number; redis: number };
  clientsUsPerMessage: number;
  /** Busy share of the machine's cores during the measured phase. */
  machineBusy: number;
  drainMs: number;
}

interface Reading {
  atMs: number;
  servers: number[];
  clients: number;
  infra: ReturnType<typeof infraCpu>;
  machine: ReturnType<typeof machineCpu>;
  delivered: number;
}

export async function runPhase(
  arm: Arm,
  clients: { publisher: Publisher; subscribers: Subscribers },
  s: PhaseSettings,
  at: { runId: string; round: number; ratePerS: number; label: string },
  log: (line: string) => void,
): Promise<PhaseResult> {
  const { publisher, subscribers } = clients;
  const channels = Array.from(
    { length: s.channels },
    (_, i) => `bench:${at.runId}-r${at.round}-${at.ratePerS}-c${i}`,
  );
  const tokens = await arm.tokens(channels);
  const connected = await subscribers.connect(
    arm.wsUrl,
    channels.map((channel) => ({
      channel,
      clients: s.subscribersPerChannel,
      ...(tokens ? { token: tokens.get(channel)! } : {}),
    })),
  );
  log(`${at.label}: ${connected.connections} subscribers in ${(connected.ms / 1000).toFixed(1)} s`);
  try {
    const reading = (): Reading => ({
      atMs: performance.now(),
      servers: arm.processes.map((p) => processCpuUs(p.pid)),
      clients: [publisher.pid, ...subscribers.pids].reduce((sum, pid) => sum + processCpuUs(pid), 0),
      infra: infraCpu(),
      machine: machineCpu(),
      delivered: subscribers.delivered(),
    });
    const marks: { before?: Reading; after?: Reading } = {};
    let stagesBefore: Promise<StageScrape> | null = null;
    const published = await publisher.run(
      {
        url: arm.publishUrl,
        headers: arm.headers,
        bodyFields: arm.bodyFields,
        channels,
        ratePerS: at.ratePerS,
        rampS: s.rampS,
        durationS: s.durationS,
        sockets: s.sockets,
      },
      {
        progress: (sent, answered, failed) =>
          log(
            `${at.label}: ${sent} sent, ${answered} answered${failed ? `, ${failed} FAILED` : ''}, ${subscribers.delivered()} delivered`,
          ),
        measuring: () => {
          marks.before = reading();
          stagesBefore = arm.metricsUrls.length > 0 ? scrapeStages(arm.metricsUrls) : null;
        },
        published: () => {
          marks.after = reading();
        },
      },
    );
    const before = marks.before ?? reading();
    const after = marks.after ?? reading();

    const expected: Expected = {};
    let expectedDeliveries = 0;
    channels.forEach((channel, i) => {
      const last = published.lastSeq[i] ?? 0;
      const failed = published.failedSeqs[i] ?? [];
      expected[channel] = { last, failed };
      expectedDeliveries += (last - failed.length) * s.subscribersPerChannel;
    });
    const drainStartedMs = performance.now();
    while (subscribers.delivered() < expectedDeliveries) {
      if (performance.now() - drainStartedMs > s.drainTimeoutMs) {
        log(`${at.label}: drain timed out, ${subscribers.delivered()} of ${expectedDeliveries} delivered`);
        break;
      }
      await sleep(10);
    }
    const drainMs = performance.now() - drainStartedMs;
    // Anything delivered twice comes soon after; give it the time to be counted.
    await sleep(200);
    const stages = stagesBefore
      ? stagesBetween(await stagesBefore, await scrapeStages(arm.metricsUrls))
      : undefined;
    const { check, latencies } = await subscribers.verify(expected);
    const merged = new Float64Array(latencies.reduce((n, l) => n + l.length, 0));
    let offset = 0;
    for (const l of latencies) {
      merged.set(l, offset);
      offset += l.length;
    }
    const sorted = merged.sort();

    const n = Math.max(1, published.measuredSent);
    const seconds = Math.max(1e-3, (after.atMs - before.atMs) / 1000);
    const cpuUsPerMessage: Record<string, number> = {};
    arm.processes.forEach((p, i) => {
      cpuUsPerMessage[p.name] = ((after.servers[i] ?? 0) - (before.servers[i] ?? 0)) / n;
    });
    const busy = after.machine.busyUs - before.machine.busyUs;
    const total = after.machine.totalUs - before.machine.totalUs;
    return {
      arm: arm.name,
      ratePerS: at.ratePerS,
      round: at.round,
      messages: published.measuredSent,
      deliveries: sorted.length,
      p50Ms: percentile(sorted, 50),
      p95Ms: percentile(sorted, 95),
      p99Ms: percentile(sorted, 99),
      maxMs: sorted.length > 0 ? sorted[sorted.length - 1]! : Number.NaN,
      answeredPerS: published.answeredInPhase / (published.measuredMs / 1000),
      deliveriesPerS: (after.delivered - before.delivered) / seconds,
      publishFailed: published.sent - published.accepted,
      statuses: published.statuses,
      lost: check.lost,
      duplicated: check.duplicated,
      outOfOrder: check.outOfOrder,
      unexpected: check.unexpected,
      answerP50Ms: published.answerP50Ms,
      answerP99Ms: published.answerP99Ms,
      ...(stages ? { stages } : {}),
      cpuUsPerMessage,
      serverUsPerMessage: Object.values(cpuUsPerMessage).reduce((a, b) => a + b, 0),
      infraUsPerMessage: {
        postgres: (after.infra.postgres - before.infra.postgres) / n,
        kafka: (after.infra.kafka - before.infra.kafka) / n,
        redis: (after.infra.redis - before.infra.redis) / n,
      },
      clientsUsPerMessage: (after.clients - before.clients) / n,
      machineBusy: total > 0 ? busy / total : Number.NaN,
      drainMs,
    };
  } finally {
    await subscribers.close();
  }
}
