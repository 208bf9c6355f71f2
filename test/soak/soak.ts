// The bounded soak (docs/operations.md "The soak"): the whole platform as separate processes
// (processes.ts) under steady traffic (traffic.ts) while the chaos (chaos.ts) kills and restarts
// actor hosts, gateways, edges and Redis; sampled every second for throughput and lag; then
// drained and accounted (accounting.ts) against what the clients were answered. `npm run soak`
// (run.ts) and the suite's short run (test/integration/soak.test.ts) both run this.
import { createLogger, newId, parseSecretKeys, sleep } from '@lattice/core';
import { createKafka } from '@lattice/kafka';
import { createPostgresDomainStore } from '@lattice/mail';
import { bootstrapProduct, createDb, migrateLatest } from '@lattice/store';
import { startHttpsReceiver } from '../support/https-receiver.ts';
import { startSmartHost } from '../support/smart-host.ts';
import { type Accounting, account, drained } from './accounting.ts';
import { type ChaosEvent, startChaos } from './chaos.ts';
import { groupLag } from './group-lag.ts';
import { type RoleKind, redisServer, roleProcess, type SoakProcess } from './processes.ts';
import { type Sample, startSampler } from './sampler.ts';
import { startTraffic } from './traffic.ts';

export interface SoakSettings {
  /** How long the traffic and the chaos run. */
  durationMs: number;
  chaosEveryMs: number;
  /** How long a stopped process stays down before it is started again. */
  downMs: number;
  channels: number;
  publishGapMs: number;
  sendGapMs: number;
  subscribers: number;
  actors: number;
  gateways: number;
  edges: number;
  /** The bound on the drain after the traffic stops. */
  drainTimeoutMs: number;
}

export interface SoakEnvironment {
  databaseUrl: string;
  kafkaBrokers: string[];
  kafkaPartitions: number;
  /**
   * LATTICE_SECRET_KEYS of every role: the one the database's realtime signing keys were sealed
   * with (they are one per environment for the whole database), so a fresh one per run would not do.
   */
  secretKeys: string;
  log: (line: string) => void;
}

export interface SoakResult {
  settings: SoakSettings;
  startedAt: string;
  loadMs: number;
  /** From the end of the traffic until everything accepted had arrived everywhere (or the bound). */
  drainMs: number;
  drainedInTime: boolean;
  samples: Sample[];
  chaos: ChaosEvent[];
  accounting: Accounting;
}

export async function runSoak(settings: SoakSettings, env: SoakEnvironment): Promise<SoakResult> {
  const { log } = env;
  const run = newId().slice(0, 8);
  const logger = createLogger({ name: 'soak', level: 'error' });
  const db = createDb({ databaseUrl: env.databaseUrl, logger });
  const closers: Array<() => Promise<unknown>> = [() => db.destroy()];
  try {
    await migrateLatest(db, logger);
    const { secretKeys } = env;
    const domain = `soak${run}.example.test`;
    const made = await bootstrapProduct(db, { name: `soak-${run}`, verifiedDomain: domain });
    const productId = made.product_id;
    await createPostgresDomainStore(db, { keyring: parseSecretKeys(secretKeys) }).ensureKeys(productId);

    // The smart host keeps only each message's id: a long soak sends thousands.
    const handedOver = new Map<string, number>();
    const smartHost = await startSmartHost({
      onReceived: (m) => {
        const id = /^<([0-9a-f-]{36})@/.exec(m.messageId ?? '')?.[1] ?? `unknown:${m.queueId}`;
        handedOver.set(id, (handedOver.get(id) ?? 0) + 1);
      },
    });
    closers.push(() => smartHost.close());
    const receiver = await startHttpsReceiver();
    closers.push(() => receiver.close());
    const redis = await redisServer();
    await redis.start();
    closers.push(() => redis.stop('SIGTERM'));

    const topicPrefix = `soak-${run}.`;
    // Read by each process when it starts, after every process below has its ports.
    const shared = (): Record<string, string> => ({
      DATABASE_URL: env.databaseUrl,
      REDIS_URL: redis.url,
      REDIS_KEY_PREFIX: `soak-${run}:`,
      KAFKA_BROKERS: env.kafkaBrokers.join(','),
      KAFKA_TOPIC_PREFIX: topicPrefix,
      KAFKA_PARTITIONS: String(env.kafkaPartitions),
      LATTICE_SECRET_KEYS: secretKeys,
      SMTP_URL: smartHost.url,
      // The limits are out of the way: the soak measures loss under faults, not the quotas.
      MAIL_SEND_RATE_PER_SECOND: '100000',
      REALTIME_PUBLISH_SUSTAINED_PER_SECOND: '1000000',
      REALTIME_PUBLISH_HARD_LIMIT: '100000000',
      EDGE_PER_IP_LIMIT: '100000000',
      MAIL_RETRY_DELAYS_MS: '200,500,1000',
      WEBHOOK_RETRY_DELAYS_MS: '200,500,1000,2000',
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
      // A killed actor host's partitions move on after 6 s, not the default 30.
      ACTORS_SESSION_TIMEOUT_MS: '6000',
      PUBLIC_KEY_SNAPSHOT_REFRESH_MS: '1000',
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
    const all = [...actors, management!, ...edges, ...gateways];
    closers.push(() => Promise.all(all.map((p) => p.stop('SIGTERM'))));
    closers.push(() => deleteTopics(env, topicPrefix));
    // The first actor host migrates and creates the topics; the others then start together.
    const bootMs = Date.now();
    await actors[0]!.start();
    await Promise.all(all.slice(1).map((p) => p.start()));
    log(
      `platform up in ${((Date.now() - bootMs) / 1000).toFixed(1)} s: ${all.map((p) => p.name).join(', ')}`,
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
    await api('POST', '/mail/webhooks', { url: receiver.url('/soak'), events: ['email.delivered'] });
    const key = async (toolkit: string) =>
      (
        await api('POST', '/organization/public-keys', {
          name: `soak ${toolkit}`,
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
    closers.push(() => traffic.close());
    const startedAtMs = Date.now();
    const lag = await groupLag(env.kafkaBrokers, topicPrefix, logger);
    closers.push(() => lag.close());
    const sampler = startSampler({
      startedAtMs,
      traffic,
      handedOver,
      webhooks: () => receiver.requests.length,
      lag,
      all: [...all, redis],
    });
    closers.push(() => sampler.stop());
    const chaos = startChaos({
      everyMs: settings.chaosEveryMs,
      downMs: settings.downMs,
      kinds: [actors, gateways, edges, [redis]],
      startedAtMs,
      log,
    });
    const progress = setInterval(() => {
      const s = sampler.samples.at(-1);
      if (s)
        log(
          `${(s.tMs / 1000).toFixed(0)} s: ${s.published} published, ${s.delivered} delivered to subscribers, ` +
            `${s.sent} emails accepted, ${s.handedOver} at the smart host, ${s.webhooks} webhooks, lag ${s.lagTotal}`,
        );
    }, 15_000);
    closers.push(async () => clearInterval(progress));
    await sleep(settings.durationMs);
    await chaos.stop();
    await traffic.stop();
    const loadMs = Date.now() - startedAtMs;
    log(`traffic stopped after ${(loadMs / 1000).toFixed(0)} s; draining`);

    const drainStartMs = Date.now();
    const inputs = { db, productId, traffic, handedOver, receiver };
    let drainedInTime = false;
    while (Date.now() - drainStartMs < settings.drainTimeoutMs) {
      if (await drained(inputs)) {
        drainedInTime = true;
        break;
      }
      await sleep(500);
    }
    const drainMs = Date.now() - drainStartMs;
    clearInterval(progress);
    await sampler.stop();
    const accounting = await account(inputs, chaos.events);
    return {
      settings,
      startedAt: new Date(startedAtMs).toISOString(),
      loadMs,
      drainMs,
      drainedInTime,
      samples: sampler.samples,
      chaos: chaos.events,
      accounting,
    };
  } finally {
    for (const close of closers.reverse()) await close().catch(() => undefined);
  }
}

/** Waits until every edge accepts the new key (it learns of it by notification or snapshot). */
async function edgesKnow(edges: string[], productId: string, key: string): Promise<void> {
  const deadline = Date.now() + 15_000;
  for (const edge of edges) {
    for (;;) {
      const res = await fetch(`${edge}/${productId}/realtime/channels/soak:probe/history?last_n=1`, {
        headers: { authorization: `Bearer ${key}` },
      });
      if (res.status === 200) break;
      if (Date.now() > deadline) throw new Error(`${edge} never accepted the soak's key: ${res.status}`);
      await sleep(100);
    }
  }
}

async function deleteTopics(env: SoakEnvironment, prefix: string): Promise<void> {
  const logger = createLogger({ name: 'soak-topics', level: 'error' });
  const admin = createKafka({ brokers: env.kafkaBrokers, clientId: 'soak-cleanup', logger }).admin();
  await admin.connect();
  try {
    const mine = (await admin.listTopics()).filter((t) => t.startsWith(prefix));
    if (mine.length > 0) await admin.deleteTopics({ topics: mine });
  } finally {
    await admin.disconnect();
  }
}
