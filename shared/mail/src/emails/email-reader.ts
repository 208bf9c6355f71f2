// Reading one email as `GET /emails/{id}` (edge) and `mail_email_get` answer it (decisions.md
// "Mail (interfaces)"). An unknown id, another product's id and a string that is not a uuid all
// read as undefined, so each surface answers them with the same 404.
import { isUuid } from '@lattice/core';
import type { DbExecutor } from '@lattice/store';
import type { EmailStatus } from '../email-state/email-state.ts';
import type { BounceKind, MailEventType } from '../events/mail-event.ts';

export interface EmailView {
  id: string;
  /** As the sender gave it, display name included. */
  from: string;
  to: string;
  subject: string;
  status: EmailStatus;
  /** ISO 8601. */
  created_at: string;
  /** The newest recorded event (latest occurred_at), or null before the first. */
  last_event: {
    /** Without the `email.` prefix. */
    type: MailEventType;
    /** ISO 8601. */
    occurred_at: string;
    bounce_kind: BounceKind | null;
    reason: string | null;
  } | null;
}

interface Row {
  id: string;
  from_header: string;
  to_header: string;
  subject: string;
  status: EmailStatus;
  created_at: Date;
  last_event_type: MailEventType | null;
  last_event_at: Date | null;
  last_event_bounce_kind: BounceKind | null;
  last_event_reason: string | null;
}

export async function readEmail(
  db: DbExecutor,
  productId: string,
  id: string,
): Promise<EmailView | undefined> {
  // The id column is a uuid: anything else would be a database error, not a 404.
  if (!isUuid(id) || !isUuid(productId)) return undefined;
  const row = (await db('mail_emails')
    .where({ id, product_id: productId })
    .first(
      'id',
      'from_header',
      'to_header',
      'subject',
      'status',
      'created_at',
      'last_event_type',
      'last_event_at',
      'last_event_bounce_kind',
      'last_event_reason',
    )) as Row | undefined;
  if (!row) return undefined;
  return {
    id: row.id,
    from: row.from_header,
    to: row.to_header,
    subject: row.subject,
    status: row.status,
    created_at: row.created_at.toISOString(),
    last_event:
      row.last_event_type === null || row.last_event_at === null
        ? null
        : {
            type: row.last_event_type,
            occurred_at: row.last_event_at.toISOString(),
            bounce_kind: row.last_event_bounce_kind,
            reason: row.last_event_reason,
          },
  };
}
