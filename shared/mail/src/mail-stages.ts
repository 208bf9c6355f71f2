// The mail flow's stage histograms (docs/architecture.md "Where the time goes"): send accepted →
// produced (the send route), produced → fetched (the actor host), fetched → handed to the smart
// host and accepted → handed over (the sender, first attempts only: a retry's wait is policy, not
// latency); and the webhook flow's event → first attempt sent (the endpoint actor).
import { type StageTimer, stageTimer } from '@lattice/kafka';
import type { Registry } from 'prom-client';

export type MailStages = StageTimer<'mail'>;
export type WebhookStages = StageTimer<'webhooks'>;

export function mailStages(registry: Registry): MailStages {
  return stageTimer(registry, 'mail');
}

export function webhookStages(registry: Registry): WebhookStages {
  return stageTimer(registry, 'webhooks');
}
