// A publish that waits for its offset (`Prefer: return=representation`), end to end on both
// surfaces (edge with a public key, management with an owner token and an rtk_ key, and the
// agent tool): 201 {id, channel, offset, epoch} with Preference-Applied once the channel actor
// applied the message, equal to what history then shows; nothing changes without the preference;
// an Idempotency-Key repeat answers what the first answered. With no channel actor running (a
// crash between produce and apply), the wait runs on a ManualScheduler: the answer is still
// pending 1 ms before the wait and is the usual 202 at it, and the message is applied once actors
// run, so nothing is lost.

import { sleep } from '@lattice/core';
import { ManualScheduler } from '@lattice/core/testing';
import { rawHttp } from '@lattice/http/testing';
import { TOPIC_CATALOG, topicName } from '@lattice/kafka';
import { fanOutChannel } from '@lattice/redis';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { expect } from 'chai';
import { waitUntil } from '../support/wait-until.ts';
import {
  type Answer,
  callers,
  type HistoryBody,
  type RealtimeHttpProduct,
  startRealtimeHttpProduct,
  waitForHistory,
} from './realtime-http/harness.ts';

interface Published {
  id: string;
  channel: string;
  offset: number;
  epoch: string;
}

const REPRESENTATION = { prefer: 'return=representation' };
const slug = (name: string) => name.replace(/[^a-z0-9]+/gi, '-').toLowerCase();

/** The entry of `id` in a history answer. */
function entryOf(history: HistoryBody, id: string) {
  const entry = history.data.find((e) => e.id === id);
  if (!entry) throw new Error(`message ${id} is not in history`);
  return entry;
}

describe('realtime publishing that waits for its offset (Prefer: return=representation)', function () {
  this.timeout(120_000);

  describe('with channel actors running', () => {
    let rt: RealtimeHttpProduct;

    before(async () => {
      rt = await startRealtimeHttpProduct('rt-wait', { chat: { history_window_seconds: 3600 } });
    });
    after(async () => rt?.base.close());

    it('answers 201 {id, channel, offset, epoch} with Preference-Applied, as history then shows it, on both surfaces', async () => {
      for (const c of callers(rt.stack, rt.product, rt.key)) {
        const channel = `chat:wait-${slug(c.name)}`;
        const answers: Array<Answer<Published>> = [];
        for (const n of [1, 2, 3])
          answers.push((await c.publish({ channel, data: { n } }, REPRESENTATION)) as Answer<Published>);
        for (const a of answers) {
          expect(a.status, `${c.name}: ${JSON.stringify(a.body)}`).to.equal(201);
          expect(a.body).to.have.keys(['id', 'channel', 'offset', 'epoch']);
          expect(a.body.channel).to.equal(channel);
          expect(a.headers.get('preference-applied'), c.name).to.equal('return=representation');
          // The publish quota's fields are there as on every publish answer.
          expect(a.headers.get('ratelimit-policy'), c.name).to.contain('"publish"');
        }
        expect(
          answers.map((a) => a.body.offset),
          c.name,
        ).to.deep.equal([1, 2, 3]);
        // Applied means committed: history has each message at the place the answer named.
        const history = await waitForHistory(
          rt.stack,
          rt.product.ownerToken,
          channel,
          (h) => h.data.length === 3,
          {
            timeoutMs: 1,
          },
        );
        for (const a of answers) {
          expect(entryOf(history, a.body.id), c.name).to.include({
            offset: a.body.offset,
            epoch: a.body.epoch,
          });
        }
        expect(history.epoch).to.equal(answers[0]!.body.epoch);
      }
    });

    it('without the preference, or with another (return=minimal, respond-async), answers 202 {id, channel} and no Preference-Applied', async () => {
      for (const c of callers(rt.stack, rt.product, rt.key)) {
        const variants: Array<Record<string, string>> = [
          {},
          { prefer: 'return=minimal' },
          { prefer: 'respond-async, wait=1' },
        ];
        for (const headers of variants) {
          const a = await c.publish({ channel: `chat:plain-${slug(c.name)}`, data: 1 }, headers);
          const what = `${c.name} ${JSON.stringify(headers)}`;
          expect(a.status, what).to.equal(202);
          expect(a.body, what).to.have.keys(['id', 'channel']);
          expect(a.headers.has('preference-applied'), what).to.equal(false);
        }
      }
    });

    it('reads the preference from several Prefer headers, in any case, with a wait', async () => {
      const edgePort = Number(new URL(rt.stack.edges.production.url).port);
      const managementPort = Number(new URL(rt.stack.management.url).port);
      const requests = [
        [edgePort, `/${rt.product.productId}/realtime/messages`, rt.key, 'chat:several-edge'],
        [managementPort, '/realtime/messages', rt.product.rtkKey, 'chat:several-management'],
      ] as const;
      for (const [port, path, credential, channel] of requests) {
        const body = JSON.stringify({ channel, data: 'x' });
        const answer = await rawHttp(
          port,
          `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${credential}\r\n` +
            'Content-Type: application/json\r\nPREFER: Return=Representation\r\nprefer: WAIT=3\r\n' +
            `Connection: close\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
          10_000,
        );
        expect(answer.status, answer.text).to.equal(201);
        expect(answer.headers['preference-applied']).to.equal('return=representation');
        expect(answer.json).to.include({ channel, offset: 1 });
      }
    });

    it('Idempotency-Key: a repeat of a publish answered 201 answers the same 201; of one answered 202, 202', async () => {
      for (const c of callers(rt.stack, rt.product, rt.key)) {
        const channel = `chat:idem-${slug(c.name)}`;
        const waited = { ...REPRESENTATION, 'idempotency-key': `waited-${channel}` };
        const first = await c.publish({ channel, data: 'once' }, waited);
        expect(first.status, c.name).to.equal(201);
        for (const headers of [waited, { 'idempotency-key': waited['idempotency-key'] }]) {
          const again = await c.publish({ channel, data: 'once' }, headers);
          expect(again.status, c.name).to.equal(201);
          expect(again.body, c.name).to.deep.equal(first.body);
          expect(again.headers.get('preference-applied'), c.name).to.equal('return=representation');
          expect(again.headers.get('idempotent-replayed'), c.name).to.equal('true');
        }
        // A first publish answered 202: where it went is not known to its key, so repeats are 202.
        const plain = { 'idempotency-key': `plain-${channel}` };
        const accepted = await c.publish({ channel, data: 'twice?' }, plain);
        expect(accepted.status, c.name).to.equal(202);
        const repeat = await c.publish({ channel, data: 'twice?' }, { ...plain, ...REPRESENTATION });
        expect(repeat.status, c.name).to.equal(202);
        expect(repeat.body, c.name).to.deep.equal(accepted.body);
        expect(repeat.headers.has('preference-applied'), c.name).to.equal(false);
        const history = await waitForHistory(
          rt.stack,
          rt.product.ownerToken,
          channel,
          (h) => h.data.length === 2,
        );
        expect(
          history.data.map((e) => e.data),
          c.name,
        ).to.deep.equal(['once', 'twice?']);
      }
    });

    it('the agent tool realtime_message_publish takes Prefer and Idempotency-Key as arguments', async () => {
      const client = new Client({ name: 'lattice-test', version: '1.0.0' });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`${rt.stack.management.url}/mcp`), {
          requestInit: { headers: { authorization: `Bearer ${rt.product.ownerToken}` } },
        }),
      );
      try {
        const { tools } = await client.listTools();
        const tool = tools.find((t) => t.name === 'realtime_message_publish')!;
        expect(Object.keys(tool.inputSchema.properties ?? {})).to.include.members([
          'Prefer',
          'Idempotency-Key',
        ]);
        const call = async (args: Record<string, unknown>) =>
          (await client.callTool({ name: 'realtime_message_publish', arguments: args })) as {
            structuredContent?: Record<string, unknown>;
            isError?: boolean;
          };
        const channel = 'chat:agent';
        const args = { channel, data: { by: 'agent' }, Prefer: 'return=representation, wait=5' };
        const waited = await call({ ...args, 'Idempotency-Key': 'agent-1' });
        expect(waited.isError).to.not.equal(true);
        expect(waited.structuredContent).to.have.keys(['id', 'channel', 'offset', 'epoch']);
        expect(waited.structuredContent).to.include({ channel, offset: 1 });
        const again = await call({ ...args, 'Idempotency-Key': 'agent-1' });
        expect(again.structuredContent).to.deep.equal(waited.structuredContent);
        const plain = await call({ channel, data: 2 });
        expect(plain.structuredContent).to.have.keys(['id', 'channel']);
        const history = await waitForHistory(
          rt.stack,
          rt.product.ownerToken,
          channel,
          (h) => h.data.length === 2,
        );
        expect(entryOf(history, String(waited.structuredContent!.id))).to.include({
          offset: 1,
          epoch: waited.structuredContent!.epoch,
        });
      } finally {
        await client.close();
      }
    });
  });

  describe('with no channel actor running (a crash between produce and apply)', () => {
    let rt: RealtimeHttpProduct;
    let scheduler: ManualScheduler;

    before(async () => {
      scheduler = new ManualScheduler(Date.now());
      rt = await startRealtimeHttpProduct(
        'rt-wait-none',
        { chat: { history_window_seconds: 3600 } },
        { base: { actors: false }, stack: { scheduler } },
      );
    });
    after(async () => {
      // A publish a failed test left waiting ends its wait, so the servers can close.
      scheduler?.advance(60_000);
      await rt?.base.close();
    });

    /**
     * Records in the channel-commands topic: what was durably accepted. The topics are new, so a
     * partition may still be electing its leader: asked again until every partition answers.
     */
    async function producedRecords(): Promise<number> {
      const admin = rt.base.kafka.admin();
      await admin.connect();
      try {
        const topic = topicName(rt.base.config.kafkaTopicPrefix, TOPIC_CATALOG.channelCommands.name);
        for (let attempt = 1; ; attempt++) {
          try {
            const offsets = await admin.fetchTopicOffsets(topic);
            return offsets.reduce((sum, p) => sum + Number(p.high) - Number(p.low), 0);
          } catch (err) {
            if (attempt === 50) throw err;
            await sleep(200);
          }
        }
      } finally {
        await admin.disconnect();
      }
    }

    /** Whether the promise settles within `ms` of real time (the server is local). */
    const settlesWithin = (answer: Promise<unknown>, ms: number) =>
      Promise.race([answer.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), ms))]);

    /** Connections subscribed to the channel's fan-out (the gateways': none in this stack). */
    async function subscribers(channel: string): Promise<number> {
      const name = fanOutChannel(rt.base.config.redisKeyPrefix, {
        productId: rt.product.productId,
        environment: 'production',
        channel,
      });
      const [, count] = (await rt.base.redis.pubsub('NUMSUB', name)) as [string, number];
      return Number(count);
    }

    // Before any actor runs (the next test starts them).
    it('holds one subscription per channel while any publish waits on it, and drops it with the last', async () => {
      const channel = 'chat:shared';
      const [c] = callers(rt.stack, rt.product, rt.key);
      const before = await producedRecords();
      const long = c!.publish({ channel, data: 'long' }, { prefer: 'return=representation' });
      await waitUntil('the first wait', () => scheduler.pendingTimers() === 1, 10_000, 5);
      const short = c!.publish({ channel, data: 'short' }, { prefer: 'return=representation, wait=1' });
      await waitUntil(
        'both commands in Kafka',
        async () => (await producedRecords()) === before + 2,
        10_000,
        20,
      );
      // Each command is produced only once its watch is in place: one subscription for both.
      expect(scheduler.pendingTimers()).to.equal(2);
      expect(await subscribers(channel)).to.equal(1);
      scheduler.advance(1000);
      expect(await settlesWithin(short, 10_000), 'wait=1 answered at 1 s').to.equal(true);
      expect((await short).status).to.equal(202);
      // The other publish still waits on the channel: its subscription stays.
      await sleep(200);
      expect(await subscribers(channel)).to.equal(1);
      scheduler.advance(4000);
      expect(await settlesWithin(long, 10_000), 'the default wait answered at 5 s').to.equal(true);
      expect((await long).status).to.equal(202);
      await waitUntil('the subscription dropped', async () => (await subscribers(channel)) === 0, 5_000, 20);
    });

    it('answers the usual 202 exactly at the wait (5 s default, wait=2), never before; once actors run, the messages are in history', async () => {
      const published: Array<{ channel: string; id: string }> = [];
      for (const c of callers(rt.stack, rt.product, rt.key).slice(0, 2)) {
        for (const [prefer, waitMs] of [
          ['return=representation', 5000],
          ['return=representation, wait=2', 2000],
        ] as const) {
          const what = `${c.name}, ${prefer}`;
          const channel = `chat:lost-${slug(c.name)}-${waitMs}`;
          const before = await producedRecords();
          const answer = c.publish({ channel, data: { waitMs } }, { prefer });
          // The wait is on its timer, and the command is durably in Kafka; no actor applies it.
          await waitUntil(`${what}: the wait's timer`, () => scheduler.pendingTimers() === 1, 10_000, 5);
          await waitUntil(
            `${what}: the command in Kafka`,
            async () => (await producedRecords()) === before + 1,
            10_000,
            20,
          );
          // Produced only once the channel's fan-out was subscribed.
          expect(await subscribers(channel), what).to.equal(1);
          scheduler.advance(waitMs - 1);
          expect(await settlesWithin(answer, 500), `${what}: answered 1 ms before the wait`).to.equal(false);
          scheduler.advance(1);
          expect(await settlesWithin(answer, 10_000), `${what}: not answered at the wait`).to.equal(true);
          const a = await answer;
          expect(a.status, `${what}: ${JSON.stringify(a.body)}`).to.equal(202);
          expect(a.body, what).to.have.keys(['id', 'channel']);
          expect(a.headers.has('preference-applied'), what).to.equal(false);
          expect(scheduler.pendingTimers(), what).to.equal(0);
          await waitUntil(`${what}: unsubscribed`, async () => (await subscribers(channel)) === 0, 5_000, 20);
          published.push({ channel, id: (a.body as { id: string }).id });
        }
      }
      // Nothing is lost: the accepted commands wait in Kafka for the channel actors.
      await rt.base.startActors();
      for (const { channel, id } of published) {
        const history = await waitForHistory(
          rt.stack,
          rt.product.ownerToken,
          channel,
          (h) => h.data.length === 1,
        );
        expect(history.data.map((e) => e.id)).to.deep.equal([id]);
        expect(history.data[0]!.offset).to.equal(1);
      }
    });
  });
});
