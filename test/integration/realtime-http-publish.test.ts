// Publishing over HTTP end to end (real Kafka, channel actors, PostgreSQL, Redis): publish via
// the edge, read via management; the request body caps (256 KiB on the edge, 16 MiB on
// management) and the inline payload cap (262 144 bytes of serialized data) at both sides;
// Idempotency-Key (one message, one id, also for concurrent duplicates); the environment choice.
import { readFile } from 'node:fs/promises';
import { PUBLISH_QUOTA_POLICY_NAME } from '@lattice/realtime';
import { closeRedis, createRedis, fanOutChannel } from '@lattice/redis';
import { expect } from 'chai';
import {
  callers,
  edge,
  errorOf,
  type HistoryBody,
  mgmt,
  paddedJson,
  publicKey,
  type RealtimeHttpProduct,
  startRealtimeHttpProduct,
  waitForHistory,
} from './realtime-http/harness.ts';

describe('realtime publishing over HTTP (edge and management, end to end)', function () {
  this.timeout(120_000);
  let rt: RealtimeHttpProduct;

  before(async () => {
    rt = await startRealtimeHttpProduct('rt-publish', {
      chat: { presence: true, history_window_seconds: 3600 },
    });
  });
  after(async () => rt?.base.close());

  const publishAtEdge = (body: unknown, headers: Record<string, string> = {}) =>
    edge<{ id: string; channel: string }>(
      rt.stack.edges.production,
      rt.product.productId,
      'POST',
      '/messages',
      rt.key,
      body,
      headers,
    );

  it('publish via the edge → 202 {id, channel} → in history via management at offsets 1, 2, 3, in order, and fanned out', async () => {
    const channel = 'chat:e2e';
    const sub = createRedis({ url: rt.base.config.redisUrl, logger: rt.base.logger, name: 'rt-publish-sub' });
    const fanned: Array<Record<string, unknown>> = [];
    sub.on('message', (_c: string, text: string) => fanned.push(JSON.parse(text) as Record<string, unknown>));
    await sub.subscribe(
      fanOutChannel(rt.base.config.redisKeyPrefix, {
        productId: rt.product.productId,
        environment: 'production',
        channel,
      }),
    );
    try {
      const ids: string[] = [];
      for (const [n, text] of ['one', 'two', 'three'].entries()) {
        const answer = await publishAtEdge({
          channel,
          data: { text },
          ...(n === 1 ? { name: 'greeting' } : {}),
        });
        expect(answer.status, JSON.stringify(answer.body)).to.equal(202);
        expect(answer.body).to.have.keys(['id', 'channel']);
        expect(answer.body.channel).to.equal(channel);
        expect(answer.headers.get('ratelimit-policy')).to.contain(
          `"${PUBLISH_QUOTA_POLICY_NAME}";q=1100;w=10`,
        );
        ids.push(answer.body.id);
      }
      const history = await waitForHistory(
        rt.stack,
        rt.product.ownerToken,
        channel,
        (h) => h.data.length === 3,
      );
      expect(history.data.map((e) => e.offset)).to.deep.equal([1, 2, 3]);
      expect(history.data.map((e) => e.id)).to.deep.equal(ids);
      expect(history.data.map((e) => e.data)).to.deep.equal([
        { text: 'one' },
        { text: 'two' },
        { text: 'three' },
      ]);
      expect(history.data[1]!.name).to.equal('greeting');
      expect(history).to.include({ top_offset: 3, recovered: true });
      // The rtk_ key reads the same history; a cursor read after offset 1 recovers 2 and 3.
      const cursor = await mgmt<HistoryBody>(
        rt.stack.management,
        'GET',
        `/realtime/channels/${channel}/history?offset=1&epoch=${history.epoch}`,
        rt.product.rtkKey,
      );
      expect(cursor.status).to.equal(200);
      expect(cursor.body.data.map((e) => e.offset)).to.deep.equal([2, 3]);
      expect(cursor.body.recovered).to.equal(true);
      const deadline = Date.now() + 10_000;
      while (fanned.length < 3 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      expect(fanned.map((m) => m.offset)).to.deep.equal([1, 2, 3]);
      expect(fanned.map((m) => m.id)).to.deep.equal(ids);
    } finally {
      await closeRedis(sub);
    }
  });

  it('edge body cap 256 KiB: exactly 262 144 bytes is accepted, 262 145 is 413', async () => {
    const at = paddedJson({ channel: 'chat:cap', data: 'x'.repeat(200_000) }, 262_144);
    const ok = await publishAtEdge(at);
    expect(ok.status, JSON.stringify(ok.body).slice(0, 200)).to.equal(202);
    const over = await publishAtEdge(`${at} `);
    expect(over.status).to.equal(413);
    expect(errorOf(over)).to.include({ code: 'payload_too_large', step: 'body_parsing' });
  });

  it('edge: the other realtime routes cap the body at 64 KiB (65 536 passes, 65 537 is 413)', async () => {
    const token = { subject: 'ann', channels: [{ name: 'chat:room', ops: ['subscribe'] }] };
    const at = await edge(
      rt.stack.edges.production,
      rt.product.productId,
      'POST',
      '/tokens/issue',
      rt.key,
      paddedJson(token, 65_536),
    );
    expect(at.status, JSON.stringify(at.body)).to.equal(200);
    const over = await edge(
      rt.stack.edges.production,
      rt.product.productId,
      'POST',
      '/tokens/issue',
      rt.key,
      paddedJson(token, 65_537),
    );
    expect(over.status).to.equal(413);
    // The same on management's token route (its default cap is the same 64 KiB).
    const mAt = await mgmt(
      rt.stack.management,
      'POST',
      '/realtime/tokens',
      rt.product.ownerToken,
      paddedJson(token, 65_536),
    );
    expect(mAt.status).to.equal(200);
    const mOver = await mgmt(
      rt.stack.management,
      'POST',
      '/realtime/tokens',
      rt.product.ownerToken,
      paddedJson(token, 65_537),
    );
    expect(mOver.status).to.equal(413);
  });

  it('management: data of 262 144 serialized bytes is inline; 262 145 is stored and delivered as a ref', async () => {
    const channel = 'chat:payloads';
    const inline = 'a'.repeat(262_142); // JSON string: 262 144 bytes with its quotes
    const stored = 'b'.repeat(262_143); // 262 145 bytes
    for (const data of [inline, stored]) {
      const answer = await mgmt(rt.stack.management, 'POST', '/realtime/messages', rt.product.ownerToken, {
        channel,
        data,
      });
      expect(answer.status, JSON.stringify(answer.body).slice(0, 200)).to.equal(202);
    }
    const history = await waitForHistory(
      rt.stack,
      rt.product.ownerToken,
      channel,
      (h) => h.data.length === 2,
    );
    const [first, second] = history.data;
    expect(first!.data).to.equal(inline);
    expect(first).to.not.have.property('ref');
    expect(second).to.not.have.property('data');
    expect(second!.ref).to.include({ size: 262_145, content_type: 'application/json' });
    // The reference names the stored JSON text of the data.
    const file = await readFile(`${rt.stack.payloadDir}/${second!.ref!.bucket_key}`, 'utf8');
    expect(JSON.parse(file)).to.equal(stored);
  });

  it('management body cap 16 MiB: exactly 16 777 216 bytes is accepted (stored as a ref), one byte more is 413', async () => {
    const cap = 16 * 1024 * 1024;
    const body = paddedJson({ channel: 'chat:huge', data: 'z'.repeat(cap - 100) }, cap);
    const ok = await mgmt(rt.stack.management, 'POST', '/realtime/messages', rt.product.ownerToken, body);
    expect(ok.status, JSON.stringify(ok.body).slice(0, 200)).to.equal(202);
    const over = await mgmt(
      rt.stack.management,
      'POST',
      '/realtime/messages',
      rt.product.ownerToken,
      `${body} `,
    );
    expect(over.status).to.equal(413);
    expect(errorOf(over).code).to.equal('payload_too_large');
  });

  it('Idempotency-Key: the same key publishes once and answers the same {id, channel}', async () => {
    for (const c of callers(rt.stack, rt.product, rt.key)) {
      const channel = `chat:idem-${c.name.replace(/[^a-z]/g, '')}`;
      const headers = { 'idempotency-key': `order-${channel}` };
      const first = await c.publish({ channel, data: { n: 1 } }, headers);
      const again = await c.publish({ channel, data: { n: 1 } }, headers);
      expect(first.status, c.name).to.equal(202);
      expect(again.status, c.name).to.equal(202);
      expect(again.body, c.name).to.deep.equal(first.body);
      expect(again.headers.get('idempotent-replayed'), c.name).to.equal('true');
      const other = await c.publish({ channel, data: { n: 2 } });
      expect(other.status).to.equal(202);
      const history = await waitForHistory(
        rt.stack,
        rt.product.ownerToken,
        channel,
        (h) => h.data.length >= 2,
      );
      await new Promise((r) => setTimeout(r, 300)); // a second copy would have landed by now
      const settled = await waitForHistory(rt.stack, rt.product.ownerToken, channel, () => true);
      expect(
        settled.data.map((e) => e.data),
        c.name,
      ).to.deep.equal([{ n: 1 }, { n: 2 }]);
      expect(history.data[0]!.id, c.name).to.equal((first.body as { id: string }).id);
      // Another channel under the same key within 5 minutes is a conflict, not a publish.
      const mismatch = await c.publish({ channel: 'chat:elsewhere', data: 1 }, headers);
      expect(mismatch.status, c.name).to.equal(409);
      expect(errorOf(mismatch).code).to.equal('idempotency_key_mismatch');
    }
  });

  it('Idempotency-Key: 20 concurrent duplicates (edge and management) publish one message', async () => {
    const channel = 'chat:concurrent';
    const headers = { 'idempotency-key': 'same-for-everyone' };
    const all = callers(rt.stack, rt.product, rt.key);
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        all[i % all.length]!.publish({ channel, data: { i: 'dup' } }, headers),
      ),
    );
    expect(answers.map((a) => a.status)).to.deep.equal(Array(20).fill(202));
    const ids = new Set(answers.map((a) => (a.body as { id: string }).id));
    expect(ids.size).to.equal(1);
    expect(answers.filter((a) => a.headers.get('idempotent-replayed') !== 'true')).to.have.length(1);
    await waitForHistory(rt.stack, rt.product.ownerToken, channel, (h) => h.data.length >= 1);
    await new Promise((r) => setTimeout(r, 500));
    const history = await waitForHistory(rt.stack, rt.product.ownerToken, channel, () => true);
    expect(history.data.map((e) => e.id)).to.deep.equal([...ids]);
  });

  it('a bad Idempotency-Key is a 400 naming the header', async () => {
    for (const c of callers(rt.stack, rt.product, rt.key)) {
      const answer = await c.publish({ channel: 'chat:x', data: 1 }, { 'idempotency-key': 'k'.repeat(256) });
      expect(answer.status, c.name).to.equal(400);
      expect(errorOf(answer).fields?.map((f) => f.path)).to.deep.equal(['headers.idempotency-key']);
    }
  });

  it('environment: the development edge and management with environment=development publish to development channels only', async () => {
    const devKey = await publicKey(rt.stack, rt.product, 'development');
    const channel = 'chat:env';
    const viaDevEdge = await edge(
      rt.stack.edges.development,
      rt.product.productId,
      'POST',
      '/messages',
      devKey,
      {
        channel,
        data: 'from the development edge',
      },
    );
    expect(viaDevEdge.status).to.equal(202);
    const viaMgmt = await mgmt(rt.stack.management, 'POST', '/realtime/messages', rt.product.ownerToken, {
      channel,
      data: 'from management',
      environment: 'development',
    });
    expect(viaMgmt.status).to.equal(202);
    const dev = await waitForHistory(rt.stack, rt.product.ownerToken, channel, (h) => h.data.length === 2, {
      environment: 'development',
    });
    expect(dev.data.map((e) => e.data)).to.deep.equal(['from the development edge', 'from management']);
    const prod = await waitForHistory(rt.stack, rt.product.ownerToken, channel, () => true);
    expect(prod).to.deep.include({ data: [], top_offset: 0, epoch: '' });
    // A development key does not open the production edge.
    const cross = await edge(rt.stack.edges.production, rt.product.productId, 'POST', '/messages', devKey, {
      channel,
      data: 1,
    });
    expect(cross.status).to.equal(401);
  });
});
