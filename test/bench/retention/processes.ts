// The retention benchmark's platform: the webhook benchmark's and the mail benchmark's servers,
// each a child process (fork, IPC), over the run's throwaway database.
//   receiver     the webhook benchmark's HTTPS receiver (test CA certificate), reporting each request
//   smart host   the mail benchmark's smtp-server sink, reporting each message
//   management   `lattice start management` (POST /mail/emails), its send rate raised for the run
//   actors       `lattice start actors`, one process for both paths: the mail sender hands emails
//                to the smart host (SMTP_URL), the webhook fan-out and endpoint actors POST
//                deliveries to the receiver (WEBHOOK_ALLOW_PRIVATE_TARGETS=true, the test CA
//                trusted through NODE_EXTRA_CA_CERTS). Its own retention jobs are held off
//                (RETENTION_PURGE_INTERVAL_MS at its maximum, a day): the benchmark runs the purges
//                itself, in the rounds that have them (purge-runs.ts).
import { type Server as MailServer, startServer as startMailServer } from '../mail/processes.ts';
import type { LogFiles, LogLevel } from '../support/platform-log.ts';
import { startServer as startWebhookServer, type Server as WebhookServer } from '../webhooks/processes.ts';

export interface RetentionServers {
  receiver: WebhookServer;
  smartHost: MailServer;
  management: MailServer;
  actors: WebhookServer;
}

export interface PlatformArgs {
  databaseUrl: string;
  redisKeyPrefix: string;
  kafkaTopicPrefix: string;
  secretKeys: string;
  /** The test CA's certificate file; its directory holds the receiver's certificate. */
  ca: string;
  certDir: string;
  logLevel: LogLevel;
  logs: LogFiles;
  sendRatePerSecond: number;
  profileDir: string | undefined;
}

/** What the actors' environment adds to the run's (read by loadConfig, and by Node at start). */
export const ACTORS_RETENTION_JOBS_OFF = { RETENTION_PURGE_INTERVAL_MS: '86400000' };

export async function startPlatform(a: PlatformArgs): Promise<RetentionServers> {
  const common = {
    databaseUrl: a.databaseUrl,
    redisKeyPrefix: a.redisKeyPrefix,
    kafkaTopicPrefix: a.kafkaTopicPrefix,
    secretKeys: a.secretKeys,
    logLevel: a.logLevel,
  };
  const receiver = await startWebhookServer(
    { ...common, role: 'receiver', certDir: a.certDir, logFile: a.logs.pathOf('receiver') },
    a.profileDir,
    {},
  );
  const smartHost = await startMailServer(
    { ...common, role: 'smart-host', smtpUrl: '', mail: {}, logFile: a.logs.pathOf('smart-host') },
    a.profileDir,
  );
  const actors = await startWebhookServer(
    { ...common, role: 'actors', certDir: a.certDir, logFile: a.logs.pathOf('actors') },
    a.profileDir,
    {
      NODE_EXTRA_CA_CERTS: a.ca,
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
      SMTP_URL: smartHost.url,
      ...ACTORS_RETENTION_JOBS_OFF,
    },
  );
  const management = await startMailServer(
    {
      ...common,
      role: 'management',
      smtpUrl: smartHost.url,
      mail: { sendRatePerSecond: a.sendRatePerSecond },
      logFile: a.logs.pathOf('management'),
    },
    a.profileDir,
  );
  return { receiver, smartHost, management, actors };
}

export async function stopPlatform(s: RetentionServers): Promise<void> {
  await s.management.stop();
  await s.actors.stop();
  await s.smartHost.stop();
  await s.receiver.stop();
}
