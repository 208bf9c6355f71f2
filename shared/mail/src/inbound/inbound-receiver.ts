// The inbound SMTP receiver: where asynchronous bounces (RFC 3464 DSNs) and complaints (RFC 5965
// feedback reports) arrive. DSNs come to the VERP return path `bounce+<email id>@send.<domain>`
// (the return-path subdomain's MX points here); complaints come from feedback loops to whatever
// address the operator registered with them. Every recipient is accepted: the envelope is only
// read for the email id a VERP address carries.
//
// What the reporting MTA is told decides whether anything can be lost:
//   250  after the report's events are durably in Kafka, or when there is nothing to act on
//        (unmatched, malformed, delayed...): retrying those would never help, so they are
//        counted and dropped, never a 5xx for a parse error;
//   451  when the events could not be published or the emails not looked up: the MTA keeps the
//        report and tries again later (the same bytes give the same event id, see
//        report-matching.ts, so a retry after an unclear failure is no second event);
//   552  above the size cap (advertised with SIZE).
// No AUTH and no STARTTLS: reports are anonymous by nature and TLS would need a certificate
// for the MX name; nothing received here is relayed anywhere.
import { createHash } from 'node:crypto';
import type { Socket } from 'node:net';
import { type Clock, errorMessage, type Logger } from '@lattice/core';
import type { DbExecutor } from '@lattice/store';
import type { Registry } from 'prom-client';
import { SMTPServer, type SMTPServerDataStream, type SMTPServerSession } from 'smtp-server';
import type { MailEventPublisher } from '../events/mail-event.ts';
import { type InboundMetrics, inboundMetrics } from './inbound-metrics.ts';
import { createPostgresReportEmailLookup } from './report-email-lookup.postgres.ts';
import { decideReport } from './report-matching.ts';
import { parseReport } from './report-parser.ts';

export interface InboundReceiverDeps {
  host: string;
  /** `inboundSmtpPort` (2526); 0 picks a free port (tests), answered in `port`. */
  port: number;
  /** `mail.inboundMaxBytes`: larger messages are refused with 552. */
  maxBytes: number;
  db: DbExecutor;
  events: MailEventPublisher;
  logger: Logger;
  registry: Registry;
  clock: Clock;
  /** Connections served at once (each may buffer up to maxBytes). Default 50. */
  maxConnections?: number;
  /** Idle connections get 421 after this on close (smtp-server's closeTimeout). Default 30 000. */
  closeTimeoutMs?: number;
  /**
   * Connections one address may hold at once; the next is greeted with 421 and closed, so one
   * source cannot take every slot of maxConnections. Default 5 (an MTA sends reports over one
   * or two).
   */
  maxConnectionsPerAddress?: number;
  /**
   * A connection that has sent nothing this long after it opened is answered 421 and closed
   * (smtp-server's own idle limit, a minute, applies between commands). Default 10 000.
   */
  firstCommandTimeoutMs?: number;
}

export interface RunningInboundReceiver {
  host: string;
  port: number;
  /** Stops accepting, answers the messages being received, then closes every connection. */
  close(): Promise<void>;
}

/** RCPT TO commands per message; a report has one, this only bounds a session's memory. */
export const INBOUND_MAX_RECIPIENTS = 50;

interface Answer {
  code: 250 | 451 | 552;
  message: string;
}

interface Connection {
  send(code: number, message: string): void;
  close(): void;
}

function smtpError(code: number, message: string): Error {
  return Object.assign(new Error(message), { responseCode: code });
}

export async function startInboundReceiver(deps: InboundReceiverDeps): Promise<RunningInboundReceiver> {
  const log = deps.logger.child({ component: 'inbound-receiver' });
  const metrics: InboundMetrics = inboundMetrics(deps.registry);
  const lookup = createPostgresReportEmailLookup(deps.db);
  const inFlight = new Set<Promise<void>>();

  /** The message's bytes, or null once it went over the cap (the rest is read and dropped). */
  async function readCapped(stream: SMTPServerDataStream): Promise<Buffer | null> {
    const chunks: Buffer[] = [];
    let bytes = 0;
    let over = false;
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      if (over) continue;
      bytes += chunk.length;
      if (bytes > deps.maxBytes) {
        over = true;
        chunks.length = 0;
      } else chunks.push(chunk);
    }
    return over || stream.sizeExceeded ? null : Buffer.concat(chunks);
  }

  async function settle(raw: Buffer, session: SMTPServerSession): Promise<Answer> {
    const report = await parseReport(raw);
    const messageDigest = createHash('sha256').update(raw).digest('hex');
    const envelopeRecipients = session.envelope.rcptTo.map((r) => r.address);
    let decision: Awaited<ReturnType<typeof decideReport>>;
    try {
      decision = await decideReport({
        report,
        envelopeRecipients,
        lookup,
        nowMs: deps.clock.nowMs(),
        messageDigest,
      });
    } catch (err) {
      metrics.message('deferred');
      log.warn({ err: errorMessage(err) }, 'looking up the email of a report failed; answered 451');
      return { code: 451, message: 'Reports cannot be matched right now; try again later' };
    }
    try {
      await Promise.all(decision.events.map((e) => deps.events.publish(e)));
    } catch (err) {
      metrics.message('deferred');
      log.warn(
        { err: errorMessage(err), emailId: decision.emailId },
        'publishing the events of a report failed; answered 451',
      );
      return { code: 451, message: 'Reports cannot be recorded right now; try again later' };
    }
    metrics.message(decision.outcome);
    for (const e of decision.events) metrics.event(e);
    if (decision.events.length > 0) {
      const e = decision.events[0]!;
      log.info(
        { emailId: e.email_id, productId: e.product_id, type: e.type, bounceKind: e.bounce_kind },
        'report recorded',
      );
      return { code: 250, message: 'Report recorded' };
    }
    log.debug(
      {
        outcome: decision.outcome,
        why: decision.why,
        emailId: decision.emailId,
        remote: session.remoteAddress,
      },
      'report dropped',
    );
    return { code: 250, message: 'Report received' };
  }

  async function receive(stream: SMTPServerDataStream, session: SMTPServerSession): Promise<Answer | null> {
    let raw: Buffer | null;
    try {
      raw = await readCapped(stream);
    } catch {
      // The client went away mid-message: nobody to answer, and it will send the whole of it again.
      return null;
    }
    if (raw === null) {
      metrics.message('too_large');
      return { code: 552, message: `Message exceeds the maximum size of ${deps.maxBytes} bytes` };
    }
    return settle(raw, session);
  }

  const perAddressMax = deps.maxConnectionsPerAddress ?? 5;
  const perAddress = new Map<string, number>();
  const counted = new Set<string>();
  const firstCommandMs = deps.firstCommandTimeoutMs ?? 10_000;

  const server = new SMTPServer({
    banner: 'Lattice bounce and complaint receiver',
    authOptional: true,
    disabledCommands: ['AUTH', 'STARTTLS'],
    size: deps.maxBytes,
    // We never send delivery status notifications ourselves.
    hideDSN: true,
    disableReverseLookup: true,
    maxClients: deps.maxConnections ?? 50,
    closeTimeout: deps.closeTimeoutMs ?? 30_000,
    logger: false,
    onConnect(session, callback) {
      const address = session.remoteAddress;
      const held = perAddress.get(address) ?? 0;
      if (held >= perAddressMax) {
        metrics.connectionRefused('per_address');
        log.debug({ address, held }, 'inbound connection refused: too many from one address');
        callback(smtpError(421, 'Too many connections from your address; try again later'));
        return;
      }
      perAddress.set(address, held + 1);
      counted.add(session.id);
      callback();
    },
    onClose(session) {
      if (!counted.delete(session.id)) return;
      const left = (perAddress.get(session.remoteAddress) ?? 1) - 1;
      if (left > 0) perAddress.set(session.remoteAddress, left);
      else perAddress.delete(session.remoteAddress);
    },
    onRcptTo(_address, session, callback) {
      if (session.envelope.rcptTo.length >= INBOUND_MAX_RECIPIENTS) {
        callback(smtpError(452, 'Too many recipients'));
        return;
      }
      callback();
    },
    onData(stream, session, callback) {
      const work = receive(stream, session)
        .catch((err: unknown): Answer => {
          // parseReport and decideReport catch what a message can cause; this is a bug, and the
          // MTA keeps the report until it is fixed.
          metrics.message('deferred');
          log.error({ err: errorMessage(err) }, 'settling a report failed; answered 451');
          return { code: 451, message: 'Internal error; try again later' };
        })
        .then((answer) => {
          if (answer === null) return;
          if (answer.code === 250) callback(null, answer.message);
          else callback(smtpError(answer.code, answer.message));
        });
      inFlight.add(work);
      void work.finally(() => inFlight.delete(work));
    },
  });
  server.on('error', (err) => log.debug({ err: errorMessage(err) }, 'inbound connection error'));
  server.server.on('connection', (socket: Socket) => {
    metrics.connectionOpened();
    socket.once('close', () => metrics.connectionClosed());
    // Before the first command only: a connection that says nothing holds a slot for nothing.
    const timer = setTimeout(() => {
      metrics.connectionRefused('silent');
      socket.end('421 4.4.2 Nothing received; closing the connection\r\n', () => socket.destroy());
    }, firstCommandMs);
    timer.unref();
    socket.once('data', () => clearTimeout(timer));
    socket.once('close', () => clearTimeout(timer));
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(deps.port, deps.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.server.address();
  const port = typeof address === 'object' && address ? address.port : deps.port;
  log.info({ host: deps.host, port, maxBytes: deps.maxBytes }, 'inbound receiver listening');

  let closing: Promise<void> | null = null;
  return {
    host: deps.host,
    port,
    close() {
      closing ??= (async () => {
        // From here every new command is answered 421; a message already in DATA goes on.
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
        // Sessions that are idle between messages would hold the close up to closeTimeoutMs.
        for (const c of server.connections as Set<Connection>) {
          c.send(421, 'Server shutting down');
          c.close();
        }
        await closed;
        log.info('inbound receiver closed');
      })();
      return closing;
    },
  };
}
