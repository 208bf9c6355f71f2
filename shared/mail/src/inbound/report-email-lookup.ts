// The emails a report may be about, looked up by the ids the report carries (report-matching.ts).
// Implementations: report-email-lookup.postgres.ts; unit tests pass an object literal.

/** What an event about an email needs of its row. */
export interface ReportedEmail {
  id: string;
  productId: string;
  /** The one recipient, lower-cased (mail_emails.to_address). */
  toAddress: string;
  /** The smart host's id of the handover, null before (or without) one. */
  providerMessageId: string | null;
}

export interface ReportEmailLookup {
  /** The emails among `ids` (UUIDs) that exist, in any order. Throws when the store is unreachable. */
  find(ids: string[]): Promise<ReportedEmail[]>;
}
