// kafkajs client whose own log lines go through the platform logger.

import type { Logger } from '@lattice/core';
import { Kafka, type LogEntry, logLevel } from 'kafkajs';
import { stopIdleRequestQueuePolling } from './request-queue-fix.ts';

export interface KafkaClientOptions {
  brokers: string[];
  clientId: string;
  logger: Logger;
}

function logCreator(logger: Logger) {
  return () =>
    ({ namespace, level, log }: LogEntry) => {
      const { message, ...extra } = log;
      const fields = { kafka: namespace, ...extra };
      // kafkajs reports errors it retries itself (leader moves, rebalances) at ERROR; what it
      // cannot recover from surfaces as a thrown error or a consumer crash, logged by Lattice.
      if (level === logLevel.ERROR || level === logLevel.WARN) logger.warn(fields, message);
      else if (level === logLevel.INFO) logger.debug(fields, message);
      else logger.trace(fields, message);
    };
}

export function createKafka(opts: KafkaClientOptions): Kafka {
  stopIdleRequestQueuePolling();
  return new Kafka({
    clientId: opts.clientId,
    brokers: opts.brokers,
    logLevel: logLevel.INFO,
    logCreator: logCreator(opts.logger.child({ component: 'kafkajs' })),
    retry: { initialRetryTime: 200, retries: 8, maxRetryTime: 5000 },
    connectionTimeout: 3000,
    requestTimeout: 30000,
  });
}
