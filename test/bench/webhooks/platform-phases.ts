// The platform's two measurements. A throughput round publishes its events as fast as the
// publisher takes them, each fanned out to every endpoint of the round, and counts deliveries
// received from just before the first publish to the last arrival. A latency phase publishes at
// a fixed rate and times each delivery's first request from just before its event's publish call.
// Both check that every delivery reached the receiver exactly once, at its endpoint's path, and
// is a row that succeeded at its first attempt.
import { performance } from 'node:perf_hooks';
import { sleep } from '@lattice/core';
import { waitUntil } from '../../support/wait-until.ts';
import { percentile } from '../support/http-load.ts';
import {
  type Bench,
  benchEvent,
  checkDeliveryRows,
  deleteEndpoints,
  expectedDeliveries,
  insertEndpoints,
  recordedAtMs,
} from './endpoints.ts';
import { cpuNow, cpuSince } from './processes.ts';
import type { Cpu, Round } from './report.ts';

/** Epoch milliseconds with the monotonic clock's resolution; the receiver stamps the same way. */
export const epochMs = () => performance.timeOrigin + performance.now();

const pad = (v: number | string, n: number) => String(v).padStart(n);

export async function platformRound(
  b: Bench,
  label: string,
  tag: string,
  events: number,
  endpointCount: number,
): Promise<Round> {
  const endpoints = await insertEndpoints(b, tag, endpointCount);
  const batch = Array.from({ length: events }, (_, i) => benchEvent(b.productId, i));
  const expected = expectedDeliveries(batch, endpoints);
  const n = expected.size;
  const cpuBefore = await cpuNow(b.servers);
  const tally = b.arrivals.begin();
  let acked = 0;
  let last = 0;
  const startMs = epochMs();
  const ticker = setInterval(() => {
    b.log(
      `  ${label.padEnd(16)} ${pad(acked, 5)}/${events} events published  ${pad(tally.total, 6)}/${n} deliveries received  ${pad(tally.total - last, 5)}/s`,
    );
    last = tally.total;
  }, 1000);
  let publishedMs: number;
  try {
    await Promise.all(
      batch.map(async (e) => {
        await b.publisher.publish(e);
        acked++;
      }),
    );
    publishedMs = epochMs() - startMs;
    await waitUntil(`${label}: ${tally.total} of ${n} received`, () => tally.total >= n, 120_000, 5);
  } finally {
    clearInterval(ticker);
  }
  const cpu = await cpuSince(b.servers, cpuBefore, n);
  const elapsedMs = Math.max(...tally.times) - startMs;
  await checkDeliveryRows(b, label, endpoints, n);
  // Nothing arrived twice while the last outcomes were stored.
  await sleep(200);
  tally.check(label, expected);
  b.arrivals.end();
  await deleteEndpoints(b, endpoints);
  return {
    label,
    arm: 'platform',
    deliveries: n,
    elapsedMs,
    perSecond: n / (elapsedMs / 1000),
    publishedPerSecond: events / (publishedMs / 1000),
    cpu,
    perSecondSeries: tally.perSecond(startMs),
  };
}

export interface LatencyPhase {
  label: string;
  /** Each delivery: its first request's arrival − just before its event's publish call, ms. */
  firstAttemptMs: Float64Array;
  /**
   * The same split in two at the fan-out's insert of the delivery row (its `created_at`, the
   * PostgreSQL clock of this machine): publish call → recorded, and recorded → first request.
   */
  recordedMs: Float64Array;
  attemptedMs: Float64Array;
  /** Each event: its publish call until Kafka acknowledged it (acks=all), ms. */
  publishAckMs: Float64Array;
  achievedRate: number;
  /** Deliveries received a second, from the first publish call to the last arrival. */
  deliveredRate: number;
  cpu: Cpu;
}

/** `rate` events a second for `seconds`, each fanned out to `endpointCount` endpoints. */
export async function latencyPhase(
  b: Bench,
  label: string,
  tag: string,
  rate: number,
  seconds: number,
  endpointCount: number,
): Promise<LatencyPhase> {
  const count = rate * seconds;
  const intervalMs = 1000 / rate;
  const endpoints = await insertEndpoints(b, tag, endpointCount);
  const batch = Array.from({ length: count }, (_, i) => benchEvent(b.productId, i));
  const expected = expectedDeliveries(batch, endpoints);
  /** Per event, the webhook-ids of its deliveries (one per endpoint). */
  const idsOf = batch.map((e) => [...expectedDeliveries([e], endpoints).keys()]);
  const sentAt = new Float64Array(count);
  const publishAckMs = new Float64Array(count).fill(Number.NaN);
  let failures = 0;
  const cpuBefore = await cpuNow(b.servers);
  const tally = b.arrivals.begin();
  const start = performance.now();
  const ticker = setInterval(() => {
    const sorted = Float64Array.from(
      idsOf.flatMap((ids, i) =>
        ids.flatMap((id) => {
          const seen = tally.byId.get(id);
          return seen ? [seen.atMs - sentAt[i]!] : [];
        }),
      ),
    ).sort();
    b.log(
      `  ${label} ${pad(Math.round((performance.now() - start) / 1000), 3)}/${seconds} s  ${pad(tally.total, 5)}/${expected.size} received  p50 so far ${percentile(sorted, 50).toFixed(1)} ms  p99 ${percentile(sorted, 99).toFixed(1)} ms`,
    );
  }, 1000);
  const inFlight: Promise<void>[] = [];
  let sentForMs: number;
  try {
    for (let i = 0; i < count; i++) {
      const wait = start + i * intervalMs - performance.now();
      if (wait >= 1) await sleep(wait);
      const event = batch[i]!;
      sentAt[i] = epochMs();
      inFlight.push(
        b.publisher.publish(event).then(
          () => {
            publishAckMs[i] = epochMs() - sentAt[i]!;
          },
          () => {
            failures++;
          },
        ),
      );
    }
    sentForMs = performance.now() - start;
    await Promise.all(inFlight);
    if (failures) throw new Error(`${label}: ${failures} events were not acknowledged by Kafka`);
    await waitUntil(
      `${label}: ${tally.total} of ${expected.size} received`,
      () => tally.total >= expected.size,
      60_000,
      5,
    );
  } finally {
    clearInterval(ticker);
  }
  const cpu = await cpuSince(b.servers, cpuBefore, expected.size);
  await checkDeliveryRows(b, label, endpoints, expected.size);
  await sleep(200);
  tally.check(label, expected);
  b.arrivals.end();
  const recorded = await recordedAtMs(b, endpoints);
  await deleteEndpoints(b, endpoints);
  const split = (f: (id: string, i: number) => number) =>
    Float64Array.from(idsOf.flatMap((ids, i) => ids.map((id) => f(id, i))));
  return {
    label,
    firstAttemptMs: split((id, i) => tally.byId.get(id)!.atMs - sentAt[i]!),
    recordedMs: split((id, i) => recorded.get(id)! - sentAt[i]!),
    attemptedMs: split((id) => tally.byId.get(id)!.atMs - recorded.get(id)!),
    publishAckMs,
    achievedRate: count / (sentForMs / 1000),
    deliveredRate: expected.size / ((Math.max(...tally.times) - sentAt[0]!) / 1000),
    cpu,
  };
}
