// The server side of the mail benchmark: three child processes of run.ts (fork, IPC).
//   management  the management role as `lattice start management` starts it: `POST /mail/emails`
//               accepts (owner token, verified domain, send rate in Redis, suppression check,
//               the email row in PostgreSQL, the mail.outbound record in Kafka, acks=all) → 202
//   actors      the actors role as `lattice start actors` starts it: the mail sender hands
//               each email to the smart host through its pooled nodemailer transport
//               (DKIM-signed), stores the outcome and publishes the event, which the
//               email-state actor applies
//   smart-host  test/support/smart-host.ts: a real smtp-server answering 250 `queued as X`; it
//               reports each message it accepted to the parent (Message-ID, when, whether it
//               carries a DKIM-Signature) in batches every few milliseconds, and keeps nothing
// Management and the actors run with the settings `lattice start` gives them (the actors'
// periodic jobs at their intervals over every product), logging at args.logLevel to args.logFile
// (support/platform-log.ts). The send rate is raised for the run (MAIL_SEND_RATE_PER_SECOND,
// args.mail); the parent asks each child for its CPU time and the SQL statements it has run so
// far over IPC.
import { performance } from 'node:perf_hooks';
import { actorsRole } from '@lattice/actors';
import type { MailConfig } from '@lattice/core';
import { managementRole } from '@lattice/management';
import { startSmartHost } from '../../support/smart-host.ts';
import { actorsSettingsOf, benchPlatform } from '../support/bench-product.ts';
import type { LogLevel } from '../support/platform-log.ts';

export type ServerRole = 'management' | 'actors' | 'smart-host';

export interface ServerArgs {
  role: ServerRole;
  databaseUrl: string;
  redisKeyPrefix: string;
  kafkaTopicPrefix: string;
  smtpUrl: string;
  secretKeys: string;
  mail: Partial<MailConfig>;
  logLevel: LogLevel;
  logFile: string;
}

/** One message at the smart host: Message-ID, epoch ms (sub-ms) it was accepted, DKIM-signed. */
export type Received = [messageId: string | null, atMs: number, signed: boolean];

export type ServerMessage =
  | { type: 'ready'; url: string }
  | { type: 'cpu'; userUs: number; systemUs: number }
  | { type: 'stats'; cpuUs: number; statements: number }
  | { type: 'received'; messages: Received[] };

const args = JSON.parse(process.argv[2] ?? '{}') as ServerArgs;
const send = (m: ServerMessage) => process.send?.(m);
/** Epoch milliseconds with the monotonic clock's resolution (comparable across processes). */
const epochMs = () => performance.timeOrigin + performance.now();
const FLUSH_MS = 10;

async function main(): Promise<void> {
  const stops: Array<() => Promise<void>> = [];
  let url: string;
  let statements = 0;
  if (args.role === 'smart-host') {
    let pending: Received[] = [];
    const host = await startSmartHost({
      onReceived(m) {
        const head = m.raw.subarray(0, Math.min(m.raw.length, 16 * 1024)).toString('latin1');
        pending.push([m.messageId, epochMs(), /^dkim-signature:/im.test(head)]);
      },
    });
    const flush = setInterval(() => {
      if (pending.length === 0) return;
      send({ type: 'received', messages: pending });
      pending = [];
    }, FLUSH_MS);
    url = host.url;
    stops.push(async () => {
      clearInterval(flush);
      await host.close();
    });
  } else {
    const { config, db, shared } = benchPlatform(args, `bench-mail-${args.role}`);
    // Each statement is a round trip to PostgreSQL, which on this machine costs far more than
    // building it: the report counts them per email.
    db.on('query', () => {
      statements++;
    });
    if (args.role === 'actors') {
      const actors = await actorsRole.start(actorsSettingsOf(config), shared);
      url = '';
      stops.push(() => actors.close());
    } else {
      const management = await managementRole.start(managementRole.configOf(config), shared);
      url = management.url;
      stops.push(() => management.close());
    }
    stops.push(
      () => shared.close(),
      () => db.destroy(),
    );
  }
  process.on('message', async (m: { type: string }) => {
    if (m.type === 'cpu') {
      const { user, system } = process.cpuUsage();
      send({ type: 'cpu', userUs: user, systemUs: system });
    } else if (m.type === 'stats') {
      const { user, system } = process.cpuUsage();
      send({ type: 'stats', cpuUs: user + system, statements });
    } else if (m.type === 'stop') {
      for (const stop of stops) await stop();
      process.exit(0);
    }
  });
  send({ type: 'ready', url });
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
