// The chaos run (docs/soak.md "Chaos"): the platform as the soak deploys it (every role its own
// `lattice start ROLE` process, test/soak/processes.ts) over a PostgreSQL, a Redis and a Kafka
// broker of the run's own (backing.ts), under the soak's traffic (test/soak/traffic.ts: publishes
// with WebSocket subscribers, emails to a local SMTP smart host, webhook deliveries to an HTTPS
// receiver) plus read probes (probes.ts), while faults.ts stops and restarts each backing service
// and SIGKILLs each role process once. Sampled every second (test/soak/sampler.ts), drained and
// accounted (test/soak/accounting.ts) as the soak is; windows.ts turns it into figures per fault.
import { ROLES } from '@lattice/cli';
import { createLogger, newId, parseSecretKeys, sleep } from '@lattice/core';
import { createPostgresDomainStore } from '@lattice/mail';
import { bootstrapProduct, createDb, type Db, migrateLatest } from '@lattice/store';
import { type Accounting, account, drained } from '../soak/accounting.ts';
import { type GroupLag, groupLag } from '../soak/group-lag.ts';
import { type RoleKind, roleProcess, type SoakProcess } from '../soak/processes.ts';
import { type Sample, startSampler } from '../soak/sampler.ts';
import { startTraffic } from '../soak/traffic.ts';
import { startHttpsReceiver } from '../support/https-receiver.ts';
import type { Outcome } from '../support/post-outcome.ts';
import { startSmartHost } from '../support/smart-host.ts';
import { BACKING_NAMES, type Backing, type BackingName } from './backing.ts';
import type { Cleanup } from './cleanup.ts';
import { type FaultEvent, type FaultTarget, pause, runFaults } from './faults.ts';
import { startProbes } from './probes.ts';
import { edgesKnow, inboundProcess, type RoleHandle, stopBounded } from './roles.ts';

export interface ChaosSettings {
  /** How long each backing service stays stopped. */
  faultMs: number;
  /** How long a SIGKILLed role process stays down before it is started again. */
  killDownMs: number;
  /** Plain traffic after each return, before the next fault. */
  pauseMs: number;
  /** Plain traffic before the first fault: the baseline. */
  warmupMs: number;
  /** The faults' targets in order (`redis`, `postgres`, `kafka`, `management-1`, …). */
  targets: string[];
  channels: number;
  publishGapMs: number;
  sendGapMs: number;
  subscribers: number;
  actors: number;
  gateways: number;
  edges: number;
  partitions: number;
  probeEveryMs: number;
  drainTimeoutMs: number;
}

export interface ChaosResult {
  settings: ChaosSettings;
  startedAt: string;
  /** The role processes, by name. */
  processes: string[];
  /** Roles `lattice start` knows that were left out, and why. */
  skipped: string[];
  loadMs: number;
  drainMs: number;
  drainedInTime: boolean;
  /** One a second; `delivered` counts the slowest subscriber's messages times the subscribers. */
  samples: Sample[];
  faults: FaultEvent[];
  /**
   * Every answer, by stream: `publishes`, `sends`, `management reads`, `edge reads`; their times in
   * ms since the traffic started, as the samples' and the faults'.
   */
  requests: Record<string, Outcome[]>;
  accounting: Accounting;
  /** Where the roles' and the services' logs of the run are. */
  logDir: string;
}

export interface ChaosEnvironment {
  backing: Backing;
  secretKeys: string;
  cleanup: Cleanup;
  signal: AbortSignal;
  logDir: string;
  log: (line: string) => void;
}

/** The default order: every backing service, then every role once. */
export function defaultTargets(inbound: boolean): string[] {
  return [
    ...BACKING_NAMES,
    'management-1',
    'edge-1',
    'gateway-1',
    'actors-1',
    ...(inbound ? ['inbound-1'] : []),
  ];
}

/** Whether this checkout's `lattice start` has the inbound role yet. */
export const INBOUND_ROLE = (ROLES as readonly string[]).includes('inbound');

export async function runChaos(settings: ChaosSettings, env: ChaosEnvironment): Promise<ChaosResult> {
  const { log, cleanup, signal, backing } = env;
  const aborted = () => {
    if (signal.aborted) throw new Error('interrupted');
  };
  const run = newId().slice(0, 8);
  const logger = createLogger({ name: 'chaos', level: 'error' });
  const setupDb = createDb({ databaseUrl: backing.databaseUrl, logger });
  await migrateLatest(setupDb, logger);
  const domain = `chaos${run}.example.test`;
  const made = await bootstrapProduct(setupDb, { name: `chaos-${run}`, verifiedDomain: domain });
  const productId = made.product_id;
  await createPostgresDomainStore(setupDb, { keyring: parseSecretKeys(env.secretKeys) }).ensureKeys(
    productId,
  );
  // Its connections would not outlive PostgreSQL's stop: a fresh pool counts at the end.
  await setupDb.destroy();

  const handedOver = new Map<string, number>();
  const smartHost = await startSmartHost({
    onReceived: (m) => {
      const id = /^<([0-9a-f-]{36})@/.exec(m.messageId ?? '')?.[1] ?? `unknown:${m.queueId}`;
      handedOver.set(id, (handedOver.get(id) ?? 0) + 1);
    },
  });
  cleanup.add('smart host', () => smartHost.close());
  const receiver = await startHttpsReceiver();
  cleanup.add('webhook receiver', () => receiver.close());

  const shared = (): Record<string, string> => ({
    DATABASE_URL: backing.databaseUrl,
    REDIS_URL: backing.redisUrl,
    REDIS_KEY_PREFIX: `chaos-${run}:`,
    KAFKA_BROKERS: backing.kafkaBrokers.join(','),
    KAFKA_TOPIC_PREFIX: `chaos-${run}.`,
    KAFKA_PARTITIONS: String(settings.partitions),
    LATTICE_SECRET_KEYS: env.secretKeys,
    SMTP_URL: smartHost.url,
    // The limits are out of the way: the run measures faults, not the quotas (a 429 would still
    // count as documented).
    MAIL_SEND_RATE_PER_SECOND: '100000',
    REALTIME_PUBLISH_SUSTAINED_PER_SECOND: '1000000',
    REALTIME_PUBLISH_HARD_LIMIT: '100000000',
    EDGE_PER_IP_LIMIT: '100000000',
    MAIL_RETRY_DELAYS_MS: '200,500,1000',
    WEBHOOK_RETRY_DELAYS_MS: '200,500,1000,2000',
    WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
    // As the soak: a killed actor host's partitions move on after 6 s, not the default 30. The
    // key snapshot keeps its defaults (refreshed every 30 s, served up to 5 minutes old).
    ACTORS_SESSION_TIMEOUT_MS: '6000',
    LOG_LEVEL: 'warn',
    PUBLIC_URL: edges[0]?.url ?? '',
    GATEWAY_URL: gateways[0]?.url ?? '',
  });
  const of = async (kind: RoleKind, count: number) => {
    const list: SoakProcess[] = [];
    for (let i = 1; i <= count; i++) list.push(await roleProcess({ kind, index: i, env: shared }));
    return list;
  };
  const actors = await of('actors', settings.actors);
  const edges = await of('edge', settings.edges);
  const gateways = await of('gateway', settings.gateways);
  const [management] = await of('management', 1);
  const roles: RoleHandle[] = [...actors, management!, ...edges, ...gateways];
  const skipped: string[] = [];
  if (INBOUND_ROLE && settings.targets.includes('inbound-1')) roles.push(await inboundProcess(shared));
  else
    skipped.push(
      `inbound: ${INBOUND_ROLE ? 'not among CHAOS_TARGETS' : '`lattice start inbound` does not exist yet'}`,
    );
  cleanup.add('role processes', () => Promise.all(roles.map(stopBounded)));

  const bootMs = Date.now();
  // The first actor host migrates and creates the topics; the others then start together.
  await actors[0]!.start();
  aborted();
  const rest = roles.filter((p) => p !== actors[0]);
  const starts = await Promise.allSettled(rest.map((p) => p.start()));
  aborted();
  for (const [i, s] of starts.entries()) {
    if (s.status === 'fulfilled') continue;
    if (rest[i]!.name.startsWith('inbound')) {
      skipped.push(`inbound: did not start (${String(s.reason).slice(0, 200)})`);
      roles.splice(roles.indexOf(rest[i]!), 1);
    } else throw new Error(`${rest[i]!.name} did not start: ${String(s.reason)}`);
  }
  log(
    `platform up in ${((Date.now() - bootMs) / 1000).toFixed(1)} s: ${roles.map((p) => p.name).join(', ')}`,
  );

  const api = async (method: string, path: string, body: unknown) => {
    const res = await fetch(`${management!.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${made.owner_token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const json = (await res.json()) as Record<string, unknown>;
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
    return json;
  };
  await api('PUT', '/realtime/namespaces/soak', { history_window_seconds: 3600 });
  await api('POST', '/mail/webhooks', { url: receiver.url('/chaos'), events: ['email.delivered'] });
  const key = async (toolkit: string) =>
    (
      await api('POST', '/organization/public-keys', {
        name: `chaos ${toolkit}`,
        scope: { kind: 'toolkit', toolkit },
      })
    ).key as string;
  const realtimeKey = await key('realtime');
  const mailKey = await key('mail');
  await edgesKnow(
    edges.map((e) => e.url),
    productId,
    realtimeKey,
  );
  aborted();

  // The soak's channel names: its namespace `soak` is the one configured above.
  const channels = Array.from({ length: settings.channels }, (_, i) => `soak:c-${i + 1}`);
  const traffic = await startTraffic({
    run,
    productId,
    channels,
    edges: edges.map((e) => e.url),
    gateways: gateways.map((g) => g.url),
    realtimeKey,
    mailKey,
    domain,
    publishGapMs: settings.publishGapMs,
    sendGapMs: settings.sendGapMs,
    subscribers: settings.subscribers,
  });
  cleanup.add('subscribers', () => traffic.close());
  cleanup.add('publishers and sender', () => traffic.stop());
  const startedAtMs = Date.now();
  const probes = startProbes(
    [
      {
        name: 'management reads',
        urls: [`${management!.url}/realtime/namespaces/soak`],
        token: made.owner_token,
      },
      {
        name: 'edge reads',
        urls: edges.map((e) => `${e.url}/${productId}/realtime/channels/soak:c-1/history?last_n=1`),
        token: realtimeKey,
      },
    ],
    settings.probeEveryMs,
  );
  cleanup.add('probes', () => probes.stop());
  const lag = boundedLag(await groupLag(backing.kafkaBrokers, `chaos-${run}.`, logger), 800);
  cleanup.add('lag reader', () => lag.close());
  const slowest = () =>
    Math.min(...traffic.subscribers.map((s) => [...s.received.values()].reduce((n, r) => n + r.length, 0))) *
    traffic.subscribers.length;
  const sampler = startSampler({
    startedAtMs,
    traffic: { ...traffic, delivered: slowest },
    handedOver,
    webhooks: () => receiver.requests.length,
    lag,
    all: [...actors, management!, ...edges, ...gateways],
  });
  cleanup.add('sampler', () => sampler.stop());
  const progress = setInterval(() => {
    const s = sampler.samples.at(-1);
    if (!s) return;
    const subs = Math.max(1, settings.subscribers);
    log(
      `${(s.tMs / 1000).toFixed(0)} s: ${s.published} published, ${Math.round(s.delivered / subs)} at the slowest subscriber, ` +
        `${s.sent} emails accepted, ${s.handedOver} at the smart host, ${s.webhooks} webhooks, lag ${s.lagTotal}` +
        (s.down.length > 0 ? `, down: ${s.down.join(' ')}` : ''),
    );
  }, 15_000);
  cleanup.add('progress', async () => clearInterval(progress));

  log(`traffic started; ${(settings.warmupMs / 1000).toFixed(0)} s before the first fault`);
  await pause(settings.warmupMs, signal);
  aborted();
  const byName = new Map(roles.map((p) => [p.name, p]));
  const targets: FaultTarget[] = settings.targets.flatMap((name): FaultTarget[] => {
    if ((BACKING_NAMES as readonly string[]).includes(name)) {
      return [
        {
          name,
          kind: 'backing',
          origins: [],
          stop: () => backing.stop(name as BackingName),
          start: () => backing.start(),
        },
      ];
    }
    const p = byName.get(name);
    if (!p) {
      log(`no process ${name}: left out of the faults`);
      return [];
    }
    const origins = [p.url, p.metricsUrl].filter((u) => u.startsWith('http')).map((u) => new URL(u).origin);
    return [{ name, kind: 'role', origins, stop: () => p.stop('SIGKILL'), start: () => p.start() }];
  });
  const faults = runFaults({
    targets,
    startedAtMs,
    faultMs: settings.faultMs,
    killDownMs: settings.killDownMs,
    pauseMs: settings.pauseMs,
    signal,
    log,
  });
  cleanup.add('faults', () => faults.done);
  await faults.done;
  aborted();

  await traffic.stop();
  await probes.stop();
  const loadMs = Date.now() - startedAtMs;
  log(`traffic stopped after ${(loadMs / 1000).toFixed(0)} s; draining`);
  const db: Db = createDb({ databaseUrl: backing.databaseUrl, logger });
  cleanup.add('database pool', () => db.destroy());
  const inputs = { db, productId, traffic, handedOver, receiver };
  const drainStartMs = Date.now();
  let drainedInTime = false;
  while (Date.now() - drainStartMs < settings.drainTimeoutMs && !signal.aborted) {
    if (await drained(inputs).catch(() => false)) {
      drainedInTime = true;
      break;
    }
    await sleep(500);
  }
  aborted();
  const drainMs = Date.now() - drainStartMs;
  clearInterval(progress);
  await sampler.stop();
  const accounting = await account(inputs, []);
  // On the samples' and the faults' clock: ms since the traffic started.
  const relative = (list: Outcome[]) =>
    list.map((o) => ({
      ...o,
      startedAtMs: o.startedAtMs - startedAtMs,
      answeredAtMs: o.answeredAtMs - startedAtMs,
    }));
  const requests: Record<string, Outcome[]> = {
    publishes: relative([...traffic.publishes.values()].flatMap((s) => s.items.flatMap((i) => i.attempts))),
    sends: relative(traffic.sends.items.flatMap((i) => i.attempts)),
    ...Object.fromEntries([...probes.outcomes].map(([name, list]) => [name, relative(list)])),
  };
  return {
    settings,
    startedAt: new Date(startedAtMs).toISOString(),
    processes: roles.map((p) => p.name),
    skipped,
    loadMs,
    drainMs,
    drainedInTime,
    samples: sampler.samples,
    faults: faults.events,
    requests,
    accounting,
    logDir: env.logDir,
  };
}

/** A lag read that gives up after `ms` (the broker stopped), one read in flight at a time. */
function boundedLag(inner: GroupLag, ms: number): GroupLag {
  let inFlight: Promise<Record<string, number>> | null = null;
  return {
    read() {
      inFlight ??= inner.read().finally(() => {
        inFlight = null;
      });
      return Promise.race([
        inFlight,
        sleep(ms).then(() => {
          throw new Error('the lag read did not answer in time');
        }),
      ]);
    },
    close: () => inner.close(),
  };
}
