// Test support (`@lattice/mail/testing`), never imported by production code: a DNS server
// for verification tests and email rows as the accept path writes them.
export type { TestDnsMode, TestDnsServer } from './testing/test-dns-server.ts';
export { startTestDnsServer } from './testing/test-dns-server.ts';

import { newId } from '@lattice/core';
import type { DbExecutor } from '@lattice/store';
import type { EmailStatus } from './email-state/email-state.ts';
import { readEmail } from './emails/email-reader.ts';
import type { MailHttp } from './http/mail-http.ts';
import { MAIL_ERRORS } from './mail-errors.ts';
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

/**
 * The mail services with nothing behind the sending side (no Kafka, no Redis): every send
 * answers 503 send_unavailable; reads work. For tests of an app that reach no send.
 */
export function createMailHttpWithoutSending(deps: { db: DbExecutor }): MailHttp {
  return {
    emails: {
      send: () => Promise.reject(MAIL_ERRORS.sendUnavailable()),
      get: async (productId, id) => {
        const email = await readEmail(deps.db, productId, id);
        if (!email) throw MAIL_ERRORS.emailNotFound();
        return email;
      },
    },
    trackingHandlers: {},
  };
}
