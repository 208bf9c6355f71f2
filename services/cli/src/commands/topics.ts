import { createCatalogTopics } from '@lattice/actors';
import { createKafka } from '@lattice/kafka';
import type { CommandContext } from '../context.ts';

export async function runTopics({ config, logger }: CommandContext): Promise<number> {
  const kafka = createKafka({
    brokers: config.kafkaBrokers,
    clientId: `${config.kafkaClientId}-cli`,
    logger,
  });
  const created = await createCatalogTopics(config, kafka, logger);
  console.log(created.length === 0 ? 'all topics exist' : `created ${created.join(', ')}`);
  return 0;
}
