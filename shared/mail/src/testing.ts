// Stand-ins for tests (`@lattice/mail/testing`); production code composes the real ones.
import { newId } from '@lattice/core';
import type { DbExecutor } from '@lattice/store';
import type { EmailStatus } from './email-state/email-state.ts';
import { messageIdFor } from './return-path.ts';

export interface TestEmail {
  productId: string;
  id?: string;
  from?: string;
  to?: string;
  subject?: string;
  status?: EmailStatus;
}

/** Inserts an email row as the accept path does (the row precedes its events); returns its id. */
export async function insertTestEmail(db: DbExecutor, email: TestEmail): Promise<string> {
  const id = email.id ?? newId();
  const to = email.to ?? 'Ann <Ann@Example.org>';
  const bare = /<([^>]+)>/.exec(to)?.[1] ?? to;
  await db('mail_emails').insert({
    id,
    product_id: email.productId,
    environment: 'production',
    from_header: email.from ?? 'Shop <news@shop.example.test>',
    to_header: to,
    to_address: bare.toLowerCase(),
    subject: email.subject ?? 'Hello',
    html: '<p>Hello</p>',
    message_id: messageIdFor(id, 'shop.example.test'),
    status: email.status ?? 'queued',
  });
  return id;
}
