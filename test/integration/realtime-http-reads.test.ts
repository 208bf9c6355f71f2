// History and presence reads at both sides of every bound, through the edge and the management
// API: last_n 1 / 1000 pass, 0 / 1001 are 400; last_ms 1 passes, 0 is 400; half cursors, a
// cursor with a window, two windows and neither are 400 naming the fields; a namespace with
// history off answers an empty result; presence rosters and stats.
import { newId } from '@lattice/core';
import { rawHttp } from '@lattice/http/testing';
import { createRecordProducer, loadCodec, TOPIC_CATALOG, topicName } from '@lattice/kafka';
import { channelCommandKey, presenceCommandRecord } from '@lattice/realtime';
import { expect } from 'chai';
import {
  type Caller,
  callers,
  edge,
  errorOf,
  type HistoryBody,
  type RealtimeHttpProduct,
  startRealtimeHttpProduct,
  waitForHistory,
} from './realtime-http/harness.ts';

describe('realtime history and presence reads over HTTP (edge and management)', function () {
  this.timeout(120_000);
  let rt: RealtimeHttpProduct;
  let all: Caller[];
  let epoch: string;

  before(async () => {
    rt = await startRealtimeHttpProduct('rt-reads', {
      feed: { presence: true, history_window_seconds: 3600 },
      live: { presence: false, history_window_seconds: 0 },
    });
    all = callers(rt.stack, rt.product, rt.key);
    for (let i = 1; i <= 5; i++) {
      const answer = await all[0]!.publish({ channel: 'feed:news', data: { i } });
      expect(answer.status).to.equal(202);
    }
    epoch = (await waitForHistory(rt.stack, rt.product.ownerToken, 'feed:news', (h) => h.data.length === 5))
      .epoch;
  });
  after(async () => rt?.base.close());

  const offsets = (body: unknown) => (body as HistoryBody).data.map((e) => e.offset);

  it('last_n: 1 and 1000 pass; 0 and 1001 are 400 on query.last_n', async () => {
    for (const c of all) {
      const one = await c.history('feed:news', 'last_n=1');
      expect(one.status, c.name).to.equal(200);
      expect(offsets(one.body), c.name).to.deep.equal([5]);
      const thousand = await c.history('feed:news', 'last_n=1000');
      expect(offsets(thousand.body), c.name).to.deep.equal([1, 2, 3, 4, 5]);
      for (const bad of ['0', '1001', '-1', '2.5', 'ten']) {
        const answer = await c.history('feed:news', `last_n=${bad}`);
        expect(answer.status, `${c.name} last_n=${bad}`).to.equal(400);
        expect(
          errorOf(answer).fields?.map((f) => f.path),
          `${c.name} last_n=${bad}`,
        ).to.deep.equal(['query.last_n']);
      }
    }
  });

  it('last_ms: 1 passes (a window of one millisecond), 0 and negatives are 400 on query.last_ms', async () => {
    for (const c of all) {
      const tiny = await c.history('feed:news', 'last_ms=1');
      expect(tiny.status, c.name).to.equal(200);
      expect((tiny.body as HistoryBody).recovered).to.equal(true);
      const hour = await c.history('feed:news', 'last_ms=3600000');
      expect(offsets(hour.body), c.name).to.deep.equal([1, 2, 3, 4, 5]);
      for (const bad of ['0', '-5']) {
        const answer = await c.history('feed:news', `last_ms=${bad}`);
        expect(answer.status, `${c.name} last_ms=${bad}`).to.equal(400);
        expect(errorOf(answer).fields?.map((f) => f.path)).to.deep.equal(['query.last_ms']);
      }
    }
  });

  it('a cursor: offset and epoch together answer the entries after offset; a half cursor is 400', async () => {
    for (const c of all) {
      const after2 = await c.history('feed:news', `offset=2&epoch=${epoch}`);
      expect(after2.status, c.name).to.equal(200);
      expect(offsets(after2.body), c.name).to.deep.equal([3, 4, 5]);
      const stale = await c.history('feed:news', 'offset=2&epoch=0000000000000000');
      expect((stale.body as HistoryBody).recovered, c.name).to.equal(false);
      const onlyOffset = await c.history('feed:news', 'offset=2');
      expect(onlyOffset.status).to.equal(400);
      expect(
        errorOf(onlyOffset).fields?.map((f) => f.path),
        c.name,
      ).to.deep.equal(['query.epoch']);
      const onlyEpoch = await c.history('feed:news', `epoch=${epoch}`);
      expect(onlyEpoch.status).to.equal(400);
      expect(
        errorOf(onlyEpoch).fields?.map((f) => f.path),
        c.name,
      ).to.deep.equal(['query.offset']);
    }
  });

  it('exactly one of window or cursor: cursor + window, two windows and neither are 400', async () => {
    for (const c of all) {
      const both = await c.history('feed:news', `offset=2&epoch=${epoch}&last_ms=1000`);
      expect(both.status).to.equal(400);
      expect(
        errorOf(both).fields?.map((f) => f.path),
        c.name,
      ).to.deep.equal(['query.last_ms']);
      const windows = await c.history('feed:news', 'last_n=2&last_ms=1000');
      expect(windows.status).to.equal(400);
      expect(
        errorOf(windows).fields?.map((f) => f.path),
        c.name,
      ).to.deep.equal(['query.last_ms']);
      const neither = await c.history('feed:news', '');
      expect(neither.status).to.equal(400);
      expect(
        errorOf(neither).fields?.map((f) => f.path),
        c.name,
      ).to.deep.equal(['query']);
      const unknown = await c.history('feed:news', 'last_n=1&since=3');
      expect(unknown.status).to.equal(400);
      expect(
        errorOf(unknown).fields?.map((f) => f.path),
        c.name,
      ).to.deep.equal(['query.since']);
    }
  });

  it('a namespace with history off answers an empty result, not an error', async () => {
    expect((await all[0]!.publish({ channel: 'live:ticker', data: 1 })).status).to.equal(202);
    await new Promise((r) => setTimeout(r, 300));
    for (const c of all) {
      const answer = await c.history('live:ticker', 'last_n=10');
      expect(answer.status, c.name).to.equal(200);
      expect((answer.body as HistoryBody).data, c.name).to.deep.equal([]);
      expect((answer.body as HistoryBody).recovered).to.equal(true);
    }
  });

  it('presence: roster and stats of a channel with members; empty before', async () => {
    for (const c of all) {
      const empty = await c.presence('feed:lobby');
      expect(empty.status, c.name).to.equal(200);
      expect(empty.body).to.deep.equal({ data: [] });
    }
    // A gateway stand-in enters two connections of ann and one of bob through Kafka.
    const producer = await createRecordProducer(rt.base.kafka);
    const id = { productId: rt.product.productId, environment: 'production' as const, channel: 'feed:lobby' };
    const enter = (connectionId: string, identity: string) => ({
      key: channelCommandKey(id),
      value: presenceCommandRecord(id, newId(), Date.now(), {
        action: 'enter',
        connectionId,
        identity,
        infoJson: JSON.stringify({ name: identity }),
        ttlSeconds: 60,
        gatewayId: 'gw',
      }),
    });
    await producer.send(
      topicName(rt.base.config.kafkaTopicPrefix, TOPIC_CATALOG.channelCommands.name),
      loadCodec(TOPIC_CATALOG.channelCommands.schema),
      [enter('c1', 'ext:ann'), enter('c2', 'ext:ann'), enter('c3', 'ext:bob')],
    );
    await producer.disconnect();
    const deadline = Date.now() + 20_000;
    let roster = await all[1]!.presence('feed:lobby');
    while ((roster.body as { data: unknown[] }).data.length < 2 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50));
      roster = await all[1]!.presence('feed:lobby');
    }
    for (const c of all) {
      const answer = await c.presence('feed:lobby');
      expect(answer.body, c.name).to.deep.equal({
        data: [
          { identity: 'ext:ann', connections: 2, info: { name: 'ext:ann' } },
          { identity: 'ext:bob', connections: 1, info: { name: 'ext:bob' } },
        ],
      });
    }
    const stats = await edge(
      rt.stack.edges.production,
      rt.product.productId,
      'GET',
      '/channels/feed:lobby/presence/stats',
      rt.key,
    );
    expect(stats.status).to.equal(200);
    expect(stats.body).to.deep.equal({ members: 2, connections: 3 });
    const refused = await edge(
      rt.stack.edges.production,
      rt.product.productId,
      'GET',
      '/channels/live:x/presence/stats',
      rt.key,
    );
    expect(refused.status).to.equal(403);
    expect(errorOf(refused).code).to.equal('presence_disabled');
    const unknownNs = await edge(
      rt.stack.edges.production,
      rt.product.productId,
      'GET',
      '/channels/nope:x/presence/stats',
      rt.key,
    );
    expect(unknownNs.status).to.equal(404);
  });

  it('edge: a body on a read route is refused (400 unexpected_body); over 64 KiB it is 413', async () => {
    const send = (bytes: number) =>
      rawHttp(
        rt.stack.edges.production.port,
        [
          `GET /${rt.product.productId}/realtime/channels/feed:news/history?last_n=1 HTTP/1.1`,
          'Host: 127.0.0.1',
          `Authorization: Bearer ${rt.key}`,
          'Content-Type: application/json',
          `Content-Length: ${bytes}`,
          'Connection: close',
          '',
          ' '.repeat(bytes),
        ].join('\r\n'),
      );
    const small = await send(65_536);
    expect(small.status).to.equal(400);
    expect((small.json as { error: { code: string } }).error.code).to.equal('unexpected_body');
    const over = await send(65_537);
    expect(over.status).to.equal(413);
    expect((over.json as { error: { code: string } }).error.code).to.equal('payload_too_large');
  });
});
