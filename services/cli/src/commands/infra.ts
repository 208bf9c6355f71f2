// `lattice infra up|down|status`: the local Kafka, Redis and PostgreSQL Lattice runs on.
// `down` stops only what `up` (or `lattice start`) started; services that were already running
// are left alone. `up --brokers 3` runs Kafka as a cluster of three KRaft nodes
// (docs/operations.md "A three-broker cluster").
import { clusterBrokers, clusterNodes, ensureInfra, infraStatus, stopInfra } from '@lattice/infra';
import type { CommandContext } from '../context.ts';

export interface InfraOptions {
  /** `--brokers N`. */
  brokers?: string | undefined;
  /** `--controller-ports P1,P2,…`: a cluster's controller ports (default: client ports + 100). */
  controllerPorts?: string | undefined;
}

function ports(text: string, what: string): number[] {
  const values = text.split(',').map((v) => Number(v.trim()));
  if (values.some((n) => !Number.isInteger(n) || n < 1 || n > 65535))
    throw new Error(`${what} must be comma-separated ports, got "${text}"`);
  return values;
}

export async function runInfra(
  { config, logger }: CommandContext,
  action: string | undefined,
  opts: InfraOptions = {},
): Promise<number> {
  if (action !== 'up' && (opts.brokers !== undefined || opts.controllerPorts !== undefined)) {
    console.error('lattice infra: --brokers and --controller-ports apply to `up` only');
    return 2;
  }
  switch (action) {
    case 'up': {
      let brokerCount: number | undefined;
      let controllerPorts: number[] | undefined;
      let brokers = config.kafkaBrokers;
      try {
        if (opts.brokers !== undefined) {
          brokerCount = Number(opts.brokers);
          if (!Number.isInteger(brokerCount) || brokerCount < 1 || brokerCount > 16)
            throw new Error(`--brokers must be an integer from 1 to 16, got "${opts.brokers}"`);
        }
        if (opts.controllerPorts !== undefined)
          controllerPorts = ports(opts.controllerPorts, '--controller-ports');
        const count = brokerCount ?? brokers.length;
        if (count > 1) brokers = clusterBrokers(clusterNodes(brokers, count, controllerPorts));
      } catch (err) {
        console.error(`lattice infra: ${(err as Error).message}`);
        return 2;
      }
      const r = await ensureInfra({
        config,
        logger,
        searchPath: process.env.PATH ?? '',
        ...(brokerCount === undefined ? {} : { kafkaBrokerCount: brokerCount }),
        ...(controllerPorts ? { kafkaControllerPorts: controllerPorts } : {}),
      });
      console.log(
        `infra ready in ${(r.elapsedMs / 1000).toFixed(1)} s; started: ${r.started.join(', ') || 'nothing'}; already running: ${r.reused.join(', ') || 'nothing'}`,
      );
      // The roles must name every broker, or they lose Kafka with the one they were given.
      if (brokers.join(',') !== config.kafkaBrokers.join(','))
        console.log(`KAFKA_BROKERS=${brokers.join(',')}`);
      return 0;
    }
    case 'down': {
      const r = await stopInfra({ logger });
      console.log(`stopped: ${r.stopped.join(', ') || 'nothing'}`);
      return 0;
    }
    case 'status': {
      for (const s of await infraStatus(config, { logger })) {
        const owner = s.managedPid ? `started by lattice (pid ${s.managedPid})` : 'not managed by lattice';
        const name = s.node === undefined ? s.name : `${s.name}-${s.node}`;
        console.log(`${name.padEnd(10)} ${s.address.padEnd(24)} ${s.answering ? 'up  ' : 'down'}  ${owner}`);
      }
      return 0;
    }
    default:
      console.error('usage: lattice infra up [--brokers N] [--controller-ports P,…]|down|status');
      return 2;
  }
}
