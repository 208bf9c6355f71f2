// The traffic of the broker-loss test: clients that publish realtime messages and send emails
// through the management API one request after another, each request bounded by a timeout (a
// request still unanswered then is a hang, which the test reports as a failure), every answer
// recorded with when it came.
import { sleep } from '@lattice/core';
import { type LoadTarget, type Outcome, postOutcome } from '../../support/post-outcome.ts';

export interface Load {
  /** Outcomes per realtime channel, in the order each channel's client sent them. */
  publishes: Map<string, Outcome[]>;
  /** Outcomes of the email sends, in order. */
  sends: Outcome[];
  /** Stops the clients after their request in flight; resolves when they have. */
  stop(): Promise<void>;
}

export interface LoadOptions {
  /** One client per channel, publishing where its target says (management API or edge). */
  publishers: Array<{ channel: string; target: LoadTarget }>;
  /** Pause between one channel's publishes. */
  publishGapMs: number;
  send: LoadTarget;
  /** Sends come from this domain, to `reader-<n>@example.net`. */
  domain: string;
  sendGapMs: number;
}

/** One client per channel publishing `{seq}` in order, one client sending emails. */
export function startLoad(opts: LoadOptions): Load {
  const publishes = new Map<string, Outcome[]>(opts.publishers.map((p) => [p.channel, []]));
  const sends: Outcome[] = [];
  let stopped = false;
  // A refused request is followed by the Retry-After pause a client would take (bounded, so the
  // test keeps probing the outage); the next request is a new message, not a retry.
  const pauseAfter = (o: Outcome, gapMs: number) =>
    sleep(o.status === 503 ? Math.min(Number(o.retryAfter ?? 1) * 1000, 1000) : gapMs);
  const clients = [
    ...opts.publishers.map(async ({ channel, target }) => {
      const outcomes = publishes.get(channel)!;
      for (let seq = 1; !stopped; seq++) {
        const o = await postOutcome(target, { channel, data: { seq } }, seq);
        outcomes.push(o);
        await pauseAfter(o, opts.publishGapMs);
      }
    }),
    (async () => {
      for (let seq = 1; !stopped; seq++) {
        const o = await postOutcome(
          opts.send,
          {
            from: `news@${opts.domain}`,
            to: `reader-${seq}@example.net`,
            subject: `Message ${seq}`,
            html: `<p>Message ${seq}</p>`,
          },
          seq,
        );
        sends.push(o);
        await pauseAfter(o, opts.sendGapMs);
      }
    })(),
  ];
  return {
    publishes,
    sends,
    async stop() {
      stopped = true;
      await Promise.all(clients);
    },
  };
}
