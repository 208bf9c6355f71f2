// The latency benchmark's publisher, a child process of run.ts (fork, IPC): publishes at a fixed
// rate on an open-loop schedule. Message i is due at i / rate seconds after the start and is sent
// then whatever the answers to earlier ones are doing (many in flight over a keep-alive agent),
// so a slow answer never holds the next publish back. Message i goes to channel i mod C with the
// channel's next sequence number; its data carries the send time and the channel's highest
// sequence number answered 2xx so far (what it must be delivered after). The first `rampS`
// seconds are the ramp (`p: 0`), the next `durationS` the measured phase (`p: 1`).
import { Agent } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { percentile, postOnce } from '../support/http-load.ts';
import type {
  PublishData,
  PublisherCommand,
  PublisherMessage,
  PublishPlan,
  PublishResult,
} from './messages.ts';

const send = (m: PublisherMessage) => process.send?.(m);
const nowEpochMs = () => performance.timeOrigin + performance.now();
const ANSWER_TIMEOUT_MS = 30_000;
const TEXT = 'hello from the latency benchmark';

async function run(plan: PublishPlan): Promise<PublishResult> {
  const agent = new Agent({ keepAlive: true, maxSockets: plan.sockets, scheduling: 'fifo' });
  const target = new URL(plan.url);
  const c = plan.channels.length;
  const rampCount = Math.round(plan.ratePerS * plan.rampS);
  const total = rampCount + Math.round(plan.ratePerS * plan.durationS);
  const lastSeq = new Array<number>(c).fill(0);
  const answeredSeq = new Array<number>(c).fill(0);
  const failedSeqs: number[][] = plan.channels.map(() => []);
  const statuses: Record<string, number> = {};
  const answerMs: number[] = [];
  const pending = new Set<Promise<void>>();
  let accepted = 0;
  let failed = 0;
  let answeredInPhase = 0;
  let inPhase = false;
  let sent = 0;
  let measuredStartMs = 0;
  let measuredEndMs = 0;
  let reportedAtMs = 0;
  const startedMs = performance.now();
  try {
    while (sent < total) {
      const elapsedMs = performance.now() - startedMs;
      const due = Math.min(total, Math.floor((elapsedMs / 1000) * plan.ratePerS));
      while (sent < due) {
        const i = sent++;
        if (i === rampCount) {
          measuredStartMs = performance.now();
          inPhase = true;
          send({ type: 'measuring' });
        }
        const channel = i % c;
        const seq = ++lastSeq[channel]!;
        const measured = i >= rampCount;
        const t = nowEpochMs();
        const data: PublishData = { s: seq, t, p: measured ? 1 : 0, a: answeredSeq[channel]!, text: TEXT };
        const body = JSON.stringify({ channel: plan.channels[channel], data, ...plan.bodyFields });
        // The status, or `error` when no answer came.
        const answered = postOnce(agent, target, plan.headers, body, { timeoutMs: ANSWER_TIMEOUT_MS }).then(
          (a) => a.status,
          () => 'error' as const,
        );
        const p = answered.then((status) => {
          statuses[status] = (statuses[status] ?? 0) + 1;
          if (typeof status === 'number' && status >= 200 && status < 300) {
            accepted++;
            answeredSeq[channel] = Math.max(answeredSeq[channel]!, seq);
            if (inPhase) answeredInPhase++;
            if (measured) answerMs.push(nowEpochMs() - t);
          } else {
            failed++;
            failedSeqs[channel]!.push(seq);
          }
        });
        pending.add(p);
        void p.finally(() => pending.delete(p));
      }
      if (elapsedMs - reportedAtMs >= 1000) {
        reportedAtMs = elapsedMs;
        send({ type: 'progress', sent, answered: accepted, failed });
      }
      await sleep(1);
    }
    // The last message's due time ends the phase, not the loop's last turn.
    measuredEndMs = startedMs + (total / plan.ratePerS) * 1000;
    if (rampCount === total) measuredStartMs = measuredEndMs;
    const wait = measuredEndMs - performance.now();
    if (wait > 0) await sleep(wait);
    inPhase = false;
    send({ type: 'published' });
    await Promise.all(pending);
    send({ type: 'progress', sent, answered: accepted, failed });
  } finally {
    agent.destroy();
  }
  const sorted = Float64Array.from(answerMs).sort();
  return {
    sent,
    accepted,
    lastSeq,
    failedSeqs,
    statuses,
    measuredSent: total - rampCount,
    measuredMs: measuredEndMs - measuredStartMs,
    answeredInPhase,
    answerP50Ms: percentile(sorted, 50),
    answerP99Ms: percentile(sorted, 99),
  };
}

process.on('message', (command: PublisherCommand) => {
  if (command.type !== 'run') return;
  run(command.plan).then(
    (result) => send({ type: 'done', result }),
    (err: unknown) => send({ type: 'failed', reason: err instanceof Error ? err.message : String(err) }),
  );
});
process.on('disconnect', () => process.exit(0));
send({ type: 'started', pid: process.pid });
