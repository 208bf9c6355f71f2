// The handover to the smart host (SMTP_URL): one pooled nodemailer transport per actors process,
// whose connections every email shares. nodemailer composes the message (MailComposer), signs it
// (DKIM) and speaks SMTP; this file only turns its answer into an SmtpOutcome.
import nodemailer from 'nodemailer';
import type Mail from 'nodemailer/lib/mailer';
import { type SmtpOutcome, smtpOutcomeOf } from './smtp-outcome.ts';

export interface MailTransport {
  send(message: Mail.Options): Promise<SmtpOutcome>;
  close(): void;
}

export interface SmtpTransportOptions {
  /** `smtp://host:port` or `smtps://user:pass@host:port` (decisions.md SMTP_URL). */
  url: string;
  maxConnections: number;
  /** Name this host gives in EHLO. Default: nodemailer's (the machine's hostname). */
  name?: string;
  /** Socket inactivity limit; a smart host that stalls this long is a failed attempt. */
  socketTimeoutMs?: number;
}

export function createSmtpTransport(opts: SmtpTransportOptions): MailTransport {
  const url = new URL(opts.url);
  if (url.protocol !== 'smtp:' && url.protocol !== 'smtps:')
    throw new Error(`SMTP_URL must be smtp:// or smtps://, got ${url.protocol}`);
  const secure = url.protocol === 'smtps:';
  const transport = nodemailer.createTransport({
    pool: true,
    host: url.hostname,
    port: url.port ? Number(url.port) : secure ? 465 : 587,
    secure,
    ...(url.username
      ? { auth: { user: decodeURIComponent(url.username), pass: decodeURIComponent(url.password) } }
      : {}),
    ...(opts.name ? { name: opts.name } : {}),
    maxConnections: opts.maxConnections,
    maxMessages: Number.POSITIVE_INFINITY,
    // The pool would otherwise send a message again by itself when a connection drops mid-send:
    // every new try must go through the sender, which counts repeats.
    maxRequeues: 0,
    socketTimeout: opts.socketTimeoutMs ?? 60_000,
    greetingTimeout: 30_000,
    connectionTimeout: 30_000,
  });
  return {
    async send(message) {
      try {
        const info = await transport.sendMail(message);
        return smtpOutcomeOf({ response: String(info.response ?? '') });
      } catch (error) {
        return smtpOutcomeOf({ error });
      }
    },
    close: () => transport.close(),
  };
}
