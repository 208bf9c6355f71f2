// After a phase: wait until every published message has reached every subscriber of its channel,
// then check every subscriber saw every offset of its channel once and in order (offsets are
// dense from 1 per channel, so a channel's last offset is the count published on it).
import { setTimeout as sleep } from 'node:timers/promises';
import type { Workers } from './processes.ts';

export interface DrainCheck {
  label: string;
  workers: Workers;
  channels: string[];
  /** Messages published on each channel (by index), so far. */
  published: number[];
  subscribersPerChannel: number;
  /** Deliveries counted so far for these connections. */
  delivered: () => number;
  timeoutMs: number;
}

export async function drainAndVerify(c: DrainCheck): Promise<void> {
  const expected = c.published.reduce((a, b) => a + b, 0) * c.subscribersPerChannel;
  const deadline = performance.now() + c.timeoutMs;
  while (c.delivered() < expected) {
    if (performance.now() > deadline) break;
    await sleep(20);
  }
  // The last count report may be 50 ms old.
  await sleep(120);
  const missing = expected - c.delivered();
  const checks = await c.workers.verify();
  const problems: string[] = [];
  if (missing !== 0) problems.push(`${missing} deliveries missing after ${c.timeoutMs} ms`);
  const byChannel = new Map(c.channels.map((name, i) => [name, i]));
  const subscribers = new Map<string, number>();
  for (const check of checks) {
    const top = c.published[byChannel.get(check.channel) ?? -1];
    subscribers.set(check.channel, (subscribers.get(check.channel) ?? 0) + check.clients);
    if (check.minLast !== top || check.maxLast !== top || check.gaps > 0 || check.dups > 0) {
      problems.push(
        `${check.channel}: published up to ${top}, subscribers' last offsets ${check.minLast}..${check.maxLast}, ${check.gaps} skipped, ${check.dups} repeated or out of order`,
      );
    }
  }
  for (const channel of c.channels) {
    if (subscribers.get(channel) !== c.subscribersPerChannel) {
      problems.push(
        `${channel}: ${subscribers.get(channel) ?? 0} subscribers, expected ${c.subscribersPerChannel}`,
      );
    }
  }
  if (problems.length > 0) {
    throw new Error(
      `${c.label}: delivery check failed: ${problems.slice(0, 5).join('; ')}${problems.length > 5 ? ` (+${problems.length - 5} more)` : ''}`,
    );
  }
}
