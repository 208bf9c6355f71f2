// The accept path when Kafka cannot take the record (a broker that is not there): the answer is
// 503 send_unavailable with Retry-After, and the email row and its Idempotency-Key claim are
// withdrawn, so nothing is left queued without its record and the client's retry with the same
// key is free to send. Real PostgreSQL; the producer points at a closed port.
import { createServer } from 'node:net';
import { ApiError, createLogger, parseSecretKeys } from '@lattice/core';
import { testConfig, uniqueName } from '@lattice/core/testing';
import { createGroupCommitPublisher, createKafka, createRecordProducer } from '@lattice/kafka';
import { createMemoryRateLimiter } from '@lattice/redis';
import { bootstrapProduct, createDb, type Db, migrateLatest } from '@lattice/store';
import { expect } from 'chai';
import { createPostgresDomainStore } from '../domains/domain-store.postgres.ts';
import { createMailEventPublisher } from '../events/mail-event.ts';
import { createPostgresSuppressionStore } from '../suppression/suppression-store.postgres.ts';
import { createEmailAcceptor, sendRatePolicy } from './email-acceptor.ts';
import { mailOutboundCodec } from './outbound-record.ts';

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('mail accept with Kafka unavailable (PostgreSQL)', function () {
  this.timeout(30_000);
  const config = testConfig();
  const logger = createLogger({ name: 'acceptor', level: 'silent' });
  let db: Db;
  let productId: string;
  const domain = `${uniqueName('down')
    .replace(/[^a-z0-9]/gi, '')
    .toLowerCase()}.example.test`;

  before(async () => {
    db = createDb({ databaseUrl: config.databaseUrl });
    await migrateLatest(db, logger);
    productId = (await bootstrapProduct(db, { name: uniqueName('mail-down'), verifiedDomain: domain }))
      .product_id;
  });
  after(() => db?.destroy());

  it('answers 503 send_unavailable and keeps neither the email nor its Idempotency-Key', async () => {
    const kafka = createKafka({ brokers: [`127.0.0.1:${await closedPort()}`], clientId: 'down', logger });
    const producer = () => createRecordProducer(kafka);
    const acceptor = createEmailAcceptor({
      db,
      domains: createPostgresDomainStore(db, { keyring: parseSecretKeys(testConfig().secretKeys) }),
      suppressions: createPostgresSuppressionStore(db),
      sendRate: createMemoryRateLimiter({ policy: sendRatePolicy(10) }),
      outbound: createGroupCommitPublisher({
        producer,
        topic: 'nowhere',
        codec: mailOutboundCodec(),
        logger,
        timeoutMs: 500,
      }),
      events: createMailEventPublisher({ producer, topic: 'nowhere', logger, timeoutMs: 500 }),
      clock: { nowMs: () => Date.now() },
      logger,
    });
    const refusal = await acceptor
      .send({
        productId,
        environment: 'production',
        body: { from: `news@${domain}`, to: 'bob@example.net', subject: 'Hi', html: '<p>x</p>' },
        idempotencyKey: 'retry-me',
      })
      .then(
        () => null,
        (err: unknown) => err,
      );
    expect(refusal).to.be.instanceOf(ApiError);
    expect(refusal as ApiError).to.include({ status: 503, code: 'send_unavailable' });
    expect((refusal as ApiError).headers).to.include({ 'Retry-After': '1' });
    expect(await db('mail_emails').where({ product_id: productId })).to.have.length(0);
    expect(await db('mail_idempotency_keys').where({ product_id: productId })).to.have.length(0);
  });
});
