// The suppression list (decisions.md "Mail (interfaces)"): per product, addresses lower-cased,
// one entry per address whatever suppressed it first. Read at accept time and again at send
// time; written by the email-state actor (hard bounces, complaints), the one-click unsubscribe
// route and the management API (manual entries).
export const SUPPRESSION_REASONS = ['hard_bounce', 'complaint', 'unsubscribe', 'manual'] as const;
export type SuppressionReason = (typeof SUPPRESSION_REASONS)[number];

export interface Suppression {
  address: string;
  reason: SuppressionReason;
  emailId: string | null;
  createdAt: Date;
}

export interface SuppressionPage {
  /** At most this many entries. */
  limit: number;
  /** The address the previous page ended with; entries after it come next. */
  afterAddress?: string;
}

export interface SuppressionStore {
  isSuppressed(productId: string, address: string): Promise<boolean>;
  /** Adds the entry unless the address is listed; either way answers the listed entry. */
  add(
    productId: string,
    entry: { address: string; reason: SuppressionReason; emailId: string | null },
  ): Promise<{ entry: Suppression; created: boolean }>;
  /** False when the address was not listed. */
  remove(productId: string, address: string): Promise<boolean>;
  /** Newest first (created_at, then address). */
  list(productId: string, page: SuppressionPage): Promise<Suppression[]>;
}
