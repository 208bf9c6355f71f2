// Composition root of the `lattice` command: reads configuration once and dispatches.
import { parseArgs } from 'node:util';
import { ConfigError, createLogger, loadConfig, SecretKeyError } from '@lattice/core';
import { runBootstrap } from './commands/bootstrap.ts';
import { runInfra } from './commands/infra.ts';
import { runMcp } from './commands/mcp.ts';
import { runMigrate } from './commands/migrate.ts';
import { runSecrets } from './commands/secrets.ts';
import { ROLES, runStart } from './commands/start.ts';
import { runTopics, runTopicsScale } from './commands/topics.ts';

const USAGE = `lattice <command>

  start [ROLE] [--env ENV]           start every role (infra included), or one of: ${ROLES.join(', ')}
                                     (an edge or a gateway runs one environment: --env production|development)
  bootstrap --product NAME [--verified-domain DOMAIN]
                                     create a product, its owner and an owner token; prints JSON
  bootstrap --product-id ID --role owner|admin|member [--name NAME]
                                     add a member to a product with its first token; prints JSON
  migrate                            apply database migrations
  topics                             create the Kafka topics of the catalog
  topics scale NAME --partitions N   grow a catalog topic (e.g. realtime.channel-commands) while the
                                     platform runs: drain and switch (docs/operations.md); JSON last
  infra up [--brokers N]|down|status local Kafka, Redis and PostgreSQL; --brokers 3 runs Kafka as
                                     three KRaft brokers at the addresses of KAFKA_BROKERS (three
                                     listed, or consecutive ports from one)
  mcp                                the management API's agent tools over stdio (MCP), with the
                                     credential of LATTICE_API_KEY against LATTICE_BASE_URL
  secrets generate [--kid KID]       print a fresh kid:secret entry for LATTICE_SECRET_KEYS
  secrets reseal [--batch-size N]    after a rotation, re-seal every sealed value (webhook secrets,
                                     DKIM keys) under the current kid; JSON last

Configuration comes from the environment (see README: Configuration).`;

/** Set by commands that run until stopped: they exit once stopped (see the end of this file). */
let exitWhenDone = false;

async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      product: { type: 'string' },
      'product-id': { type: 'string' },
      role: { type: 'string' },
      name: { type: 'string' },
      'verified-domain': { type: 'string' },
      env: { type: 'string' },
      partitions: { type: 'string' },
      brokers: { type: 'string' },
      'controller-ports': { type: 'string' },
      kid: { type: 'string' },
      'batch-size': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  const [command, ...rest] = positionals;
  if (values.help || !command) {
    console.log(USAGE);
    return command || values.help ? 0 : 2;
  }
  const config = loadConfig(process.env);
  const logger = createLogger({ name: `lattice-${command}`, level: config.logLevel, destination: 'stderr' });
  const ctx = { config, logger };
  switch (command) {
    case 'start':
      exitWhenDone = true;
      return runStart(ctx, rest[0], { env: values.env });
    case 'bootstrap':
      return runBootstrap(ctx, {
        product: values.product,
        verifiedDomain: values['verified-domain'],
        productId: values['product-id'],
        role: values.role,
        name: values.name,
      });
    case 'migrate':
      return runMigrate(ctx);
    case 'topics':
      return rest[0] === 'scale' ? runTopicsScale(ctx, rest[1], values.partitions) : runTopics(ctx);
    case 'infra':
      return runInfra(ctx, rest[0], { brokers: values.brokers, controllerPorts: values['controller-ports'] });
    case 'mcp':
      return runMcp(ctx);
    case 'secrets':
      return runSecrets(ctx, rest[0], { kid: values.kid, batchSize: values['batch-size'] });
    default:
      console.error(`unknown command "${command}"\n\n${USAGE}`);
      return 2;
  }
}

try {
  const code = await main(process.argv.slice(2));
  // A stopped `lattice start` has closed everything it opened, and exits now rather than when
  // the event loop drains: a handle a library left behind (a reconnect timer to a broker that
  // died) must not keep a SIGTERMed host alive past its stop. Logs are flushed on exit.
  if (code !== 0 || exitWhenDone) process.exit(code);
} catch (err) {
  // Bad configuration or arguments, a keyring that does not parse: a message, never a stack.
  if (
    err instanceof ConfigError ||
    err instanceof SecretKeyError ||
    (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')
  ) {
    console.error(`lattice: ${(err as Error).message}`);
    process.exit(2);
  }
  throw err;
}
