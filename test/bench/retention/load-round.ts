// One round of the retention benchmark's steady load through the platform's durable path, at
// fixed rates for a fixed time, the two benchmarks' measurements side by side:
//   deliveries  `email.delivered` events published onto `mail.events` (the webhook benchmark's
//               events, endpoints and checks), each delivery timed from just before its event's
//               publish call to its first request's arrival at the receiver
//   sends       POST /mail/emails on the management API (the mail benchmark's bodies and checks),
//               each timed from its 202 answer to the smart host accepting the message
//               ("accepted → sent"); the answer's own time (request → 202) is kept too
// After the round every delivery must have reached the receiver exactly once and be a row that
// succeeded at its first attempt, and every accepted email the smart host once and be `delivered`.
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { sleep } from '@lattice/core';
import type { Db } from '@lattice/store';
import { waitUntil } from '../../support/wait-until.ts';
import type { Arrivals as MailArrivals } from '../mail/processes.ts';
import { sendBody, settle, type Target } from '../mail/rounds.ts';
import { percentile, poster } from '../support/http-load.ts';
import { generatorInfraMachineCpu, generatorInfraMachineCpuPer } from '../support/machine-cpu.ts';
import {
  benchEvent,
  checkDeliveryRows,
  deleteEndpoints,
  expectedDeliveries,
  type Bench as HooksBench,
  insertEndpoints,
} from '../webhooks/endpoints.ts';
import type { RetentionServers } from './processes.ts';

/** Epoch milliseconds with the monotonic clock's resolution; the receiving children stamp the same way. */
export const epochMs = () => performance.timeOrigin + performance.now();

export interface LoadRig {
  /** The webhook benchmark's view of the run: its product, endpoints' receiver, event publisher. */
  hooks: HooksBench;
  mailArrivals: MailArrivals;
  /** The product that sends, with its verified domain and owner token. */
  target: Target;
  servers: RetentionServers;
  log(line: string): void;
}

export interface LoadSettings {
  seconds: number;
  eventRate: number;
  sendRate: number;
  /** Endpoints each event is delivered to. */
  endpoints: number;
}

/** Timed items: when each started (epoch ms) and how long it took (ms), in the same order. */
export interface Samples {
  at: number[];
  ms: number[];
}

/** CPU over the round, in cores (CPU seconds a second); `machineBusy` 0..1 of the machine's cores. */
export interface RoundCpu {
  machineBusy: number;
  postgres: number;
  kafka: number;
  redis: number;
  actors: number;
  management: number;
  /** The receiver and the smart host. */
  sinks: number;
  /** This process: the load generator and the purges' client side. */
  generator: number;
  /** The machine's busy time none of the above accounts for: other work, the kernel's (writeback). */
  other: number;
}

/**
 * Writes and waits over the round: WAL PostgreSQL wrote (the whole server's, pg_stat_wal) with its
 * full-page images, and the share of the time some or all tasks of the machine were stalled on I/O
 * (/proc/pressure/io; NaN where the kernel has no pressure information).
 */
export interface RoundIo {
  walBytes: number;
  walFullPageImages: number;
  walSyncs: number;
  ioSomeShare: number;
  ioFullShare: number;
}

export interface RoundLoad {
  label: string;
  startEpochMs: number;
  /** When the last event and send were started. */
  endEpochMs: number;
  /** Event publish → first attempt at the receiver. */
  deliveries: Samples;
  /** 202 answered → the smart host has the message. */
  sends: Samples;
  /** Request → 202 answered. */
  accepts: Samples;
  non202: number;
  cpu: RoundCpu;
  io: RoundIo;
}

/** Calls `fire(i)` for i < count at `rate` a second from `start` (performance.now time). */
async function paced(count: number, rate: number, start: number, fire: (i: number) => void): Promise<void> {
  const intervalMs = 1000 / rate;
  for (let i = 0; i < count; i++) {
    const wait = start + i * intervalMs - performance.now();
    if (wait >= 1) await sleep(wait);
    fire(i);
  }
}

async function cpuReading(s: RetentionServers) {
  const [actors, management, receiver, smartHost] = await Promise.all([
    s.actors.stats(),
    s.management.stats(),
    s.receiver.stats(),
    s.smartHost.stats(),
  ]);
  return {
    actorsUs: actors.cpuUs,
    managementUs: management.cpuUs,
    sinksUs: receiver.cpuUs + smartHost.cpuUs,
    atMs: performance.now(),
    ...generatorInfraMachineCpu(),
  };
}

function cpuSince(before: Awaited<ReturnType<typeof cpuReading>>, after: typeof before): RoundCpu {
  const seconds = (after.atMs - before.atMs) / 1000;
  const per = generatorInfraMachineCpuPer(before, after, seconds);
  const cores = (us: number) => us / seconds / 1e6;
  const cpu: RoundCpu = {
    machineBusy: per.machineBusy,
    postgres: per.postgres / 1e6,
    kafka: per.kafka / 1e6,
    redis: per.redis / 1e6,
    actors: cores(after.actorsUs - before.actorsUs),
    management: cores(after.managementUs - before.managementUs),
    sinks: cores(after.sinksUs - before.sinksUs),
    generator: per.generator / 1e6,
    other: 0,
  };
  cpu.other =
    per.machine / 1e6 -
    (cpu.postgres + cpu.kafka + cpu.redis + cpu.actors + cpu.management + cpu.sinks + cpu.generator);
  return cpu;
}

/** Microseconds some / all tasks have been stalled on I/O since boot (NaN without PSI). */
function ioPressureUs(): { some: number; full: number } {
  try {
    const text = readFileSync('/proc/pressure/io', 'utf8');
    const total = (kind: string) =>
      Number(new RegExp(`^${kind} .*total=(\\d+)`, 'm').exec(text)?.[1] ?? Number.NaN);
    return { some: total('some'), full: total('full') };
  } catch {
    return { some: Number.NaN, full: Number.NaN };
  }
}

async function ioReading(db: Db) {
  const { rows } = (await db.raw(
    'select wal_bytes::float8 as bytes, wal_fpi::float8 as fpi, wal_sync::float8 as syncs from pg_stat_wal',
  )) as { rows: Array<{ bytes: number; fpi: number; syncs: number }> };
  return { ...rows[0]!, pressure: ioPressureUs(), atMs: performance.now() };
}

function ioSince(before: Awaited<ReturnType<typeof ioReading>>, after: typeof before): RoundIo {
  const us = (after.atMs - before.atMs) * 1000;
  return {
    walBytes: after.bytes - before.bytes,
    walFullPageImages: after.fpi - before.fpi,
    walSyncs: after.syncs - before.syncs,
    ioSomeShare: (after.pressure.some - before.pressure.some) / us,
    ioFullShare: (after.pressure.full - before.pressure.full) / us,
  };
}

const p99Of = (values: number[]) => percentile(Float64Array.from(values).sort(), 99);
const pad = (v: number | string, n: number) => String(v).padStart(n);

/**
 * A round of `s.seconds` at the fixed rates; `progress` adds to each second's line (the purges'
 * figures so far). Throws when a delivery or an email went astray.
 */
export async function loadRound(
  rig: LoadRig,
  label: string,
  tag: string,
  s: LoadSettings,
  progress: () => string,
): Promise<RoundLoad> {
  const { hooks } = rig;
  const eventCount = Math.round(s.eventRate * s.seconds);
  const sendCount = Math.round(s.sendRate * s.seconds);
  const endpoints = await insertEndpoints(hooks, tag, s.endpoints);
  const events = Array.from({ length: eventCount }, (_, i) => benchEvent(hooks.productId, i));
  const expected = expectedDeliveries(events, endpoints);
  /** Per event, the webhook-ids of its deliveries (one per endpoint). */
  const idsOf = events.map((e) => [...expectedDeliveries([e], endpoints).keys()]);
  const eventAt = new Float64Array(eventCount).fill(Number.NaN);
  const sendAt = new Float64Array(sendCount).fill(Number.NaN);
  const answeredAt = new Float64Array(sendCount).fill(Number.NaN);
  const messageIds: Array<string | undefined> = new Array(sendCount);
  let publishFailures = 0;
  let answered = 0;
  let non202 = 0;
  const http = poster(
    `${rig.servers.management.url}/mail/emails`,
    { authorization: `Bearer ${rig.target.ownerToken}`, 'content-type': 'application/json' },
    64,
  );
  const cpuBefore = await cpuReading(rig.servers);
  const ioBefore = await ioReading(hooks.db);
  const hookTally = hooks.arrivals.begin();
  const mailTally = rig.mailArrivals.begin();
  const deliveryTimes = () =>
    idsOf.flatMap((ids, i) =>
      ids.flatMap((id) => {
        const seen = hookTally.byId.get(id);
        return seen ? [{ at: eventAt[i]!, ms: seen.atMs - eventAt[i]! }] : [];
      }),
    );
  const sendTimes = () =>
    messageIds.flatMap((m, i) => {
      const seen = m ? mailTally.byId.get(m) : undefined;
      return seen ? [{ at: answeredAt[i]!, ms: seen.atMs - answeredAt[i]! }] : [];
    });
  const start = performance.now();
  const ticker = setInterval(() => {
    const d = deliveryTimes().map((x) => x.ms);
    const m = sendTimes().map((x) => x.ms);
    rig.log(
      `  ${label} ${pad(Math.round((performance.now() - start) / 1000), 3)}/${s.seconds} s  deliveries ${pad(hookTally.total, 5)}/${expected.size} p99 ${p99Of(d).toFixed(1)} ms  sends ${pad(answered, 5)}/${sendCount} accepted, ${pad(mailTally.total, 5)} sent, p99 ${p99Of(m).toFixed(1)} ms  ${progress()}`,
    );
  }, 1000);
  const inFlight: Promise<void>[] = [];
  let endEpochMs = 0;
  let accepted: string[] = [];
  try {
    await Promise.all([
      paced(eventCount, s.eventRate, start, (i) => {
        eventAt[i] = epochMs();
        inFlight.push(
          hooks.publisher.publish(events[i]!).then(
            () => undefined,
            () => {
              publishFailures++;
            },
          ),
        );
      }),
      paced(sendCount, s.sendRate, start, (i) => {
        inFlight.push(
          (async () => {
            sendAt[i] = epochMs();
            const res = await http.post(sendBody(rig.target, i));
            answeredAt[i] = epochMs();
            answered++;
            if (res.status === 202)
              messageIds[i] = `<${(JSON.parse(res.text) as { id: string }).id}@${rig.target.domain}>`;
            else non202++;
          })(),
        );
      }),
    ]);
    endEpochMs = epochMs();
    await Promise.all(inFlight);
    if (publishFailures)
      throw new Error(`${label}: ${publishFailures} events were not acknowledged by Kafka`);
    accepted = messageIds.filter((m): m is string => m !== undefined);
    await waitUntil(
      `${label}: ${hookTally.total} of ${expected.size} deliveries received`,
      () => hookTally.total >= expected.size,
      120_000,
      5,
    );
    await waitUntil(
      `${label}: ${mailTally.total} of ${accepted.length} messages received`,
      () => mailTally.total >= accepted.length,
      120_000,
      5,
    );
  } finally {
    clearInterval(ticker);
    http.close();
  }
  const cpu = cpuSince(cpuBefore, await cpuReading(rig.servers));
  const io = ioSince(ioBefore, await ioReading(hooks.db));
  const deliveries = deliveryTimes();
  const sends = sendTimes();
  await checkDeliveryRows(hooks, label, endpoints, expected.size);
  await settle(hooks.db, label, accepted);
  // Nothing arrived twice while the last outcomes were stored.
  await sleep(200);
  hookTally.check(label, expected);
  mailTally.check(label, accepted);
  hooks.arrivals.end();
  rig.mailArrivals.end();
  await deleteEndpoints(hooks, endpoints);
  return {
    label,
    startEpochMs: performance.timeOrigin + start,
    endEpochMs,
    deliveries: { at: deliveries.map((x) => x.at), ms: deliveries.map((x) => x.ms) },
    sends: { at: sends.map((x) => x.at), ms: sends.map((x) => x.ms) },
    accepts: {
      at: Array.from(sendAt),
      ms: Array.from(sendAt, (t, i) => answeredAt[i]! - t),
    },
    non202,
    cpu,
    io,
  };
}
