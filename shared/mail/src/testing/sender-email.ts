// An email as the mail sender loads it (sender-store.ts), for tests of the message builder and
// its headers: a pending first attempt from news@example.org to bob@example.net.
import type { SenderEmail } from '../sender/sender-store.ts';

export function senderEmail(over: Partial<SenderEmail> = {}): SenderEmail {
  return {
    id: '0b8f7a52-6a0e-4d36-9d49-9a6d1c1f0001',
    productId: 'p',
    environment: 'production',
    domainId: 'd',
    fromHeader: 'News <news@example.org>',
    toHeader: 'bob@example.net',
    toAddress: 'bob@example.net',
    subject: 'Hi',
    replyTo: null,
    headers: {},
    trackOpens: false,
    trackClicks: false,
    messageId: '<x@example.org>',
    sendState: 'pending',
    attempts: 0,
    outcomeEvent: null,
    applied: null,
    ...over,
  };
}
