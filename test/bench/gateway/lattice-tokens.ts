// The integrator's backend of the Lattice variant, in a child process of its own (so minting
// thousands of tokens does not count as the gateway's CPU or memory): POST `{"channel"}` answers
// `{"token"}`, a delegated token granting `subscribe` on that channel, minted by the realtime
// token service as the edge's token route mints it.
import { createServer } from 'node:http';
import { createRoleShared } from '@lattice/cli';
import { createLogger, loadConfig } from '@lattice/core';
import { createDb } from '@lattice/store';
import { Registry } from 'prom-client';

export interface TokenServerArgs {
  databaseUrl: string;
  redisUrl: string;
  productId: string;
}

const args = JSON.parse(process.argv[2] ?? '{}') as TokenServerArgs;

async function main(): Promise<void> {
  const config = loadConfig(process.env, {
    databaseUrl: args.databaseUrl,
    redisUrl: args.redisUrl,
    logLevel: 'warn',
  });
  const logger = createLogger({ name: 'bench-gateway-tokens', level: 'error' });
  const db = createDb({ databaseUrl: config.databaseUrl, logger, poolMax: 10 });
  const shared = createRoleShared({ config, logger, registry: new Registry(), db });
  const tokens = shared.realtime().tokens;
  const server = createServer(async (req, res) => {
    let body = '';
    for await (const chunk of req) body += chunk;
    try {
      const { channel } = JSON.parse(body) as { channel: string };
      const issued = await tokens.issue({
        productId: args.productId,
        environment: 'production',
        body: { subject: 'bench', channels: [{ name: channel, ops: ['subscribe'] }], ttlSeconds: 3600 },
      });
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ token: issued.token }));
    } catch (err) {
      res.writeHead(400).end(String(err));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  process.on('message', async (m: { type: string }) => {
    if (m.type !== 'stop') return;
    server.close();
    await shared.close();
    await db.destroy();
    process.exit(0);
  });
  process.send?.({ type: 'ready', url: `http://127.0.0.1:${(server.address() as { port: number }).port}/` });
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
