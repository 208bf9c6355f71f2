// The local mailbox `lattice start` runs as the default smart host (decisions.md: `SMTP_URL`
// defaults to this sink): an SMTP server on `SMTP_SINK_PORT` that accepts every message and keeps
// it as an `.eml` file in `<LATTICE_DATA_DIR>/mailbox`, where a developer opens it with any mail
// reader. It is a development convenience: no authentication, loopback only, a size cap, and it
// answers 250 with the file's name as the queue id (what a smart host's id looks like to the
// sender).
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from '@lattice/core';
import { SMTPServer } from 'smtp-server';

/** Messages over this are refused with 552 (the sink is for development mail, not archives). */
export const MAIL_SINK_MAX_BYTES = 25 * 1024 * 1024;

export interface MailSinkOptions {
  host: string;
  /** 0 picks a free port (tests). */
  port: number;
  /** Where messages are kept, one `.eml` file each. */
  dir: string;
  logger: Logger;
}

export interface RunningMailSink {
  port: number;
  dir: string;
  close(): Promise<void>;
}

export async function startMailSink(opts: MailSinkOptions): Promise<RunningMailSink> {
  const log = opts.logger.child({ component: 'mail-sink' });
  await mkdir(opts.dir, { recursive: true });
  let received = 0;
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['AUTH', 'STARTTLS'],
    size: MAIL_SINK_MAX_BYTES,
    banner: 'Lattice local mailbox',
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        if (stream.sizeExceeded) {
          callback(Object.assign(new Error('Message exceeds the mailbox size limit'), { responseCode: 552 }));
          return;
        }
        // Sortable by arrival, unique within the process.
        const id = `${new Date().toISOString().replace(/[:.]/g, '-')}-${(received++).toString().padStart(6, '0')}`;
        const envelope = [
          `X-Lattice-Mail-From: ${session.envelope.mailFrom ? session.envelope.mailFrom.address : ''}`,
          `X-Lattice-Rcpt-To: ${session.envelope.rcptTo.map((r) => r.address).join(', ')}`,
        ].join('\r\n');
        writeFile(
          join(opts.dir, `${id}.eml`),
          Buffer.concat([Buffer.from(`${envelope}\r\n`), ...chunks]),
        ).then(
          () => callback(null, `queued as ${id}`),
          (err: unknown) => {
            log.error({ err }, 'a message could not be kept');
            callback(Object.assign(new Error('Mailbox unavailable'), { responseCode: 451 }));
          },
        );
      });
    },
  });
  server.on('error', (err) => log.warn({ err }, 'mailbox connection error'));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.server.address();
  const port = typeof address === 'object' && address ? address.port : opts.port;
  log.info({ port, dir: opts.dir }, 'local mailbox listening');
  return {
    port,
    dir: opts.dir,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
