import { fork } from 'node:child_process';
import { createCatalogTopics } from '@lattice/actors';
import { createRoleShared } from '@lattice/cli';
import { createLogger, loadConfig, newId } from '@lattice/core';
import { createPostgresNamespaceRepository } from '@lattice/realtime';
import { fanOutChannelPattern } from '@lattice/redis';
import { bootstrapProduct, createDb, migrateLatest } from '@lattice/store';
import { Redis } from 'ioredis';
import { Registry } from 'prom-client';

const logger = createLogger({ name: 'exp', level: 'error' });
const kafkaTopicPrefix = `exp-${newId().slice(0, 8)}.`;
const redisKeyPrefix = `exp-${newId().slice(0, 8)}:`;
const databaseUrl = 'postgres://postgres@127.0.0.1:5432/lattice_bench';
const config = loadConfig(process.env, { databaseUrl, redisKeyPrefix, kafkaTopicPrefix, logLevel: 'warn' });
const db = createDb({ databaseUrl, logger });
await migrateLatest(db, logger);
const shared = createRoleShared({ config, logger, registry: new Registry(), db });
await createCatalogTopics(config, shared.kafka('t'), logger);
const { product_id: productId, owner_token: token } = await bootstrapProduct(db, { name: `exp-${newId()}` });
await createPostgresNamespaceRepository(db).put(productId, 'bench', {
  presence: false,
  clientEvents: false,
  historyWindowSeconds: 3600,
  archiveDays: 0,
});
const platform = fork(
  new URL('./lattice-platform.ts', import.meta.url),
  [JSON.stringify({ databaseUrl, redisUrl: config.redisUrl, redisKeyPrefix, kafkaTopicPrefix })],
  { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'ignore', 'inherit', 'ipc'] },
);
const url = await new Promise<string>((r) =>
  platform.once('message', (m: { managementUrl: string }) => r(m.managementUrl)),
);
const sub = new Redis(config.redisUrl);
const lat: number[] = [];
sub.on('pmessage', (_p, _c, text: string) => {
  const t = JSON.parse(text).data.t as number;
  lat.push(Date.now() - t);
});
await sub.psubscribe(fanOutChannelPattern(redisKeyPrefix, productId, 'production', 'bench:'));
await new Promise((r) => setTimeout(r, 5000));
const acks: number[] = [];
const start = Date.now();
let i = 0;
const seconds = Number(process.env.SECS ?? 10);
while (i < 1000 * seconds) {
  const due = start + i;
  const wait = due - Date.now();
  if (wait > 0) await new Promise((r) => setTimeout(r, wait));
  const t = Date.now();
  const n = i++;
  void fetch(`${url}/realtime/messages`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ channel: `bench:c${n % 100}`, data: { t } }),
  }).then((r) => {
    acks.push(Date.now() - t);
    return r.text();
  });
}
await new Promise((r) => setTimeout(r, 8000));
const q = (a: number[], p: number) => [...a].sort((x, y) => x - y)[Math.floor(a.length * p)];
console.log('acks', acks.length, 'p50', q(acks, 0.5), 'p99', q(acks, 0.99));
console.log('fanout', lat.length, 'p50', q(lat, 0.5), 'p99', q(lat, 0.99));
const first = lat.slice(0, 1000),
  last = lat.slice(-1000);
console.log('first sec p50', q(first, 0.5), 'last sec p50', q(last, 0.5));
platform.send({ type: 'stop' });
await shared.close();
await db.destroy();
sub.disconnect();
process.exit(0);
