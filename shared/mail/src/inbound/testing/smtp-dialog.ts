// A raw SMTP client for tests that need what nodemailer will not do: bad commands, a declared
// SIZE, an empty message, a session left idle. One command at a time; each call answers the
// server's complete reply (multi-line replies joined with \n).
import { connect, type Socket } from 'node:net';

export interface SmtpDialog {
  /** The 220 greeting. */
  greeting: string;
  /** Sends one command line, answers the reply. */
  command(line: string): Promise<string>;
  /** Sends a message after DATA's 354 (dot-stuffed, terminated), answers the final reply. */
  message(raw: Buffer): Promise<string>;
  /** The next reply the server sends unasked (a 421 on shutdown). */
  nextReply(): Promise<string>;
  /** Resolves when the server has closed the connection. */
  closed: Promise<void>;
  end(): void;
}

export async function openSmtpDialog(port: number, host = '127.0.0.1'): Promise<SmtpDialog> {
  const socket: Socket = connect(port, host);
  let buffer = '';
  let lines: string[] = [];
  const replies: string[] = [];
  const waiting: Array<(reply: string) => void> = [];
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  socket.on('error', () => undefined);
  socket.on('data', (chunk: Buffer) => {
    buffer += chunk.toString('latin1');
    let end = buffer.indexOf('\r\n');
    while (end >= 0) {
      const line = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      lines.push(line);
      // A reply ends with its line whose code is followed by a space (RFC 5321 4.2.1).
      if (/^\d{3}(?: |$)/.test(line)) {
        const reply = lines.join('\n');
        lines = [];
        const waiter = waiting.shift();
        if (waiter) waiter(reply);
        else replies.push(reply);
      }
      end = buffer.indexOf('\r\n');
    }
  });
  const nextReply = (): Promise<string> => {
    const ready = replies.shift();
    if (ready !== undefined) return Promise.resolve(ready);
    return new Promise((resolve) => waiting.push(resolve));
  };
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  const greeting = await nextReply();
  const command = (line: string): Promise<string> => {
    socket.write(`${line}\r\n`);
    return nextReply();
  };
  return {
    greeting,
    command,
    async message(raw) {
      const text = raw.toString('latin1');
      const stuffed = text.replace(/(^|\r\n)\./g, '$1..');
      const terminated = stuffed === '' || stuffed.endsWith('\r\n') ? stuffed : `${stuffed}\r\n`;
      socket.write(Buffer.from(`${terminated}.\r\n`, 'latin1'));
      return nextReply();
    },
    nextReply,
    closed,
    end: () => socket.end(),
  };
}
