// The webhook part of the actors role: the fan-out kind on `mail.events` (its own consumer group),
// the endpoint actor kind on `mail.webhook-deliveries` with the loops that make the attempts, and
// the wake sweep: every `wakeSweepIntervalMs`, and at once after each assignment, the due pending
// deliveries of the endpoints this host owns are woken. Records wake loops at once; the sweep is
// what makes a due time survive a crash, a rebalance or a lost wake record.
import {
  errorMessage,
  type Logger,
  type Scheduler,
  type SecretKeyring,
  systemScheduler,
} from '@lattice/core';
import {
  createRecordProducer,
  type PartitionPlacement,
  partitionOfKey,
  TOPIC_CATALOG,
  topicName,
} from '@lattice/kafka';
import {
  createEndpointWorkers,
  createPostgresDeliveryStore,
  createPostgresFanoutStore,
  createWebhookWakePublisher,
  type DeliveryStore,
  deliveryMetrics,
  type EndpointWorkers,
  type MailEventRecord,
  mailEventCodec,
  type WebhookDeliveryRecord,
  type WebhookPoster,
  type WebhookWakePublisher,
  webhookDeliveryCodec,
  webhookEndpointActorKind,
  webhookFanoutActorKind,
  webhookStages,
} from '@lattice/mail';
import type { Admin, Kafka } from 'kafkajs';
import type { Knex } from 'knex';
import type { Registry } from 'prom-client';
import type { ActorKindRegistration } from './actors-role.ts';
import { MAIL_EVENTS_COMMIT_INTERVAL_MS } from './email-state-actors.ts';
import type { PeriodicJob } from './periodic-jobs.ts';

/** The configuration webhook delivery reads (config.webhooks); tests change fields of it. */
export interface WebhookDeliverySettings {
  /** WEBHOOK_RETRY_DELAYS_MS: the four delays. */
  retryDelaysMs: number[];
  /** How often due deliveries are looked for (a safety net behind the wake records). */
  wakeSweepIntervalMs: number;
}

export interface WebhookDeliveryDeps {
  kafkaTopicPrefix: string;
  db: Knex;
  kafka: Kafka;
  /** Where keys go while topics are re-partitioned: the process's shared placement. */
  placement: PartitionPlacement;
  logger: Logger;
  registry: Registry;
  /** Opens the endpoints' sealed secrets. */
  keyring: SecretKeyring;
  /** Makes the attempts (createWebhookRequester: SSRF guard, timeout, TLS); closed with the rest. */
  poster: WebhookPoster & { close(): void };
  /** The loops' due times and retry waits. Default systemScheduler. */
  scheduler?: Scheduler;
  /** Limit the wake sweep to these products (tests sharing a database); default every product. */
  productIds?: readonly string[];
}

export interface WebhookDelivery {
  fanout: ActorKindRegistration<MailEventRecord>;
  endpoints: ActorKindRegistration<WebhookDeliveryRecord>;
  jobs: PeriodicJob[];
  /** The loops, for tests that look at them. */
  workers: EndpointWorkers;
  close(): Promise<void>;
}

export function webhookDelivery(
  settings: WebhookDeliverySettings,
  deps: WebhookDeliveryDeps,
): WebhookDelivery {
  const { db, logger } = deps;
  const scheduler = deps.scheduler ?? systemScheduler;
  const log = logger.child({ component: 'webhook-delivery' });
  const metrics = deliveryMetrics(deps.registry);
  const deliveriesTopic = topicName(deps.kafkaTopicPrefix, TOPIC_CATALOG.webhookDeliveries.name);
  const store: DeliveryStore = createPostgresDeliveryStore(db);
  const workers = createEndpointWorkers({
    store,
    poster: deps.poster,
    keyring: deps.keyring,
    schedule: { retryDelaysMs: settings.retryDelaysMs },
    scheduler,
    logger,
    metrics,
    stages: webhookStages(deps.registry),
  });
  const wakeRecords: WebhookWakePublisher = createWebhookWakePublisher({
    producer: () => createRecordProducer(deps.kafka, { placement: deps.placement, logger }),
    topic: deliveriesTopic,
    logger,
  });

  // The partition count endpoints are placed over, to tell which this host owns: the topic's plan
  // when it has one (`lattice topics scale`), else the topic's partitions, read again after every
  // assignment.
  // The sweep and the fan-out's wakes may ask at once: they share one read.
  let admin: Promise<Admin> | null = null;
  let partitionCount: number | null = null;
  let reading: Promise<number> | null = null;
  function readPartitionCount(): Promise<number> {
    reading ??= (async () => {
      try {
        const plan = deps.placement.planOf(deliveriesTopic);
        if (plan) {
          partitionCount = plan.partitions;
          return partitionCount;
        }
        admin ??= (async () => {
          const client = deps.kafka.admin();
          await client.connect();
          return client;
        })().catch((err: unknown) => {
          admin = null;
          throw err;
        });
        const meta = await (await admin).fetchTopicMetadata({ topics: [deliveriesTopic] });
        partitionCount = meta.topics[0]?.partitions.length ?? 0;
        return partitionCount;
      } finally {
        reading = null;
      }
    })();
    return reading;
  }

  let sweeping: Promise<void> | null = null;
  /** Wakes the owned endpoints with due pending deliveries (a woken idle loop costs one read). */
  function sweep(): Promise<void> {
    sweeping ??= (async () => {
      try {
        const count = partitionCount ?? (await readPartitionCount());
        if (count === 0) return;
        const due = await store.endpointsDue(scheduler.nowMs(), 10_000, deps.productIds);
        for (const endpointId of due) {
          const partition = partitionOfKey(deliveriesTopic, endpointId, count);
          if (workers.owns(partition)) workers.wake(endpointId, partition);
        }
      } finally {
        sweeping = null;
      }
    })();
    return sweeping;
  }

  // The fan-out's wakes. An endpoint whose loop runs on this host (its partition of
  // `mail.webhook-deliveries` is this host's) is woken here, in process: a record would only come
  // back to this host through Kafka (produced with acks=all, fetched, its offset committed) to do
  // the same. Only endpoints of other hosts get a record. The delivery row is durable before
  // either, so nothing rests on the wake: if this host loses the partition, or dies, the next
  // owner's assignment sweep wakes the endpoint, and the wake sweep covers any wake lost.
  // An in-process wake is placed as its record would be: it takes a placement slot as a send does
  // (so it waits while the topic is being re-partitioned) and hashes over the slot's count, so an
  // endpoint never runs here by the old count once its producers place it by the new one
  // (docs/operations.md "Changing the partition count"). At debug level each such wake is a line
  // with the event's request id, as its record's `records applied` line would be.
  const wake: WebhookWakePublisher = {
    async publish(records, requestId) {
      const elsewhere: WebhookDeliveryRecord[] = [];
      const slot = await deps.placement.acquire(deliveriesTopic);
      try {
        const count = slot.partitions ?? partitionCount ?? (await readPartitionCount());
        for (const r of records) {
          const partition = count === 0 ? -1 : partitionOfKey(deliveriesTopic, r.endpoint_id, count);
          if (partition < 0 || !workers.wake(r.endpoint_id, partition)) {
            elsewhere.push(r);
            continue;
          }
          if (log.isLevelEnabled('debug')) {
            log.debug(
              {
                endpointId: r.endpoint_id,
                partition,
                deliveryId: r.delivery_id,
                requestIds: requestId === undefined ? [] : [requestId],
              },
              'webhook endpoint woken in process',
            );
          }
        }
      } finally {
        slot.release();
      }
      if (elsewhere.length > 0) await wakeRecords.publish(elsewhere, requestId);
    },
    close: () => wakeRecords.close(),
  };

  // A switched plan moves some endpoints to other partitions: their loops here stop (their new
  // owner's sweep or next record wakes them there), and this host wakes the ones now its own.
  deps.placement.onPlanChange((topic, plan) => {
    if (topic !== deliveriesTopic || plan.partitions === partitionCount) return;
    partitionCount = plan.partitions;
    workers.placeBy((endpointId) => partitionOfKey(deliveriesTopic, endpointId, plan.partitions));
    sweep().catch((err: unknown) => log.warn({ err: errorMessage(err) }, 'webhook wake sweep failed'));
  });

  return {
    fanout: {
      topic: TOPIC_CATALOG.mailEvents.name,
      codec: mailEventCodec(),
      kind: webhookFanoutActorKind({ store: createPostgresFanoutStore(db), wake, metrics }),
      // A replay records nothing twice and only wakes what is still pending.
      commitIntervalMs: MAIL_EVENTS_COMMIT_INTERVAL_MS,
    },
    endpoints: {
      topic: TOPIC_CATALOG.webhookDeliveries.name,
      codec: webhookDeliveryCodec(),
      kind: webhookEndpointActorKind(workers),
      onAssignment(partitions) {
        workers.own(partitions);
        partitionCount = null;
        reading = null;
        sweep().catch((err: unknown) => log.warn({ err: errorMessage(err) }, 'webhook wake sweep failed'));
      },
    },
    jobs: [{ name: 'webhook-wake-sweep', intervalMs: settings.wakeSweepIntervalMs, run: () => sweep() }],
    workers,
    async close() {
      await workers.close();
      deps.poster.close();
      await wake.close();
      const client = await admin?.catch(() => null);
      await client?.disconnect();
    },
  };
}
