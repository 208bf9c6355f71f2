// Slow requests on every HTTP role of a real `lattice start` (docs/operations.md "Slow requests"): with
// HTTP_HEADERS_TIMEOUT_MS and HTTP_REQUEST_TIMEOUT_MS set low, the management API, the production
// edge and the production gateway each cut headers that never complete, and the edge and the
// management API a body that never arrives, with 408 and the JSON error body.
import { once } from 'node:events';
import { mkdtempSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger } from '@lattice/core';
import { testConfig, uniqueName } from '@lattice/core/testing';
import { createKafka } from '@lattice/kafka';
import { expect } from 'chai';
import { freePort, startPlatform, stopPlatform } from '../support/lattice-process.ts';

const config = testConfig();

/** Sends `bytes` and nothing more; everything the server writes until it closes the connection. */
async function sendAndWait(port: number, bytes: string): Promise<string> {
  const socket = connect(port, '127.0.0.1');
  await once(socket, 'connect');
  let text = '';
  socket.on('data', (d: Buffer) => {
    text += d.toString('utf8');
  });
  socket.write(bytes);
  await once(socket, 'close');
  return text;
}

function expect408(what: string, answer: string): void {
  expect(answer, what).to.match(/^HTTP\/1\.1 408 /);
  expect(answer, what).to.match(/\r\ncontent-type: application\/json/i);
  const body = JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)) as { error: { code: string } };
  expect(body.error.code, what).to.equal('request_timeout');
}

describe('slow requests on every HTTP role (lattice start)', function () {
  this.timeout(180_000);
  const prefix = `${uniqueName('slow')}.`;
  let platform: Awaited<ReturnType<typeof startPlatform>> | undefined;
  const ports = { management: 0, edge: 0, gateway: 0 };

  before(async () => {
    ports.management = await freePort();
    ports.edge = await freePort();
    ports.gateway = await freePort();
    const env = {
      MANAGEMENT_PORT: String(ports.management),
      PUBLIC_URL: `http://127.0.0.1:${ports.edge}`,
      PUBLIC_DEV_URL: `http://127.0.0.1:${await freePort()}`,
      GATEWAY_URL: `ws://127.0.0.1:${ports.gateway}`,
      GATEWAY_DEV_URL: `ws://127.0.0.1:${await freePort()}`,
      SMTP_SINK_PORT: String(await freePort()),
      INBOUND_SMTP_PORT: String(await freePort()),
      REDIS_KEY_PREFIX: `${uniqueName('slow')}:`,
      LATTICE_DATA_DIR: mkdtempSync(join(tmpdir(), 'lattice-slow-')),
      KAFKA_TOPIC_PREFIX: prefix,
      HTTP_HEADERS_TIMEOUT_MS: '500',
      HTTP_REQUEST_TIMEOUT_MS: '1000',
    };
    platform = await startPlatform(env);
  });
  after(async () => {
    if (platform) await stopPlatform(platform.child);
    const kafka = createKafka({
      brokers: config.kafkaBrokers,
      clientId: 'slow-requests-test',
      logger: createLogger({ name: 't', level: 'silent' }),
    });
    const admin = kafka.admin();
    await admin.connect();
    const mine = (await admin.listTopics()).filter((t) => t.startsWith(prefix));
    if (mine.length > 0) await admin.deleteTopics({ topics: mine });
    await admin.disconnect();
  });

  it('cuts headers that never complete on the management API, the edge and the gateway', async function () {
    // Node's own cuts (60 s for headers, 300 s for a request) come after this: only the
    // configured ones answer in time.
    this.timeout(30_000);
    for (const [role, port] of Object.entries(ports)) {
      expect408(role, await sendAndWait(port, 'GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: '));
    }
  });

  it('cuts a body that never arrives on the management API (after its credential passed) and on the edge', async function () {
    this.timeout(30_000);
    const banner = platform!.output();
    const token = /owner_token\s+(lmt_[0-9a-f]{32})/.exec(banner)?.[1];
    const productId = /product_id\s+(\S+)/.exec(banner)?.[1];
    expect(token, banner).to.be.a('string');
    const slowBody = (path: string, type: string, auth: string) =>
      `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n${auth}` +
      `Content-Type: ${type}\r\nContent-Length: 100\r\n\r\n{"a":`;
    expect408(
      'management',
      await sendAndWait(
        ports.management,
        slowBody('/mail/emails', 'application/json', `Authorization: Bearer ${token}\r\n`),
      ),
    );
    // The one-click unsubscribe reads its form before it checks the link's token.
    expect408(
      'edge',
      await sendAndWait(
        ports.edge,
        slowBody(`/${productId}/mail/unsubscribe/x`, 'application/x-www-form-urlencoded', ''),
      ),
    );
  });

  it('serves the same requests sent whole', async () => {
    const res = await fetch(`http://127.0.0.1:${ports.management}/healthz`);
    expect(res.status).to.equal(200);
  });
});
