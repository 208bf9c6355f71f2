// What the soak counts at the end, from the systems of record against what the clients were
// answered: PostgreSQL (channel history, emails), the smart host (messages handed over), the
// webhook receiver (requests), the subscribers' clients (messages delivered).
//   accepted    answered 202
//   applied     in the channel's history / delivered by the sender
//   delivered   at the subscribers / at the smart host / at the webhook endpoint
//   lost        accepted and missing anywhere it must be (must be 0)
//   duplicated  more than once where it must be once, within the bounds of docs/operations.md
import type { Db } from '@lattice/store';
import { channelHistory } from '../support/channel-history.ts';
import type { HttpsReceiver } from '../support/https-receiver.ts';
import type { Outcome } from '../support/post-outcome.ts';
import type { ChaosEvent } from './chaos.ts';
import type { Stream, Traffic } from './traffic.ts';

export interface AccountingInputs {
  db: Db;
  productId: string;
  traffic: Traffic;
  handedOver: Map<string, number>;
  receiver: HttpsReceiver;
}

/** How the requests of one stream were answered, over every attempt. */
export interface Answers {
  attempts: number;
  accepted: number;
  /** 503 with Retry-After (the step unavailable), 429. */
  refused: Record<string, number>;
  /** The connection refused or dropped (an edge down). */
  transport: number;
  /** No answer within the client's bound. */
  hangs: number;
  /** A status the soak's requests must never get (a 500, a 4xx other than 409 key-in-use/429). */
  unexpected: Array<{ seq: number; status: number; code: string | null }>;
  /** Messages still unanswered when the traffic stopped (their outcome is unknown). */
  unresolved: number;
  /** Attempts per accepted message, the largest. */
  maxAttempts: number;
}

export interface Accounting {
  publishes: Answers & {
    applied: number;
    /** Not answered 202 when the traffic stopped, in history all the same. */
    landedUnanswered: number;
    lost: number;
    duplicated: number;
    outOfOrder: number;
    /** Offsets not 1..n, or more than one epoch, in a channel. */
    offsetFaults: number;
    /** A 202's id not the id history holds for its message. */
    idMismatches: number;
  };
  subscribers: {
    expected: number;
    delivered: number;
    lost: number;
    duplicated: number;
    outOfOrder: number;
    unrecovered: number;
    disconnects: number;
  };
  emails: Answers & {
    /** Accepted emails whose status is `delivered`. */
    applied: number;
    landedUnanswered: number;
    handedOver: number;
    lost: number;
    duplicated: number;
    /** Extra copies the sender counted as repeated attempts (send_repeats). */
    duplicatesCounted: number;
  };
  webhooks: {
    expected: number;
    delivered: number;
    lost: number;
    /** Requests repeating a delivery already received (same webhook-id). */
    duplicated: number;
    /** Deliveries of one email's event under different webhook-ids. */
    duplicatedEvents: number;
  };
  faults: Record<string, number>;
}

function emptyAnswers(): Answers {
  return {
    attempts: 0,
    accepted: 0,
    refused: {},
    transport: 0,
    hangs: 0,
    unexpected: [],
    unresolved: 0,
    maxAttempts: 0,
  };
}

function answersOf(stream: Stream): Answers {
  const a: Answers = { ...emptyAnswers(), accepted: stream.accepted };
  for (const item of stream.items) {
    a.attempts += item.attempts.length;
    if (item.id) a.maxAttempts = Math.max(a.maxAttempts, item.attempts.length);
    else a.unresolved++;
    for (const o of item.attempts) classify(a, o);
  }
  return a;
}

function classify(a: Answers, o: Outcome): void {
  if (o.status === 202) return;
  if (o.status === 0) {
    if (o.problem?.startsWith('no answer')) a.hangs++;
    else a.transport++;
    return;
  }
  const refusal = o.status === 503 || o.status === 429 || o.code === 'idempotency_key_in_use';
  if (refusal) {
    const key = `${o.status} ${o.code ?? ''}`.trim();
    a.refused[key] = (a.refused[key] ?? 0) + 1;
  } else a.unexpected.push({ seq: o.seq, status: o.status, code: o.code });
}

const acceptedIds = (stream: Stream) => stream.items.filter((i) => i.id).map((i) => i.id!);

async function deliveredEmailIds(db: Db, productId: string): Promise<string[]> {
  const rows = (await db('mail_emails')
    .where({ product_id: productId, status: 'delivered' })
    .select('id')) as Array<{
    id: string;
  }>;
  return rows.map((r) => r.id);
}

function hookedEmails(receiver: HttpsReceiver): Set<string> {
  return new Set(
    receiver.requests.map(
      (r) => (JSON.parse(r.body.toString('utf8')) as { data: { emailId: string } }).data.emailId,
    ),
  );
}

/** Everything accepted has arrived everywhere it goes. */
export async function drained(inputs: AccountingInputs): Promise<boolean> {
  const { db, productId, traffic, handedOver, receiver } = inputs;
  const published = [...traffic.publishes.values()].flatMap(acceptedIds);
  const inHistory = (await db('channel_history')
    .where({ product_id: productId })
    .whereRaw('message_id = any(?::text[])', [published])
    .count({ n: '*' })
    .first()) as { n: string };
  if (Number(inHistory.n) < published.length) return false;
  const tops = (await db('channel_history')
    .where({ product_id: productId })
    .groupBy('channel')
    .select('channel')
    .max({ top: 'offset' })) as Array<{ channel: string; top: string }>;
  for (const { channel, top } of tops) {
    for (const s of traffic.subscribers) {
      const got = s.received.get(channel) ?? [];
      if ((got.at(-1)?.offset ?? 0) < Number(top)) return false;
    }
  }
  const sent = acceptedIds(traffic.sends);
  if (sent.some((id) => !handedOver.has(id))) return false;
  const delivered = await deliveredEmailIds(db, productId);
  const sentSet = new Set(delivered);
  if (sent.some((id) => !sentSet.has(id))) return false;
  const hooked = hookedEmails(receiver);
  return delivered.every((id) => hooked.has(id));
}

export async function account(inputs: AccountingInputs, chaos: ChaosEvent[]): Promise<Accounting> {
  const { db, productId, traffic, handedOver, receiver } = inputs;

  // Realtime: history per channel against the publishers' answers.
  const pub = {
    ...mergeAnswers([...traffic.publishes.values()].map(answersOf)),
    applied: 0,
    landedUnanswered: 0,
    lost: 0,
    duplicated: 0,
    outOfOrder: 0,
    offsetFaults: 0,
    idMismatches: 0,
  };
  const subs = {
    expected: 0,
    delivered: 0,
    lost: 0,
    duplicated: 0,
    outOfOrder: 0,
    unrecovered: 0,
    disconnects: 0,
  };
  for (const s of traffic.subscribers) {
    subs.unrecovered += s.unrecovered;
    subs.disconnects += s.disconnects;
  }
  for (const [channel, stream] of traffic.publishes) {
    const rows = await channelHistory(db, productId, channel);
    const seqs = rows.map((r) => (JSON.parse(r.data_json) as { seq: number }).seq);
    const unique = new Set(seqs);
    pub.applied += unique.size;
    pub.duplicated += seqs.length - unique.size;
    let highest = 0;
    for (const seq of seqs) {
      if (seq < highest) pub.outOfOrder++;
      highest = Math.max(highest, seq);
    }
    pub.offsetFaults += rows.filter((r, i) => Number(r.offset) !== i + 1).length;
    pub.offsetFaults += Math.max(0, new Set(rows.map((r) => r.epoch)).size - 1);
    // A message twice in history (a retry after Redis lost its Idempotency-Key record) is there
    // under two ids, one of them the 202's.
    const idsOf = new Map<number, Set<string>>();
    for (const [i, seq] of seqs.entries())
      idsOf.set(seq, (idsOf.get(seq) ?? new Set()).add(rows[i]!.message_id));
    for (const item of stream.items) {
      if (item.id) {
        if (!unique.has(item.seq)) pub.lost++;
        else if (!idsOf.get(item.seq)!.has(item.id)) pub.idMismatches++;
      } else if (unique.has(item.seq)) pub.landedUnanswered++;
    }
    // Every subscriber: every offset of the channel once, in order.
    const offsets = rows.map((r) => Number(r.offset));
    for (const s of traffic.subscribers) {
      const got = (s.received.get(channel) ?? []).map((m) => m.offset);
      const gotSet = new Set(got);
      subs.expected += offsets.length;
      subs.delivered += gotSet.size;
      subs.lost += offsets.filter((o) => !gotSet.has(o)).length;
      subs.duplicated += got.length - gotSet.size;
      subs.outOfOrder += got.filter((o, i) => i > 0 && o <= got[i - 1]!).length;
    }
  }

  // Mail: the accepted emails' states and the copies the smart host got.
  const sendAnswers = answersOf(traffic.sends);
  const sent = acceptedIds(traffic.sends);
  const delivered = await deliveredEmailIds(db, productId);
  const deliveredSet = new Set(delivered);
  const rows = (await db('mail_emails')
    .where({ product_id: productId })
    .select('id', 'send_repeats')) as Array<{
    id: string;
    send_repeats: number;
  }>;
  const sentSet = new Set(sent);
  let duplicated = 0;
  for (const n of handedOver.values()) duplicated += n - 1;
  const emails = {
    ...sendAnswers,
    applied: sent.filter((id) => deliveredSet.has(id)).length,
    landedUnanswered: rows.filter((r) => !sentSet.has(r.id)).length,
    handedOver: sent.filter((id) => handedOver.has(id)).length,
    lost: sent.filter((id) => !handedOver.has(id) || !deliveredSet.has(id)).length,
    duplicated,
    duplicatesCounted: rows.reduce(
      (n, r) => n + Math.min(r.send_repeats, (handedOver.get(r.id) ?? 1) - 1),
      0,
    ),
  };

  // Webhooks: one email.delivered delivery per delivered email.
  const ids = receiver.requests.map((r) => String(r.headers['webhook-id']));
  const hooked = hookedEmails(receiver);
  const uniqueIds = new Set(ids);
  const webhooks = {
    expected: delivered.length,
    delivered: delivered.filter((id) => hooked.has(id)).length,
    lost: delivered.filter((id) => !hooked.has(id)).length,
    duplicated: ids.length - uniqueIds.size,
    duplicatedEvents: uniqueIds.size - hooked.size,
  };

  const faults: Record<string, number> = {};
  for (const e of chaos) {
    const kind = `${e.target.replace(/-\d+$/, '')} ${e.signal}`;
    faults[kind] = (faults[kind] ?? 0) + 1;
  }
  return { publishes: pub, subscribers: subs, emails, webhooks, faults };
}

function mergeAnswers(list: Answers[]): Answers {
  const m = emptyAnswers();
  for (const a of list) {
    m.attempts += a.attempts;
    m.accepted += a.accepted;
    m.transport += a.transport;
    m.hangs += a.hangs;
    m.unresolved += a.unresolved;
    m.maxAttempts = Math.max(m.maxAttempts, a.maxAttempts);
    m.unexpected.push(...a.unexpected);
    for (const [k, n] of Object.entries(a.refused)) m.refused[k] = (m.refused[k] ?? 0) + n;
  }
  return m;
}
