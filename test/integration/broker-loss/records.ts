// What the broker-loss test reads back: a channel's history rows and the emails' states, from
// PostgreSQL (the system of record), checked against what the clients were answered.
import type { Db } from '@lattice/store';
import { expect } from 'chai';
import type { HistoryRow } from '../../support/channel-history.ts';
import type { Outcome } from '../../support/post-outcome.ts';

export async function historyCount(db: Db, productId: string, messageIds: string[]): Promise<number> {
  const row = (await db('channel_history')
    .where({ product_id: productId })
    .whereIn('message_id', messageIds)
    .count({ n: '*' })
    .first()) as { n: string };
  return Number(row.n);
}

export async function deliveredCount(db: Db, emailIds: string[]): Promise<number> {
  const row = (await db('mail_emails')
    .whereIn('id', emailIds)
    .where({ status: 'delivered' })
    .count({ n: '*' })
    .first()) as { n: string };
  return Number(row.n);
}

/**
 * One channel's history against its client's answers (the client sent `{seq}` 1, 2, 3, … one at
 * a time): offsets dense in one epoch; the messages in the order sent, each once; every 202 there
 * under its id; nothing there that was not sent. Returns how many refused (503) publishes are
 * there anyway (their outcome was unknown when refused).
 */
export function checkChannel(channel: string, rows: HistoryRow[], outcomes: Outcome[]): number {
  expect(
    rows.map((r) => Number(r.offset)),
    `${channel}: dense offsets`,
  ).to.deep.equal(rows.map((_, i) => i + 1));
  expect(new Set(rows.map((r) => r.epoch)).size, `${channel}: one epoch`).to.equal(rows.length > 0 ? 1 : 0);
  const seqs = rows.map((r) => (JSON.parse(r.data_json) as { seq: number }).seq);
  expect(
    seqs.every((n, i) => i === 0 || n > seqs[i - 1]!),
    `${channel}: in the order sent, each once`,
  ).to.equal(true);
  const bySeq = new Map(outcomes.map((o) => [o.seq, o]));
  let landedRefusals = 0;
  for (const [i, seq] of seqs.entries()) {
    const o = bySeq.get(seq);
    expect(o?.status, `${channel}: seq ${seq} in history was published`).to.be.oneOf([202, 503]);
    if (o?.status === 202) expect(rows[i]!.message_id, `${channel}: seq ${seq}`).to.equal(o.id);
    else landedRefusals++;
  }
  const inHistory = new Set(seqs);
  const lost = outcomes.filter((o) => o.status === 202 && !inHistory.has(o.seq)).map((o) => o.seq);
  expect(lost, `${channel}: accepted publishes missing from history`).to.deep.equal([]);
  return landedRefusals;
}
