// The webhook fan-out kind on `mail.events` (its own consumer group beside the email-state
// actor's): each event becomes one pending delivery per subscribed enabled endpoint, recorded in
// PostgreSQL, then a record on `mail.webhook-deliveries` per endpoint wakes the endpoint's actor.
// The offset is committed only after both; a replay records nothing twice (deliveries are
// idempotent on event and endpoint) and wakes what is still pending again, which is harmless.
// A wake carries the request id of its event (a send's id reaches the delivery it caused): the
// records are recorded in runs of one request id each, in order, so per-endpoint order holds.

import { TerminalError } from '@lattice/core';
import type { ActorKind, ActorRecord } from '@lattice/kafka';
import { isDataError } from '@lattice/store';
import { mailEventProblem } from '../email-state/email-state-logic.ts';
import type { MailEventRecord } from '../events/mail-event.ts';
import type { DeliveryMetrics } from './delivery-metrics.ts';
import type { FanoutStore } from './fanout-store.ts';
import { webhookPayload } from './webhook-events.ts';
import type { WebhookWakePublisher } from './webhook-wake.ts';

export const WEBHOOK_FANOUT_KIND = 'webhook-fanout';

export interface WebhookFanoutDeps {
  store: FanoutStore;
  wake: WebhookWakePublisher;
  metrics: DeliveryMetrics;
}

/** Consecutive records of one request id each, in record order (mostly one run). */
function runsOfRequestId<T extends { requestId?: string | undefined }>(records: readonly T[]): T[][] {
  const runs: T[][] = [];
  for (const r of records) {
    const last = runs[runs.length - 1];
    if (last && last[0]!.requestId === r.requestId) last.push(r);
    else runs.push([r]);
  }
  return runs;
}

export function webhookFanoutActorKind(deps: WebhookFanoutDeps): ActorKind<MailEventRecord> {
  async function recordAndWake(records: readonly ActorRecord<MailEventRecord>[]): Promise<void> {
    let pending: Awaited<ReturnType<FanoutStore['record']>>;
    try {
      pending = await deps.store.record(
        records.map((r) => ({
          event: r.value,
          payload: webhookPayload(r.value),
          recordedAtMs: r.timestampMs,
        })),
      );
    } catch (err) {
      // An event PostgreSQL refuses (a malformed id) never records: dead-letter it.
      if (isDataError(err))
        throw new TerminalError(`webhook fan-out refused the event: ${(err as Error).message}`);
      throw err;
    }
    if (pending.length === 0) return;
    // One wake per endpoint (its oldest pending delivery here): its loop reads the rest.
    const firstPerEndpoint = new Map<string, (typeof pending)[number]>();
    for (const d of pending) if (!firstPerEndpoint.has(d.endpoint_id)) firstPerEndpoint.set(d.endpoint_id, d);
    await deps.wake.publish([...firstPerEndpoint.values()], records[0]!.requestId);
    deps.metrics.recorded.inc(pending.length);
  }

  return {
    name: WEBHOOK_FANOUT_KIND,
    async load() {
      return {
        applied: () => null,
        async handle(records) {
          // A malformed event fails the chunk; the host then takes it one record at a time and
          // dead-letters only that one.
          for (const r of records) {
            const problem = mailEventProblem(r.value);
            if (problem) throw new TerminalError(`webhook fan-out refused the event: ${problem}`);
          }
          for (const run of runsOfRequestId(records)) await recordAndWake(run);
        },
      };
    },
  };
}
