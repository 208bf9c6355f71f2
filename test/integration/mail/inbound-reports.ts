// Reports as real MTAs write them (the inbound receiver's fixtures in
// shared/mail/src/inbound/fixtures/), rewritten for an email of the test, and delivered over SMTP
// to an inbound receiver as a reporting MTA delivers them: a null reverse path, one recipient.
import { readFileSync } from 'node:fs';
import nodemailer from 'nodemailer';

const FIXTURES = new URL('../../../shared/mail/src/inbound/fixtures/', import.meta.url);

/** The email id and recipient a fixture was written for, or those of the test's email. */
export interface ReportSubject {
  emailId: string;
  recipient: string;
}

/** A fixture with the email id and recipient it was written for replaced by ours. */
export function fixtureReport(file: string, wrote: ReportSubject, ours: ReportSubject): string {
  return readFileSync(new URL(file, FIXTURES))
    .toString('latin1')
    .replaceAll(wrote.emailId, ours.emailId)
    .replaceAll(wrote.recipient, ours.recipient);
}

/** Delivers a report to the receiver on this port; resolves with its final answer (`250 …`). */
export async function deliverReport(port: number, rcpt: string, raw: string): Promise<string> {
  const transport = nodemailer.createTransport({ host: '127.0.0.1', port, secure: false, ignoreTLS: true });
  try {
    const info = await transport.sendMail({ envelope: { from: '', to: [rcpt] }, raw });
    return info.response;
  } finally {
    transport.close();
  }
}
