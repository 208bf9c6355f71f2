// A smart host for tests and benchmarks: a real SMTP server (smtp-server) that answers each
// recipient by its local part, as a relay would, and keeps what it accepted.
//   hard-…@   RCPT answered 550 5.1.1 (a hard bounce)
//   full-…@   RCPT answered 452 4.2.2 (retried, then a soft bounce)
//   reject-data-…@  DATA answered 554 5.7.1
//   anything else   250 2.0.0 Ok: queued as <id>
// `answer` replaces the RCPT rule (a test that changes its mind between attempts).
import { randomBytes } from 'node:crypto';
import { SMTPServer, type SMTPServerAddress } from 'smtp-server';

export interface ReceivedMessage {
  queueId: string;
  mailFrom: string;
  rcptTo: string[];
  raw: Buffer;
  /** The Message-ID header, as written. */
  messageId: string | null;
}

export interface SmartHost {
  port: number;
  url: string;
  received: ReceivedMessage[];
  /** Every RCPT TO seen, accepted or not, in order. */
  rcptLog: Array<{ address: string; code: number }>;
  /** Overrides the local-part rule: a code for an address (250, 4xx, 5xx), or undefined to keep it. */
  answer: ((address: string) => number | undefined) | null;
  /** Waits this long before answering DATA (a slow relay keeps messages in flight). */
  dataDelayMs: number;
  close(): Promise<void>;
}

function codeByLocalPart(address: string): number {
  const local = address.split('@')[0]!.toLowerCase();
  if (local.startsWith('hard-')) return 550;
  if (local.startsWith('full-')) return 452;
  return 250;
}

const TEXT: Record<number, string> = {
  550: '5.1.1 <%s>: Recipient address rejected: User unknown in virtual mailbox table',
  452: '4.2.2 <%s>: Mailbox full, try again later',
  451: '4.3.0 <%s>: Temporary lookup failure',
};

export interface SmartHostOptions {
  dataDelayMs?: number;
  /**
   * Given: each accepted message goes to it instead of into `received` (a benchmark counts
   * messages without keeping them).
   */
  onReceived?: (message: ReceivedMessage) => void;
}

export async function startSmartHost(opts: SmartHostOptions = {}): Promise<SmartHost> {
  const host: SmartHost = {
    port: 0,
    url: '',
    received: [],
    rcptLog: [],
    answer: null,
    dataDelayMs: opts.dataDelayMs ?? 0,
    close: async () => undefined,
  };
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['AUTH', 'STARTTLS'],
    logger: false,
    size: 50 * 1024 * 1024,
    onRcptTo(address: SMTPServerAddress, _session, callback) {
      const code = host.answer?.(address.address) ?? codeByLocalPart(address.address);
      host.rcptLog.push({ address: address.address, code });
      if (code === 250) return callback();
      const text = (TEXT[code] ?? `${code >= 500 ? '5' : '4'}.0.0 <%s>: refused`).replace(
        '%s',
        address.address,
      );
      callback(Object.assign(new Error(text), { responseCode: code }));
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks);
        const rcptTo = session.envelope.rcptTo.map((r) => r.address);
        const finish = () => {
          if (rcptTo.some((r) => r.toLowerCase().startsWith('reject-data-'))) {
            callback(Object.assign(new Error('5.7.1 Message rejected as spam'), { responseCode: 554 }));
            return;
          }
          const queueId = randomBytes(6).toString('hex').toUpperCase();
          const header = /^message-id:\s*(.+)$/im.exec(raw.subarray(0, 64 * 1024).toString('latin1'));
          const message: ReceivedMessage = {
            queueId,
            mailFrom: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
            rcptTo,
            raw,
            messageId: header ? header[1]!.trim() : null,
          };
          if (opts.onReceived) opts.onReceived(message);
          else host.received.push(message);
          callback(null, `Ok: queued as ${queueId}`);
        };
        if (host.dataDelayMs > 0) setTimeout(finish, host.dataDelayMs);
        else finish();
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  server.on('error', () => undefined);
  const address = server.server.address();
  host.port = typeof address === 'object' && address ? address.port : 0;
  host.url = `smtp://127.0.0.1:${host.port}`;
  host.close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return host;
}
