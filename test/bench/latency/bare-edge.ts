// bare-pipeline, part (a): a plain Node `http` server that puts each publish into Kafka and
// answers 202 once it is there. One kafkajs idempotent producer (acks=-1, idempotent,
// maxInFlightRequests 1) and group commit: one send in flight at a time, the publishes that arrive
// meanwhile go out together in the next one, each answered when the send holding it is
// acknowledged. The record's key is the channel (its partition keeps the channel's order), its
// value the `data` JSON. Nothing else: no key check, limits, validation beyond the channel, or
// idempotency keys.
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Kafka, logLevel, Partitioners } from 'kafkajs';
import { runBareChild } from './bare-child.ts';

interface Waiting {
  id: number;
  channel: string;
  value: string;
  res: ServerResponse;
}

function answer(res: ServerResponse, status: number, body: string): void {
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

runBareChild(async (args) => {
  const kafka = new Kafka({
    clientId: 'bench-bare-edge',
    brokers: args.kafkaBrokers,
    logLevel: logLevel.ERROR,
  });
  const producer = kafka.producer({
    idempotent: true,
    maxInFlightRequests: 1,
    createPartitioner: Partitioners.DefaultPartitioner,
  });
  await producer.connect();

  let queue: Waiting[] = [];
  let sending = false;
  let nextId = 0;
  const flush = (): void => {
    if (sending || queue.length === 0) return;
    sending = true;
    const batch = queue;
    queue = [];
    producer
      .send({
        topic: args.topic,
        acks: -1,
        messages: batch.map((w) => ({ key: w.channel, value: w.value })),
      })
      .then(
        () => {
          for (const w of batch)
            answer(w.res, 202, `{"id":"${w.id}","channel":${JSON.stringify(w.channel)}}`);
        },
        () => {
          for (const w of batch) answer(w.res, 503, '{"error":"publish_unavailable"}');
        },
      )
      .finally(() => {
        sending = false;
        flush();
      });
  };

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      let body: { channel?: unknown; data?: unknown };
      try {
        body = JSON.parse(Buffer.concat(chunks).toString()) as typeof body;
      } catch {
        answer(res, 400, '{"error":"invalid_json"}');
        return;
      }
      if (req.method !== 'POST' || typeof body.channel !== 'string') {
        answer(res, 400, '{"error":"invalid"}');
        return;
      }
      queue.push({ id: ++nextId, channel: body.channel, value: JSON.stringify(body.data ?? null), res });
      flush();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    async stop() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await producer.disconnect();
    },
  };
});
