// EmailStateStore in memory, with the same fencing and uniqueness as the PostgreSQL one; for unit
// tests only.
import type { MailEventRecord } from '../events/mail-event.ts';
import type { EmailState, EmailStatus } from './email-state.ts';
import {
  EmailStateFencedError,
  type EmailStateStore,
  type EmailStateSuppression,
  type StoredEmailState,
} from './email-state-store.ts';

export interface MemoryEmailStateStore extends EmailStateStore {
  /** What the accept path does: the email row, before any of its events. */
  insertEmail(email: { id: string; productId: string; toAddress: string; status?: EmailStatus }): void;
  /** Recorded events of the email, in commit order. */
  events(emailId: string): MailEventRecord[];
  /** The product's suppressions, first reason kept, in insertion order. */
  suppressions(productId: string): EmailStateSuppression[];
  /** Commits that wrote something. */
  commits(): number;
}

export function createMemoryEmailStateStore(): MemoryEmailStateStore {
  const rows = new Map<string, StoredEmailState>();
  const events = new Map<string, MailEventRecord[]>();
  const eventIds = new Set<string>();
  const suppressions = new Map<string, Map<string, EmailStateSuppression>>();
  let commits = 0;
  return {
    insertEmail(e) {
      const state: EmailState = {
        emailId: e.id,
        productId: e.productId,
        recipient: e.toAddress.toLowerCase(),
        status: e.status ?? 'queued',
        lastEvent: null,
        opened: false,
        clickedLinks: new Set(),
        recordedEventIds: new Set(),
      };
      rows.set(e.id, { state, applied: null });
    },
    async load(emailId) {
      const stored = rows.get(emailId);
      if (!stored) return null;
      // As PostgreSQL rehydrates: the row's columns plus what the events table says.
      const mine = events.get(emailId) ?? [];
      return {
        state: {
          ...stored.state,
          opened: mine.some((e) => e.type === 'opened'),
          clickedLinks: new Set(mine.filter((e) => e.type === 'clicked').map((e) => e.link!)),
          recordedEventIds: new Set(mine.map((e) => e.event_id)),
        },
        applied: stored.applied,
      };
    },
    async commit(c) {
      const stored = rows.get(c.emailId);
      const matches =
        stored !== undefined &&
        (c.expected === null
          ? stored.applied === null
          : stored.applied !== null &&
            stored.applied.partition === c.expected.partition &&
            stored.applied.offset === c.expected.offset);
      if (!matches) throw new EmailStateFencedError(c.emailId);
      const mine = [...(events.get(c.emailId) ?? [])];
      for (const e of c.events) {
        // The table's primary key and unique indexes: a second open or click of a link is ignored.
        const clash =
          eventIds.has(e.event_id) ||
          (e.type === 'opened' && mine.some((m) => m.type === 'opened')) ||
          (e.type === 'clicked' && mine.some((m) => m.type === 'clicked' && m.link === e.link));
        if (clash) continue;
        eventIds.add(e.event_id);
        mine.push(e);
      }
      const listed = suppressions.get(stored.state.productId) ?? new Map();
      for (const s of c.suppressions) if (!listed.has(s.address)) listed.set(s.address, s);
      suppressions.set(stored.state.productId, listed);
      events.set(c.emailId, mine);
      rows.set(c.emailId, {
        state: { ...stored.state, status: c.state.status, lastEvent: c.state.lastEvent },
        applied: c.applied,
      });
      commits++;
    },
    events: (emailId) => [...(events.get(emailId) ?? [])],
    suppressions: (productId) => [...(suppressions.get(productId)?.values() ?? [])],
    commits: () => commits,
  };
}
