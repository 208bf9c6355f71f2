// The mail toolkit's HTTP services, one object that both surfaces run (the edge's mail toolkit
// and the management API's mail routes), so a request gets one answer wherever it arrives.
import type { PublicHandlers } from '@lattice/http';
import type { SendAnswer, SendInput } from '../emails/email-acceptor.ts';
import type { EmailView } from '../emails/email-reader.ts';
import type { WebhookWakePublisher } from '../webhooks/webhook-wake.ts';

export interface MailHttp {
  emails: {
    send(input: SendInput): Promise<SendAnswer>;
    /** The email, or 404 for an unknown id and another product's alike. */
    get(productId: string, id: string): Promise<EmailView>;
  };
  /** The keyless public routes: open pixel, click redirect, unsubscribe page and one-click POST. */
  trackingHandlers: PublicHandlers;
  /**
   * Wakes the endpoint actors after the management API recorded a delivery or put one back to
   * pending (`mail.webhook-deliveries`); a lost wake only delays until the actors' wake sweep.
   */
  webhookWakes: WebhookWakePublisher;
}
