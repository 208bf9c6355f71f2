// The throughput rounds of the mail benchmark, one per arm: `n` emails with the concurrency, timed
// from just before the first send to the smart host accepting the last, every email checked to
// have arrived exactly once (and, for the platform, to be `delivered` in PostgreSQL).
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { sleep } from '@lattice/core';
import type { Db } from '@lattice/store';
import type nodemailer from 'nodemailer';
import { waitUntil } from '../../support/wait-until.ts';
import { pool, poster } from '../support/http-load.ts';
import { type Arrivals, cpuNow, cpuSince, type Servers } from './processes.ts';
import type { Round } from './report.ts';

/** Epoch milliseconds with the monotonic clock's resolution; the smart host stamps the same way. */
export const epochMs = () => performance.timeOrigin + performance.now();

/** The html of every email of both arms: about 2 KB. */
export const HTML = [
  '<!doctype html><html><body style="font-family:sans-serif">',
  '<h1>Your weekly digest</h1>',
  ...Array.from(
    { length: 16 },
    (_, k) =>
      `<p>Item ${k + 1}: lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore.</p>`,
  ),
  '<p><a href="https://example.net/digest">Read it on the web</a></p>',
  '</body></html>',
].join('\n');
const SUBJECT = (i: number) => `Your weekly digest #${i}`;
export const TO = (i: number) => `reader-${i}@example.net`;

export interface Target {
  productId: string;
  ownerToken: string;
  domain: string;
}

/** What every measurement of a run shares. */
export interface Bench {
  servers: Servers;
  arrivals: Arrivals;
  db: Db;
  target: Target;
  concurrency: number;
  log: (line: string) => void;
}

export function sendBody(target: Target, i: number): string {
  return JSON.stringify({ from: `news@${target.domain}`, to: TO(i), subject: SUBJECT(i), html: HTML });
}

/** Sends `n` messages with the concurrency, waits for the smart host to have them all. */
async function measure(
  b: Bench,
  label: string,
  arm: Round['arm'],
  n: number,
  send: (i: number) => Promise<string>,
): Promise<{ round: Round; messageIds: string[] }> {
  const messageIds: string[] = new Array(n);
  let answered = 0;
  const cpuBefore = await cpuNow(b.servers);
  const current = b.arrivals.begin();
  const startMs = epochMs();
  let answeredMs = 0;
  let last = 0;
  const ticker = setInterval(() => {
    b.log(
      `  ${label.padEnd(14)} ${String(answered).padStart(5)}/${n} accepted  ${String(current.total).padStart(5)}/${n} received  ${String(current.total - last).padStart(5)} msg/s`,
    );
    last = current.total;
  }, 1000);
  try {
    await pool(n, b.concurrency, async (i) => {
      messageIds[i] = await send(i);
      answered++;
    });
    answeredMs = epochMs() - startMs;
    await waitUntil(`${label}: ${current.total} of ${n} received`, () => current.total >= n, 120_000, 5);
  } finally {
    clearInterval(ticker);
  }
  const cpu = await cpuSince(b.servers, cpuBefore, n);
  const elapsedMs = Math.max(...current.times) - startMs;
  const perSecondSeries: number[] = [];
  for (const t of current.times) {
    const s = Math.floor((t - startMs) / 1000);
    while (perSecondSeries.length <= s) perSecondSeries.push(0);
    perSecondSeries[s]!++;
  }
  current.check(label, messageIds);
  return {
    messageIds,
    round: {
      label,
      arm,
      messages: n,
      elapsedMs,
      perSecond: n / (elapsedMs / 1000),
      answeredPerSecond: n / (answeredMs / 1000),
      cpu,
      perSecondSeries,
    },
  };
}

/**
 * The local PostgreSQL runs without autovacuum (its CI configuration), and every email leaves
 * four row versions behind (insert, three updates) and its product's deletion the rest: without
 * a VACUUM, each round would find more dead rows in the tables and indexes than the last.
 */
export async function vacuum(db: Db): Promise<void> {
  await db.raw(
    'vacuum (analyze) mail_emails, mail_email_events, mail_idempotency_keys, mail_suppressions, mail_domains, member_tokens',
  );
}

/** mail_emails' update counters so far (pg_stat_user_tables): every update, and the HOT ones. */
export async function emailUpdates(db: Db): Promise<{ updates: number; hot: number }> {
  const row = (await db('pg_stat_user_tables')
    .where({ relname: 'mail_emails' })
    .first('n_tup_upd', 'n_tup_hot_upd')) as { n_tup_upd: string; n_tup_hot_upd: string } | undefined;
  return { updates: Number(row?.n_tup_upd ?? 0), hot: Number(row?.n_tup_hot_upd ?? 0) };
}

/** Waits until every email of the round is `delivered` in PostgreSQL (the email-state actor). */
export async function settle(db: Db, label: string, messageIds: string[]): Promise<number> {
  const ids = messageIds.map((m) => m.slice(1, m.indexOf('@')));
  const started = performance.now();
  const deadline = Date.now() + 60_000;
  for (;;) {
    const [row] = await db('mail_emails')
      .whereIn('id', ids)
      .andWhere({ status: 'delivered' })
      .count<{ c: string }[]>({ c: '*' });
    if (Number(row?.c ?? 0) === ids.length) return performance.now() - started;
    if (Date.now() > deadline)
      throw new Error(`${label}: only ${row?.c} of ${ids.length} emails reached delivered`);
    await sleep(100);
  }
}

export async function platformRound(b: Bench, label: string, n: number): Promise<Round> {
  const http = poster(
    `${b.servers.management.url}/mail/emails`,
    { authorization: `Bearer ${b.target.ownerToken}`, 'content-type': 'application/json' },
    b.concurrency,
  );
  try {
    const { round, messageIds } = await measure(b, label, 'platform', n, async (i) => {
      const res = await http.post(sendBody(b.target, i));
      if (res.status !== 202) throw new Error(`send answered ${res.status}: ${res.text}`);
      return `<${(JSON.parse(res.text) as { id: string }).id}@${b.target.domain}>`;
    });
    const settledMs = await settle(b.db, label, messageIds);
    // Nothing arrived twice while the email-state actor caught up.
    await sleep(200);
    b.arrivals.tally().check(label, messageIds);
    b.log(`  ${label}: every email received once and delivered (${settledMs.toFixed(0)} ms after the last)`);
    return round;
  } finally {
    b.arrivals.end();
    http.close();
  }
}

export interface BareMessages {
  transport: ReturnType<typeof nodemailer.createTransport>;
  dkim: { domainName: string; keySelector: string; privateKey: string };
  /** A List-Unsubscribe URL of the platform's length (made once, outside the timed loop). */
  unsubscribeUrl: string;
}

export async function bareRound(b: Bench, label: string, n: number, bare: BareMessages): Promise<Round> {
  const { domain } = b.target;
  try {
    const { round, messageIds } = await measure(b, label, 'bare', n, async (i) => {
      const id = randomUUID();
      const messageId = `<${id}@${domain}>`;
      const info = await bare.transport.sendMail({
        from: { name: '', address: `news@${domain}` },
        to: { name: '', address: TO(i) },
        subject: SUBJECT(i),
        html: HTML,
        messageId,
        date: new Date(),
        envelope: { from: `bounce+${id}@send.${domain}`, to: [TO(i)] },
        headers: {
          'List-Unsubscribe': `<${bare.unsubscribeUrl}>`,
          'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
        },
        dkim: bare.dkim,
        disableFileAccess: true,
        disableUrlAccess: true,
      });
      if (!String(info.response).startsWith('250')) throw new Error(`smart host answered ${info.response}`);
      return messageId;
    });
    await sleep(200);
    b.arrivals.tally().check(label, messageIds);
    return round;
  } finally {
    b.arrivals.end();
  }
}
