// lattice: the Lattice WebSocket gateway, fed over Redis pub/sub exactly as the channel actors
// feed it (the runner publishes the fan-out encoding on `fanOutChannel`). NOT WIRED YET: the
// gateway (services/gateway) is being written; until then this start throws and the runner
// skips the variant with a line saying why.
//
// To wire it (the gateway engineer), replace the throw with, in this order:
//   1. Config and shared services as test/bench/edge/bench-server.ts does for the edge:
//        const config = loadConfig(process.env, { databaseUrl: args.databaseUrl,
//          redisUrl: args.redisUrl, redisKeyPrefix: args.redisKeyPrefix, logLevel: 'warn', … });
//        await ensureDatabase(args.databaseUrl, { logger });   // @lattice/infra; the runner does
//        const db = createDb({ databaseUrl: args.databaseUrl, logger });  // not touch PostgreSQL
//        await migrateLatest(db, logger);                       // for the baselines
//        const shared = createRoleShared({ config, logger, registry: new Registry(), db });
//   2. A product with a `bench` namespace in the production environment and a realtime token
//      for it granting `subscribe` on `bench:*` (long `exp`: a run lasts minutes), minted the way
//      the token endpoint mints it (bootstrapProduct + the namespace repository as
//      test/bench/publish/run.ts does; the token via @lattice/realtime's token minting).
//   3. The gateway role: const role = gatewayRole('production');
//        const gateway = await role.start(role.configOf(config), shared);
//   4. Return:
//        ready: {
//          url: gateway.url (ws://127.0.0.1:<port>),
//          feed: { kind: 'lattice-fanout', redisKeyPrefix: args.redisKeyPrefix, productId },
//          client: { protocol: 'ws-json', token },   // load clients send auth, then subscribe
//          channelPrefix: 'bench:',                  // channels the token grants
//          latency: { publishUrl, headers },         // when args.latencyHook, with edge + actors (below)
//        },
//        stop: gateway.close(), shared.close(), db.destroy()
//   For the latency phase (publish over HTTP → browser; the runner sets args.latencyHook for the
//   variants in BENCH_LATENCY_VARIANTS, lattice by default), also start the actors role and the
//   production edge in this process or two more children (as test/bench/publish/bench-server.ts
//   does, publish quota and per-IP limit raised), and return `latency: { publishUrl:
//   `${edge.url}/${productId}/realtime/messages`, headers: { authorization: `Bearer ${publicKey}`,
//   'content-type': 'application/json' } }`. The runner posts `{"channel":"bench:lat-c<i>",
//   "data":{"t":<epoch ms>,"i":<n>}}` at 1 000/s to 100 fresh channels with 10 subscribers each
//   and expects a 2xx; the channel actor must then give them offsets dense from 1 (fresh
//   channels), which the load clients check. Use your own Kafka topic prefix for the run.
//   The memory phase needs nothing more: the runner starts a fresh server from this file (its
//   own redisKeyPrefix ending `-mem:`) and opens 10 000 connections with the connect step above
//   (auth, then one subscribe each, to `bench:mem-c0` … `bench:mem-c99`).
//   Everything the server logs goes to stderr; keep the log level at warn.
import { runServerChild } from './server-child.ts';

runServerChild(async () => {
  throw new Error('not wired yet: the gateway role (@lattice/gateway) is not in this branch');
});
