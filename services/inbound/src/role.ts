// The `inbound` role (`lattice start inbound`): the platform's MX-facing SMTP receiver of DSN
// bounces and ARF complaints (docs/mail.md "Inbound bounces and complaints"). Each report is
// matched to an email and its events are published on `mail.events`, where the actors role's
// email-state actor applies them. A role of its own: the receiver listens on one public port
// (INBOUND_SMTP_PORT), which an actors host, of which any number run side by side, must not hold.
// Run alone, its `/metrics` and `/healthz` are on INBOUND_METRICS_PORT.
import type { Clock, LatticeConfig, Logger, Role, RoleHealth, RunningRole } from '@lattice/core';
import { createRecordProducer, type PartitionPlacement, TOPIC_CATALOG, topicName } from '@lattice/kafka';
import { createMailEventPublisher, type RunningInboundReceiver, startInboundReceiver } from '@lattice/mail';
import type { DbExecutor } from '@lattice/store';
import type { Kafka } from 'kafkajs';
import type { Registry } from 'prom-client';

/** The configuration the role reads; tests change fields of it. */
export interface InboundSettings {
  host: string;
  /** INBOUND_SMTP_PORT; 0 picks a free port (tests), said in the running role's `port`. */
  port: number;
  /** INBOUND_SMTP_MAX_BYTES: larger reports are refused with 552. */
  maxBytes: number;
  /** The events go to `<prefix>mail.events`. */
  kafkaTopicPrefix: string;
}

export function inboundSettingsOf(config: LatticeConfig): InboundSettings {
  return {
    host: config.host,
    port: config.inboundSmtpPort,
    maxBytes: config.mail.inboundMaxBytes,
    kafkaTopicPrefix: config.kafkaTopicPrefix,
  };
}

/** What the inbound role takes from the process that runs it. */
export interface InboundShared {
  /** Where the emails a report names are looked up. */
  db: DbExecutor;
  logger: Logger;
  registry: Registry;
  clock: Clock;
  /** The process's Kafka client of this name (client id). */
  kafka(name: string): Kafka;
  /** The process's partition placement: the events follow a topic being re-partitioned. */
  placement(): PartitionPlacement;
}

export type RunningInboundRole = RunningRole & {
  url: string;
  /** Where the receiver listens (the configured port, or the one picked for 0). */
  port: number;
};

export const inboundRole: Role<InboundSettings, InboundShared, RunningInboundRole> = {
  name: 'inbound',
  metricsPortOf: (config) => config.inboundMetricsPort,
  configOf: inboundSettingsOf,
  async start(settings, shared) {
    const { logger } = shared;
    const events = createMailEventPublisher({
      producer: () =>
        createRecordProducer(shared.kafka('inbound'), { placement: shared.placement(), logger }),
      topic: topicName(settings.kafkaTopicPrefix, TOPIC_CATALOG.mailEvents.name),
      logger,
    });
    let receiver: RunningInboundReceiver;
    try {
      receiver = await startInboundReceiver({
        host: settings.host,
        port: settings.port,
        maxBytes: settings.maxBytes,
        db: shared.db,
        events,
        logger,
        registry: shared.registry,
        clock: shared.clock,
      });
    } catch (err) {
      await events.close();
      throw err;
    }
    let stopped = false;
    return {
      url: `smtp://${settings.host}:${receiver.port}`,
      port: receiver.port,
      close: async () => {
        stopped = true;
        // Reports being received are answered (their events published) before the publisher closes.
        await receiver.close();
        await events.close();
      },
      health: (): RoleHealth => (stopped ? { ok: false, reason: 'stopped' } : { ok: true }),
    };
  },
};
