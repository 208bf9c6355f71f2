// The per-product publish quota (spec "Publish quota": fixed 10 s windows, only crossing the hard
// limit is refused, 429 with Retry-After = whole seconds until the window rolls, plus RateLimit
// headers), with a deployment's small numbers and at the real default of 1100 per window; and
// the edge's per-IP limit applying beside it. A manual clock holds the window still.
import { ManualClock, noteInTestLog } from '@lattice/core/testing';
import { expect } from 'chai';
import {
  type Answer,
  callers,
  createRealtimeHttpBase,
  errorOf,
  type HistoryBody,
  publicKey,
  putNamespace,
  type RealtimeHttpBase,
  waitForHistory,
} from './realtime-http/harness.ts';

const WINDOW_MS = 10_000;
/** 2.5 s into an aligned window: 7.5 s until it rolls, so Retry-After is 8. */
const midWindow = () => new ManualClock(Math.floor(Date.now() / WINDOW_MS) * WINDOW_MS + 2_500);

async function inParallel<T>(
  count: number,
  concurrency: number,
  run: (i: number) => Promise<T>,
): Promise<T[]> {
  const out: T[] = new Array(count);
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        const i = next++;
        out[i] = await run(i);
      }
    }),
  );
  return out;
}

function expectQuotaRefusal(answer: Answer, who: string, limit: number): void {
  expect(answer.status, who).to.equal(429);
  expect(errorOf(answer), who).to.include({ code: 'publish_quota_exceeded', step: 'publish_quota' });
  expect(Number(answer.headers.get('retry-after')), who).to.equal(8);
  expect(answer.headers.get('ratelimit-policy'), who).to.contain(`"publish";q=${limit};w=10`);
  expect(answer.headers.get('ratelimit'), who).to.contain('"publish";r=0;t=8');
}

describe('realtime publish quota over HTTP', function () {
  this.timeout(180_000);
  let base: RealtimeHttpBase;

  before(async () => {
    base = await createRealtimeHttpBase('rt-quota');
  });
  after(async () => base?.close());

  it('deployment numbers (hard limit 5): the 5th publish in a window passes, the 6th is 429; the next window passes again', async () => {
    const clock = midWindow();
    const stack = await base.startStack({
      quota: { sustainedPerSecond: 0, windowMs: WINDOW_MS, burstPerWindow: 2, hardLimitPerWindow: 5 },
      clock,
    });
    // One product per caller: the quota is the product's, whichever surface publishes.
    for (let k = 0; k < 3; k++) {
      const product = await base.newProduct(stack.management);
      await putNamespace(stack, product, 'chat', { history_window_seconds: 0 });
      const c = callers(stack, product, await publicKey(stack, product))[k]!;
      clock.set(Math.floor(clock.nowMs() / WINDOW_MS) * WINDOW_MS + 2_500);
      for (let i = 1; i <= 5; i++) {
        const answer = await c.publish({ channel: 'chat:room', data: i });
        expect(answer.status, `${c.name} publish ${i}`).to.equal(202);
        expect(answer.headers.get('ratelimit'), c.name).to.contain(`"publish";r=${5 - i};t=8`);
      }
      expectQuotaRefusal(await c.publish({ channel: 'chat:room', data: 6 }), c.name, 5);
      // Refused publishes take nothing: still refused, still 0 remaining.
      expectQuotaRefusal(await c.publish({ channel: 'chat:room', data: 7 }), c.name, 5);
      clock.advance(7_500);
      const nextWindow = await c.publish({ channel: 'chat:room', data: 'next window' });
      expect(nextWindow.status, c.name).to.equal(202);
      expect(nextWindow.headers.get('ratelimit'), c.name).to.contain('"publish";r=4;t=10');
    }
  });

  it('the default quota: the 1100th publish in a window passes, the 1101st is 429 with Retry-After ≥ 1', async () => {
    const stack = await base.startStack({ clock: midWindow() });
    const product = await base.newProduct(stack.management);
    await putNamespace(stack, product, 'bulk', { history_window_seconds: 600 });
    const [viaEdge, viaOwner] = callers(stack, product, await publicKey(stack, product));
    const started = Date.now();
    const answers = await inParallel(1100, 32, (i) =>
      (i % 2 ? viaOwner! : viaEdge!).publish({ channel: 'bulk:stream', data: { i } }),
    );
    const statuses = answers.map((a) => a.status);
    expect(
      statuses.filter((s) => s !== 202),
      JSON.stringify(answers.find((a) => a.status !== 202)?.body),
    ).to.deep.equal([]);
    const remaining = answers.map((a) => /"publish";r=(\d+)/.exec(a.headers.get('ratelimit') ?? '')?.[1]);
    expect(remaining).to.include('0'); // the 1100th saw nothing left
    for (const c of [viaEdge!, viaOwner!])
      expectQuotaRefusal(await c.publish({ channel: 'bulk:stream', data: 'x' }), c.name, 1100);
    const history = await waitForHistory(
      stack,
      product.ownerToken,
      'bulk:stream',
      (h) => h.top_offset === 1100,
      {
        query: 'last_n=1',
        timeoutMs: 60_000,
      },
    );
    expect((history as HistoryBody).data.map((e) => e.offset)).to.deep.equal([1100]);
    const elapsedMs = Date.now() - started;
    noteInTestLog(`1100 publishes through edge and management in ${elapsedMs} ms, all in history`, {
      elapsedMs,
    });
  });

  it('at the edge the per-IP limit applies beside the quota', async () => {
    // Inside one minute, 20 s before it rolls: the four requests share one per-IP window.
    const edgeClock = new ManualClock(Math.floor(Date.now() / 60_000) * 60_000 + 40_000);
    const stack = await base.startStack({ perIpRequestsPerMinute: 3, edgeClock });
    const product = await base.newProduct(stack.management);
    await putNamespace(stack, product, 'chat', { history_window_seconds: 0 });
    // Accepted on another stack's edge first, so no probe counts against this edge's 3.
    const other = await base.startStack();
    const key = await publicKey(other, product);
    // This edge hears of no key change (a key space of its own): it loads the key now.
    await stack.edges.production.snapshots.reload();
    const viaEdge = callers(stack, product, key)[0]!;
    const answers: Answer[] = [];
    for (let i = 0; i < 4; i++) answers.push(await viaEdge.publish({ channel: 'chat:room', data: i }));
    expect(answers.slice(0, 3).map((a) => a.status)).to.deep.equal([202, 202, 202]);
    expect(answers[0]!.headers.get('ratelimit-policy')).to.match(
      /^"per-ip";q=3;w=60, "publish";q=1100;w=10$/,
    );
    expect(answers[3]!.status).to.equal(429);
    expect(errorOf(answers[3]!)).to.include({ code: 'rate_limited', step: 'per_ip_limit' });
  });
});
